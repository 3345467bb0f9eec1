package engine

import (
	"github.com/exarchos/git-exarchos/project"
	"github.com/exarchos/git-exarchos/workflow"
)

// Preview decides commands as Execute would — the same definition, guards and facts, on the
// current state — and writes nothing: the result's Appended are the events a real run would
// record (stamped with the id "dry-run"), its State what they would leave, its Head the commit
// they were decided on. A rejection is returned as Execute returns it, without the refusal
// Execute would record. Dry runs (`cleanup --dry-run`) use it.
func (r *Engine) Preview(feature string, cmds ...workflow.Command) (*project.Result, error) {
	st, snap, err := r.State(feature)
	if err != nil {
		return nil, err
	}
	def, err := r.Rules().Definition(st.Type)
	if err != nil {
		return nil, err
	}
	env, err := r.Env()
	if err != nil {
		return nil, err
	}
	out, rej, err := project.DecideAll(def, st, cmds, env)
	if err != nil {
		return nil, err
	}
	if rej != nil {
		return nil, rej
	}
	if err := r.LegacyChange(def, st, cmds, env, out, nil); err != nil {
		return nil, err
	}
	res := &project.Result{Feature: feature, Head: snap.Commit.String(), Appended: []workflow.Event{}}
	now := r.Store.Now()
	for _, n := range out {
		e, err := n.Stamp("dry-run", st.LastSeq+1, now, env.Actor, st.LastClock+1)
		if err != nil {
			return nil, err
		}
		st = workflow.Apply(def, st, e)
		res.Appended = append(res.Appended, e)
	}
	res.State = st
	return res, nil
}
