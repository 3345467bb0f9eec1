package workflow

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// ProjectorVersion names the fold's semantics. A stored state.json written by another version is
// not trusted: the reader folds the events again. Bump it whenever Apply or State changes.
const ProjectorVersion = "workflow/8"

// DecodeState decodes a snapshot written by Project; nil, empty or null is the initial state.
func DecodeState(snapshot json.RawMessage) (State, error) {
	var s State
	b := bytes.TrimSpace(snapshot)
	if len(b) == 0 || string(b) == "null" {
		return s, nil
	}
	if err := json.Unmarshal(b, &s); err != nil {
		return State{}, fmt.Errorf("decode state snapshot: %w", err)
	}
	return s, nil
}

// Project folds events onto a snapshot (nil for none) and returns the new snapshot. Folding all
// events at once and folding them in chunks give byte-identical snapshots.
//
// The workflow's type (the snapshot's, else the first workflow.started's) is looked up in defs. A
// type defs does not hold is an *UnknownTypeError and no snapshot: the fold would misplace every
// event, so the caller keeps the stored state and writes nothing.
func Project(defs Definitions, snapshot json.RawMessage, events []Event) (json.RawMessage, error) {
	s, err := DecodeState(snapshot)
	if err != nil {
		return nil, err
	}
	def, ok := defs.For(s, events)
	if !ok {
		return nil, &UnknownTypeError{Type: typeOf(s, events)}
	}
	for _, e := range events {
		s.apply(def, e) // s is freshly decoded and owned here, so in place is safe (and linear)
	}
	return s.MarshalJSON()
}

// typeOf is the workflow type of s, else of the first workflow.started in events.
func typeOf(s State, events []Event) string {
	for i := 0; s.Type == "" && i < len(events); i++ {
		if events[i].Type == EventStarted {
			var d StartedData
			if events[i].DecodeData(&d) == nil {
				return d.Type
			}
		}
	}
	return s.Type
}

// For returns the definition folding events onto s needs: that of s's type, else of the type the
// events start. ok is false when that type is not in ds; with no type at all (nothing started)
// def is nil and ok true.
func (ds Definitions) For(s State, events []Event) (def *Definition, ok bool) {
	typ := typeOf(s, events)
	if typ == "" {
		return nil, true
	}
	return ds.Lookup(typ)
}

// Fold is Fold with the definition For picks (nil when ds lacks the type: the events conflict).
func (ds Definitions) Fold(s State, events []Event) State {
	def, _ := ds.For(s, events)
	return Fold(def, s, events)
}

// Apply is Apply with the definition For picks.
func (ds Definitions) Apply(s State, e Event) State {
	def, _ := ds.For(s, []Event{e})
	return Apply(def, s, e)
}
