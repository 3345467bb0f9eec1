package project

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/exarchos/git-exarchos/gitstore"
	"github.com/exarchos/git-exarchos/workflow"
)

// optIn are the opt-in guards (workflow.Transition.OptIn) the rules enforce.
func (rl *Rules) OptIn() map[string]bool {
	return map[string]bool{"checks-passed": rl.Config.RequireChecks}
}

// State reads a workflow's current state.
func (r *Repo) State(feature string) (workflow.State, *gitstore.Snapshot, error) {
	snap, err := r.Snapshot(feature)
	if err != nil {
		return workflow.State{}, nil, err
	}
	st, err := DecodeSnapshot(snap)
	return st, snap, err
}

// Snapshot reads a feature's snapshot as State does, leaving its JSON undecoded.
func (r *Repo) Snapshot(feature string) (*gitstore.Snapshot, error) {
	return r.Store.State(feature, r.Projector())
}

func DecodeSnapshot(snap *gitstore.Snapshot) (workflow.State, error) {
	st, err := workflow.DecodeState(snap.State)
	if err != nil {
		return workflow.State{}, fmt.Errorf("%s at %s: %w", snap.Feature, snap.Commit, err)
	}
	return st, nil
}

// ResolveSnapshot resolves a feature that may be left out (ResolveFeature) and reads its
// snapshot, undecoded.
func (r *Repo) ResolveSnapshot(given string) (string, *gitstore.Snapshot, error) {
	feature, err := r.ResolveFeature(given)
	if err != nil {
		return "", nil, err
	}
	snap, err := r.Snapshot(feature)
	if err != nil {
		return "", nil, err
	}
	return feature, snap, nil
}

// ResolveState is ResolveSnapshot with the state decoded.
func (r *Repo) ResolveState(given string) (string, workflow.State, *gitstore.Snapshot, error) {
	feature, snap, err := r.ResolveSnapshot(given)
	if err != nil {
		return "", workflow.State{}, nil, err
	}
	st, err := DecodeSnapshot(snap)
	if err != nil {
		return "", workflow.State{}, nil, err
	}
	return feature, st, snap, nil
}

// decideAll decides cmds in order, each on the state the previous ones' events leave. A rejection
// stops it; the events decided so far are returned only with a rejection that carries events.
func DecideAll(def *workflow.Definition, st workflow.State, cmds []workflow.Command, env workflow.Env) ([]workflow.NewEvent, *workflow.Rejection, error) {
	var out []workflow.NewEvent
	for _, cmd := range cmds {
		events, rej := workflow.Decide(def, st, cmd, env)
		if rej != nil && len(events) == 0 {
			return nil, rej, nil
		}
		out = append(out, events...)
		if rej != nil {
			return out, rej, nil
		}
		for _, n := range events {
			// Stamped only to fold for the next command: the store assigns the real header.
			e, err := n.Stamp("pending", st.LastSeq+1, time.Time{}, env.Actor, st.LastClock+1)
			if err != nil {
				return nil, nil, err
			}
			st = workflow.Apply(def, st, e)
		}
	}
	return out, nil, nil
}

// HashHex is the hex SHA-256 of s, a name for it in a cache.
func HashHex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// Result is the outcome of a workflow command: the state after it and what it appended.
type Result struct {
	Feature    string           `json:"feature"`
	Head       string           `json:"head"`
	State      workflow.State   `json:"state"`
	Appended   []workflow.Event `json:"appended"`
	Duplicates []workflow.Event `json:"duplicates,omitempty"`
}

// IsRejection reports whether err is a workflow rejection.
func IsRejection(err error) bool {
	var r *workflow.Rejection
	return errors.As(err, &r)
}
