// Package engine is the write engine: every command that records something goes through it.
// Execute decides workflow commands on the current state (workflow.Decide, with the guards run
// once, outside any lock), signs human decisions outside the swap (trust), takes the hook's
// journalled denials along (hookrun), and appends everything in one compare-and-swap of the
// workflow's ref (gitstore.Store.Update); CreateWorkflow starts one; Preview decides without
// writing (dry runs). The jobs that record steps (saga, ghevidence) get their repository from
// here, with the engine as their Executor or Engine.
//
// The road of a write runs one way, engine → trust → workflow → guards → hookrun's write →
// gitstore → gitrepo, with one callback on it: the decider Execute hands the store
// (gitstore.Decider), which decides again on the head it is about to replace. The guard
// evaluator workflow.Decide calls answers, inside the swap, only from the verdicts gathered
// before it (gathered: data, never git). Nothing is installed on the repository at Open: the
// fold the store applies is an argument of each call (trust's Projector: trust's verdicts on the
// human decisions, then project's fold under the rules), and the store calls nobody about the
// moves it makes: each result reports its move (gitstore.Move), which the write (hookrun's
// Update, Append, Create) hands to the hook runtime (hookrun.Repo.Moved), so the hooks' branch
// index and controls follow it. Jobs that move refs outside the engine (sync) report theirs in
// their results, which Follow hands over the same way.
//
// It may import saga, ghevidence, hookrun, trust, project, gitstore, workflow and the internal
// helpers; never app or cmd. internal/archtest holds the rule.
package engine

import (
	"github.com/exarchos/git-exarchos/ghevidence"
	"github.com/exarchos/git-exarchos/gitstore"
	"github.com/exarchos/git-exarchos/hookrun"
	"github.com/exarchos/git-exarchos/project"
	"github.com/exarchos/git-exarchos/saga"
	"github.com/exarchos/git-exarchos/trust"
	"github.com/exarchos/git-exarchos/workflow"
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
	return &Engine{Repo: t, hook: hookrun.On(t)}, nil
}

// Hook is the repository as the hook runtime sees it (the same opened repository and trust): the
// views, the hook's controls and the journal read through it.
func (r *Engine) Hook() *hookrun.Repo { return r.hook }

// Saga is the repository as the cancel saga sees it: each step recorded through Execute.
func (r *Engine) Saga() *saga.Repo { return &saga.Repo{Repo: r.Repo, Executor: r} }

// GitHub is the repository as GitHub evidence sees it: each observation recorded through Execute
// (Preview for a dry run).
func (r *Engine) GitHub() *ghevidence.Repo { return &ghevidence.Repo{Repo: r.Repo, Engine: r} }

// Append records events as they are, outside Execute (`event`, a runbook's steps): the store's
// append with trust's fold, its move followed by the hook runtime.
func (r *Engine) Append(feature string, events ...workflow.NewEvent) (*gitstore.Result, error) {
	return r.hook.Append(feature, events...)
}

// Follow runs a job that moves workflow refs outside the engine's writes (sync's pull, push and
// sync, through teamsync) and hands the moves its result reports to the hook runtime, so the
// hooks' branch index and the controls' watch follow them (hookrun.Following, as the engine's own
// writes do). The result is returned as the job gave it.
func Follow[R interface{ RefMoves() []*gitstore.Move }](r *Engine, job func() (R, error)) (R, error) {
	return hookrun.Following(r.hook, job)
}
