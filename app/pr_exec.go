package app

import (
	"time"

	"github.com/exarchos/git-exarchos/gitstore"
	"github.com/exarchos/git-exarchos/workflow"
)

// executeAll decides several commands in order, each on the state the previous ones left, and
// appends all their events in one commit: an observation, the evidence it justifies and the
// transition that needs the evidence land together or not at all. A rejection appends nothing.
func (r *Repo) executeAll(feature string, cmds ...workflow.Command) (*Result, error) {
	res, err := r.Store.Update(feature, Projector, func(cur *gitstore.Snapshot) ([]workflow.NewEvent, error) {
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
			if rej != nil {
				return nil, rej
			}
			for _, n := range events {
				// Stamped only to fold: the store assigns the real envelope.
				e, err := n.Stamp("pending", st.LastSeq+1, time.Time{}, env.Actor, st.LastClock+1)
				if err != nil {
					return nil, err
				}
				st = workflow.Apply(st, e)
			}
			out = append(out, events...)
		}
		return out, nil
	})
	if err != nil {
		return nil, err
	}
	return r.result(feature, res)
}
