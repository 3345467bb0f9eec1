// Package app holds what each git exarchos command does, one options struct and one Run function per
// command, apart from flag parsing and printing (which cmd/git-exarchos does). The commands
// compose the job packages below them over the project base (project: the opened repository, its
// rules and state); they reach the repository only through project and gitstore, GitHub only
// through ghclient, and decide only through workflow.
//
// It may import the job packages and project, every package below them in the package map
// (CONTRIBUTING.md: hooks, workflowdef, guards, ghclient, gitstore, signing, fsmonitor,
// workflow) but gitrepo, and the internal helpers, never cmd or mcpserver; internal/archtest
// holds the rule.
package app

import (
	"github.com/exarchos/git-exarchos/hookrun"
	"github.com/exarchos/git-exarchos/project"
	"github.com/exarchos/git-exarchos/trust"
)

// Repo is an opened repository as the commands use it: the project's Repo (its store, rules and
// base branch) with what trust knows about who may decide (trust.Repo, which installs its
// verdicts as the fold's).
type Repo struct {
	*trust.Repo
	hook *hookrun.Repo // the same repository as the hook runtime sees it, attached once (Open)
}

// hookRuntime is r as the hook runtime sees it (the same opened repository and trust).
func (r *Repo) hookRuntime() *hookrun.Repo { return r.hook }

// Open discovers the repository enclosing dir, for a command.
func Open(dir string) (*Repo, error) {
	p, err := project.Open(dir)
	if err != nil {
		return nil, err
	}
	t := trust.Open(p)
	return &Repo{Repo: t, hook: hookrun.Attach(t)}, nil
}
