// Package app holds what each git exarchos command does, one options struct and one Run function per
// command, apart from flag parsing and printing (which cmd/git-exarchos does). The commands
// compose the job packages below them over the write engine (engine: Execute, CreateWorkflow,
// Preview) and the project base (project: the opened repository, its rules and state); they
// reach the repository only through project and gitstore, git only through project's named
// methods, GitHub only through ghclient, and decide only through workflow.
//
// It may import engine, the job packages and project, every package below them in the package
// map (CONTRIBUTING.md: hooks, workflowdef, guards, ghclient, gitstore, signing, fsmonitor,
// workflow) but gitrepo, and the internal helpers, never cmd or mcpserver; internal/archtest
// holds the rule.
package app

import (
	"github.com/exarchos/git-exarchos/engine"
	"github.com/exarchos/git-exarchos/hookrun"
)

// Repo is an opened repository as the commands use it: the write engine over the project's Repo
// (its store, rules and base branch) with trust and the hook runtime (engine.Engine). The jobs'
// commands take their own view of it: r.Saga(), r.GitHub(), r.Hook() (the views), r.Repo (trust,
// teamsync, verify's replay).
type Repo struct {
	*engine.Engine
}

// hookRuntime is r as the hook runtime sees it (the same opened repository and trust).
func (r *Repo) hookRuntime() *hookrun.Repo { return r.Hook() }

// Open discovers the repository enclosing dir, for a command.
func Open(dir string) (*Repo, error) {
	e, err := engine.Open(dir)
	if err != nil {
		return nil, err
	}
	return &Repo{Engine: e}, nil
}
