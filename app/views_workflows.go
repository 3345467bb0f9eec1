package app

import (
	"github.com/exarchos/git-exarchos/gitstore"
	"github.com/exarchos/git-exarchos/views"
	"github.com/exarchos/git-exarchos/workflow"
)

// ViewWorkflows gives a view `list` and `transitions`. Every transitions call of one view shares
// one environment, so one guard evaluator and its git facts: a worktree's status is asked once
// per branch tip for the whole view (201 workflows on one branch: one `git status`, not 201).
func (r *Repo) ViewWorkflows() views.Workflows {
	var env *workflow.Env
	shared := func() (workflow.Env, error) {
		if env == nil {
			e, err := r.Env()
			if err != nil {
				return workflow.Env{}, err
			}
			env = &e
		}
		return *env, nil
	}
	return views.Workflows{
		List: func(all bool) ([]gitstore.Summary, error) { return listSummaries(r, all) },
		Transitions: func(feature string) ([]workflow.TransitionOption, error) {
			tr, err := r.transitions(feature, shared)
			if err != nil {
				return nil, err
			}
			return tr.Transitions, nil
		},
	}
}
