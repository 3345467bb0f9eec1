// Package engine is the write engine: every command that records something goes through it.
// Execute decides workflow commands on the current state (workflow.Decide, with the guards run
// once, outside any lock), signs human decisions outside the swap (trust), takes the hook's
// journalled denials along (hookrun), and appends everything in one compare-and-swap of the
// workflow's ref (gitstore.Store.Update); CreateWorkflow starts one; Preview decides without
// writing (dry runs). The jobs that record steps (saga, ghevidence) get their repository from
// here, with the engine as their Executor or Engine.
//
// The road of a write runs one way, engine → project/trust → workflow → guards → gitstore →
// gitrepo, with one callback on it: the decider Execute hands the store (gitstore.Decider), which
// decides again on the head it is about to replace. The guard evaluator workflow.Decide calls
// answers, inside the swap, only from the verdicts gathered before it (gathered: data, never git).
// The fold the store applies is an argument of each call, never installed: trust's Projector
// (trust's verdicts on the human decisions, then project's fold under the rules), so nothing
// below trust calls up into it. One function value is still installed once at Open: the hook
// index's watch of each ref move (gitstore.MoveWatcher, by hookrun.Attach), because the watcher
// needs the refs' stamp taken just before the move, which only the store sees.
//
// It may import saga, ghevidence, hookrun, trust, project, gitstore, workflow and the internal
// helpers; never app or cmd. internal/archtest holds the rule.
package engine

import (
	"github.com/exarchos/git-exarchos/ghevidence"
	"github.com/exarchos/git-exarchos/hookrun"
	"github.com/exarchos/git-exarchos/project"
	"github.com/exarchos/git-exarchos/saga"
	"github.com/exarchos/git-exarchos/trust"
)

// Engine is an opened repository as every write sees it: the project's Repo (its store, rules
// and base branch) with trust (whose Projector every store call here is handed), and the same
// repository as the hook runtime sees it (its journal rides in each write's commit).
type Engine struct {
	*trust.Repo
	hook *hookrun.Repo // attached once (Open)
}

// Open discovers the repository enclosing dir, for a command.
func Open(dir string) (*Engine, error) {
	p, err := project.Open(dir)
	if err != nil {
		return nil, err
	}
	t := trust.Open(p)
	return &Engine{Repo: t, hook: hookrun.Attach(t)}, nil
}

// Hook is the repository as the hook runtime sees it (the same opened repository and trust): the
// views, the hook's controls and the journal read through it.
func (r *Engine) Hook() *hookrun.Repo { return r.hook }

// Saga is the repository as the cancel saga sees it: each step recorded through Execute.
func (r *Engine) Saga() *saga.Repo { return &saga.Repo{Repo: r.Repo, Executor: r} }

// GitHub is the repository as GitHub evidence sees it: each observation recorded through Execute
// (Preview for a dry run).
func (r *Engine) GitHub() *ghevidence.Repo { return &ghevidence.Repo{Repo: r.Repo, Engine: r} }
