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

// DecodeSnapshot decodes a snapshot's state, naming the workflow and commit when it cannot.
func DecodeSnapshot(snap *gitstore.Snapshot) (workflow.State, error) {
	st, err := workflow.DecodeState(snap.State)
	if err != nil {
		return workflow.State{}, fmt.Errorf("%s at %s: %w", snap.Feature, snap.Commit, err)
	}
	return st, nil
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
