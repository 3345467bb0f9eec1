package app

import (
	"github.com/exarchos/git-exarchos/project"
	"github.com/exarchos/git-exarchos/saga"
	"github.com/exarchos/git-exarchos/workflow"
)

// The saga's commands (package saga) over this Repo: each records its steps through Execute.

// saga is r as the saga sees it: the repository with trust, and Execute to record each step.
func (r *Repo) saga() *saga.Repo { return &saga.Repo{Repo: r.Repo, Executor: r} }

// Cancel is `git exarchos cancel` (saga.Cancel).
func Cancel(r *Repo, o saga.CancelOptions) (*saga.CancelResult, error) {
	return saga.Cancel(r.saga(), o)
}

// Prune is `git exarchos prune` (saga.Prune).
func Prune(r *Repo, o saga.PruneOptions) (*saga.PruneResult, error) { return saga.Prune(r.saga(), o) }

// StartTask is `git exarchos task start` (saga.StartTask).
func StartTask(r *Repo, o saga.TaskStartOptions) (*saga.TaskStartResult, error) {
	return saga.StartTask(r.saga(), o)
}

// RescueList is `git exarchos rescue list` (saga.RescueList).
func RescueList(r *Repo, o saga.RescueListOptions) (*saga.RescueListResult, error) {
	return saga.RescueList(r.saga(), o)
}

// RescueRestore is `git exarchos rescue restore` (saga.RescueRestore).
func RescueRestore(r *Repo, o saga.RescueRestoreOptions) (*saga.RescueRestoreResult, error) {
	return saga.RescueRestore(r.saga(), o)
}

// TaskDoneOptions completes a task (`git exarchos task done`).
type TaskDoneOptions struct {
	Feature string
	Task    string
}

// CompleteTask marks a task completed (saga.Repo.BindTask gives it its head).
func CompleteTask(r *Repo, o TaskDoneOptions) (*project.Result, error) {
	return Run(r, o.Feature, workflow.CompleteTask{ID: o.Task})
}
