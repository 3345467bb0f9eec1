package app

import (
	"errors"
	"fmt"
	"time"

	"github.com/exarchos/git-exarchos/gitstore"
	"github.com/exarchos/git-exarchos/workflow"
)

// Result is the outcome of a workflow command: the state after it and what it appended.
type Result struct {
	Feature    string           `json:"feature"`
	Head       string           `json:"head"`
	State      workflow.State   `json:"state"`
	Appended   []workflow.Event `json:"appended"`
	Duplicates []workflow.Event `json:"duplicates,omitempty"`
}

// env is what Decide needs from the world for this repository and workflow type.
func (r *Repo) env(typ string) (workflow.Env, error) {
	actor, err := r.Store.Actor()
	if err != nil {
		return workflow.Env{}, err
	}
	return workflow.Env{
		Actor:        actor,
		MaxFixCycles: r.Store.ConfigInt("exarchos."+typ+".maxFixCycles", 0),
		Guards:       r.evaluator(),
		OptIn:        map[string]bool{"checks-passed": r.Store.ConfigBool("exarchos.requireChecks")},
	}, nil
}

// State reads a workflow's current state.
func (r *Repo) State(feature string) (workflow.State, *gitstore.Snapshot, error) {
	snap, err := r.Store.State(feature, Projector)
	if err != nil {
		return workflow.State{}, nil, err
	}
	st, err := workflow.DecodeState(snap.State)
	if err != nil {
		return workflow.State{}, nil, fmt.Errorf("%s at %s: %w", feature, snap.Commit, err)
	}
	return st, snap, nil
}

// ResolveState resolves a feature that may be left out (ResolveFeature) and reads its state.
func (r *Repo) ResolveState(given string) (string, workflow.State, *gitstore.Snapshot, error) {
	feature, err := r.ResolveFeature(given)
	if err != nil {
		return "", workflow.State{}, nil, err
	}
	st, snap, err := r.State(feature)
	if err != nil {
		return "", workflow.State{}, nil, err
	}
	return feature, st, snap, nil
}

// Execute runs workflow commands against a feature: read the state, decide each command with guards
// checked against this repository (each on the state the previous ones left), and append all their
// events in one commit, so an observation, the evidence it justifies and the transition that needs
// it land together or not at all. A lost race re-reads and decides again.
//
// A rejection is returned as the error (*workflow.Rejection) and appends nothing, except when the
// engine asks for the refusal itself to be recorded (the circuit breaker tripping): then the events
// decided so far and the refusal's own are appended, and the rejection is still returned.
func (r *Repo) Execute(feature string, cmds ...workflow.Command) (*Result, error) {
	r.flushJournal(feature) // the hook's denials, kept until this write (journal.go)
	var rejection *workflow.Rejection
	res, err := r.Store.Update(feature, Projector, func(cur *gitstore.Snapshot) ([]workflow.NewEvent, error) {
		rejection = nil
		st, err := workflow.DecodeState(cur.State)
		if err != nil {
			return nil, err
		}
		env, err := r.env(st.Type)
		if err != nil {
			return nil, err
		}
		var out []workflow.NewEvent
		for _, cmd := range cmds {
			events, rej := workflow.Decide(nil, st, cmd, env)
			if rej != nil && len(events) == 0 {
				return nil, rej
			}
			out = append(out, events...)
			if rej != nil {
				rejection = rej
				return out, nil
			}
			for _, n := range events {
				// Stamped only to fold for the next command: the store assigns the real envelope.
				e, err := n.Stamp("pending", st.LastSeq+1, time.Time{}, env.Actor, st.LastClock+1)
				if err != nil {
					return nil, err
				}
				st = workflow.Apply(st, e)
			}
		}
		return out, nil
	})
	if err != nil {
		r.recordRefusal(feature, err)
		return nil, err
	}
	out, err := r.result(feature, res)
	if err != nil {
		return nil, err
	}
	if rejection != nil {
		return out, rejection
	}
	return out, nil
}

// Init starts a workflow: Decide on the empty state, then create the ref.
func (r *Repo) Init(cmd workflow.Init) (*Result, error) {
	if err := gitstore.ValidateFeature(cmd.Feature); err != nil {
		return nil, &UsageError{Msg: err.Error()}
	}
	env, err := r.env(cmd.Type)
	if err != nil {
		return nil, err
	}
	events, rej := workflow.Decide(nil, workflow.State{}, cmd, env)
	if rej != nil {
		return nil, rej
	}
	res, err := r.Store.Create(cmd.Feature, Projector, events)
	if err != nil {
		return nil, err
	}
	return r.result(cmd.Feature, res)
}

func (r *Repo) result(feature string, res *gitstore.Result) (*Result, error) {
	st, err := workflow.DecodeState(res.State)
	if err != nil {
		return nil, err
	}
	r.indexBranch(feature, st) // the hooks' branch → workflow index (hook_cache.go)
	out := &Result{Feature: feature, Head: res.Commit.String(), State: st, Appended: res.Appended, Duplicates: res.Duplicates}
	if out.Appended == nil {
		out.Appended = []workflow.Event{}
	}
	return out, nil
}

// IsRejection reports whether err is a workflow rejection.
func IsRejection(err error) bool {
	var r *workflow.Rejection
	return errors.As(err, &r)
}
