package app

import (
	"github.com/exarchos/git-exarchos/gitstore"
	"github.com/exarchos/git-exarchos/views"
	"github.com/exarchos/git-exarchos/workflow"
)

// The diagnostics' commands (package views) over this Repo.

// ShowAudit is `git exarchos audit` (views.ShowAudit).
func ShowAudit(r *Repo, o views.AuditOptions) (*views.Audit, error) {
	return views.ShowAudit(r.hookRuntime(), o)
}

// Fsck is `git exarchos fsck` (views.Fsck).
func Fsck(r *Repo, o views.FsckOptions) (*views.FsckResult, error) {
	return views.Fsck(r.hookRuntime(), o)
}

// Log is `git exarchos log` (views.Log).
func Log(r *Repo, o views.LogOptions) (*views.LogResult, error) { return views.Log(r.hookRuntime(), o) }

// Rehydrate is `git exarchos rehydrate` (views.Rehydrate).
func Rehydrate(r *Repo, o views.RehydrateOptions) (*views.RehydrateResult, error) {
	return views.Rehydrate(r.hookRuntime(), o)
}

// ShowPipeline is `git exarchos view pipeline` (views.ShowPipeline).
func ShowPipeline(r *Repo, o views.PipelineOptions) (*views.Pipeline, error) {
	return views.ShowPipeline(r.hookRuntime(), o, r.viewWorkflows())
}

// ShowTasks is `git exarchos view tasks` (views.ShowTasks).
func ShowTasks(r *Repo, o views.TasksOptions) (*views.TaskBoard, error) {
	return views.ShowTasks(r.hookRuntime(), o, r.viewWorkflows())
}

// ShowTimeline is `git exarchos view timeline` (views.ShowTimeline).
func ShowTimeline(r *Repo, o views.TimelineOptions) (*views.Timeline, error) {
	return views.ShowTimeline(r.hookRuntime(), o)
}

// ShowConvergence is `git exarchos view convergence` (views.ShowConvergence).
func ShowConvergence(r *Repo, o views.ConvergenceOptions) (*views.Convergence, error) {
	return views.ShowConvergence(r.hookRuntime(), o)
}

// ShowStack is `git exarchos view stack` (views.ShowStack).
func ShowStack(r *Repo, o views.StackOptions) (*views.Stack, error) {
	return views.ShowStack(r.hookRuntime(), o, r.viewWorkflows())
}

// ShowStatusDiagram is `git exarchos status --format mermaid` (views.ShowStatusDiagram).
func ShowStatusDiagram(r *Repo, o views.StatusDiagramOptions) (*views.StatusDiagram, error) {
	return views.ShowStatusDiagram(r.hookRuntime(), o)
}

// viewWorkflows gives a view `list` and `transitions`. Every transitions call of one view shares
// one environment, so one guard evaluator and its git facts: a worktree's status is asked once
// per branch tip for the whole view (201 workflows on one branch: one `git status`, not 201).
func (r *Repo) viewWorkflows() views.Workflows {
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
