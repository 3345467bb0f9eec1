// Package workflow is the pure core of git exarchos: the event header, workflow definitions as
// data, Decide (command + state + facts → events or a rejection) and Apply (state + event → state).
// It does no I/O and has no clock or randomness of its own; both are passed in.
//
// A CLI call goes: DecodeState(snapshot) → Decide(def, state, command, env) → the store stamps and
// appends the NewEvents → Project(defs, snapshot, appended) writes the next snapshot. Definitions
// are values the caller passes in (Builtin, NewDefinitions: the built-ins and a repository's own,
// with the limits of its rules); there is no registry. Env carries the actor, the opt-in guards and
// a GuardEvaluator (package guards, over git facts). Transitions and Summary explain what is open
// from the current phase; Definition.Text/Mermaid serve `describe`.
//
// It may import the standard library (none of its I/O, randomness or clock) and internal/jsonstr only.
package workflow

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"time"
)

// Event is one line of a workflow's log. The header fields are fixed; Data is the payload of the
// event type. Fields this version does not know are kept in extra and written back unchanged, so an
// older binary never strips what a newer one wrote.
type Event struct {
	ID    string          `json:"id"`
	Seq   int64           `json:"seq"`
	Type  string          `json:"type"`
	Time  time.Time       `json:"time"`
	Actor string          `json:"actor"`
	Clock uint64          `json:"clock"`
	Data  json.RawMessage `json:"data,omitempty"`
	// Sig signs a human decision (signature.go); nil on every other event.
	Sig *Signature `json:"sig,omitempty"`
	// Verdict is the app layer's check of Sig, filled when the event is loaded in signed mode and
	// never serialized; nil means unsigned mode (decisions count as they did before signing).
	Verdict *Verdict `json:"-"`

	extra map[string]json.RawMessage
}

var headerKeys = map[string]bool{"id": true, "seq": true, "type": true, "time": true, "actor": true, "clock": true, "data": true, "sig": true}

// UnmarshalJSON decodes the header and keeps unknown fields.
func (e *Event) UnmarshalJSON(b []byte) error {
	type plain Event
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	var all map[string]json.RawMessage
	if err := json.Unmarshal(b, &all); err != nil {
		return err
	}
	*e = Event(p)
	for k, v := range all {
		if !headerKeys[k] {
			if e.extra == nil {
				e.extra = map[string]json.RawMessage{}
			}
			e.extra[k] = v
		}
	}
	return nil
}

// MarshalJSON writes the header in a fixed key order followed by unknown fields sorted by name,
// so the same event always serialises to the same bytes.
func (e Event) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteByte('{')
	field := func(k string, v any) error {
		if buf.Len() > 1 {
			buf.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		buf.Write(kb)
		buf.WriteByte(':')
		if raw, ok := v.(json.RawMessage); ok {
			var c bytes.Buffer
			if err := json.Compact(&c, raw); err != nil {
				return fmt.Errorf("field %s: %w", k, err)
			}
			buf.Write(c.Bytes())
			return nil
		}
		vb, err := json.Marshal(v)
		if err != nil {
			return fmt.Errorf("field %s: %w", k, err)
		}
		buf.Write(vb)
		return nil
	}
	for _, f := range []struct {
		k string
		v any
	}{{"id", e.ID}, {"seq", e.Seq}, {"type", e.Type}, {"time", e.Time.UTC()}, {"actor", e.Actor}, {"clock", e.Clock}} {
		if err := field(f.k, f.v); err != nil {
			return nil, err
		}
	}
	if len(e.Data) > 0 {
		if err := field("data", e.Data); err != nil {
			return nil, err
		}
	}
	if e.Sig != nil {
		if err := field("sig", e.Sig); err != nil {
			return nil, err
		}
	}
	keys := make([]string, 0, len(e.extra))
	for k := range e.extra {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if err := field(k, e.extra[k]); err != nil {
			return nil, err
		}
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// DecodeData unmarshals the payload into v; an absent payload leaves v untouched.
func (e Event) DecodeData(v any) error {
	if len(e.Data) == 0 {
		return nil
	}
	return json.Unmarshal(e.Data, v)
}

// Less is the canonical order of events: Lamport clock, then id. Merged logs are sorted by it.
func Less(a, b Event) bool {
	if a.Clock != b.Clock {
		return a.Clock < b.Clock
	}
	return a.ID < b.ID
}

// NewEvent is what a decision produces: the type and payload of an event still to be stamped with
// id, seq, time, actor and clock by the store that appends it.
type NewEvent struct {
	Type string
	Data any
	// ID, when set, is the caller's idempotency key: an event with this id already in the log is
	// not appended again.
	ID string
	// Time and Sig are set for a signed decision: the signature covers the id and time, so the
	// store keeps them instead of stamping its own.
	Time time.Time
	Sig  *Signature
}
