// Package project is an opened repository with its rules: the shared base every job of git exarchos
// stands on. It opens the event store (Repo, Open), reads the rules a workflow is held to from the
// protected base branch (Rules, Base, the legacy config keys), folds a workflow's events under
// those rules (Fold), defines the errors every command shares (UsageError,
// ErrAmbiguous), and runs shell commands under a timeout for every job that does (RunGate,
// gate_run.go: quality gates, verify's reruns, shell guards), and locates a repository for
// what runs where no store opens (locate.go: the installers' hooks directory and working tree,
// doctor's git version). The jobs above it (the hook runtime, trust, the commands) build on a *Repo and
// hand it nothing back: project has no projector of its own, so reading a workflow's state and
// resolving the feature a command means live with trust (trust/state.go), whose Projector judges
// each human decision before project's fold, and is passed to every store call.
//
// It may import workflow, workflowdef, guards, ghclient (the PR-url fact), gitstore, gitrepo and
// the internal helpers, and yaml.v3 and go-git's plumbing types; never a job package, app or cmd.
// internal/archtest holds the rule.
package project

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/exarchos/git-exarchos/gitrepo"
	"github.com/exarchos/git-exarchos/gitstore"
	"github.com/exarchos/git-exarchos/internal/agentenv"
	"github.com/exarchos/git-exarchos/workflow"
)

// UsageError is bad input from the caller: exit code 2.
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

// Usagef builds a UsageError.
func Usagef(format string, args ...any) error { return &UsageError{Msg: fmt.Sprintf(format, args...)} }

// ErrAmbiguous means the feature was left out and could not be inferred.
var ErrAmbiguous = errors.New("which workflow?")

// Fold is the workflow fold under the repository's rules, for events whose human decisions trust
// has judged (trust.Repo.Projector, the store's only projector, calls it with their verdicts set):
// a built-in type folds without reading the rules (the fold reads a definition's phases and
// transitions, never its limits, so the hook's appends skip reading them); another is looked up
// in the rules, and one the rules lack is named with its fix.
func (r *Repo) Fold(prev json.RawMessage, events []workflow.Event) (json.RawMessage, error) {
	snap, err := workflow.Project(workflow.Definitions{}, prev, events)
	var unknown *workflow.UnknownTypeError
	if !errors.As(err, &unknown) {
		return snap, err
	}
	if snap, err = workflow.Project(r.Rules().Defs, prev, events); errors.As(err, &unknown) {
		return nil, r.Rules().missing(unknown.Type)
	}
	return snap, err
}

// Repo is an opened repository.
type Repo struct {
	Store *gitstore.Store
	// git is the repository under the store, asked by name through git.go's methods.
	git   *gitrepo.Repo
	rules *Rules // what the base branch holds, read once (defs.go)
	base  *Base  // the protected base branch rules are read from, resolved once (base.go)
	// Notices receives what the user should know besides a command's result (a decision signed
	// again because the workflow moved); nil is os.Stderr.
	Notices io.Writer
	// Environ is the environment the call runs in (Open takes the process's): in an agent's,
	// human decisions are refused (trust/authority.go).
	Environ agentenv.Env
}

// definition is the definition of a workflow type under the repository's rules; built-in types
// whose phases are all a caller needs are served without reading the rules.
func (r *Repo) Definition(typ string) (*workflow.Definition, error) {
	return r.Rules().Definition(typ)
}

// isFinal reports whether phase is final in typ (false when typ is unknown here).
func (r *Repo) IsFinal(typ, phase string) bool {
	def, ok := workflow.Builtin(typ) // limits do not change which phases are final
	if !ok {
		def, ok = r.Rules().Defs.Lookup(typ)
	}
	return ok && def.IsFinal(phase)
}

// isActive reports whether a listed workflow is not in a final phase of its type.
func (r *Repo) IsActive(sum gitstore.Summary) bool { return !r.IsFinal(sum.Type, sum.Phase) }

// Open discovers the repository enclosing dir, without reading the rules (read on first use:
// the hook reads them only when a bound workflow needs them).
func Open(dir string) (*Repo, error) {
	g, err := gitrepo.Open(dir)
	if err != nil {
		return nil, err
	}
	return &Repo{Store: gitstore.On(g), git: g, Environ: agentenv.Process()}, nil
}

// TaskBranch is the branch a task worktree works on: the workflow's branch, "--", the task id
// (a "/" would clash with the workflow branch's own ref file).
func TaskBranch(workflowBranch, task string) string { return workflowBranch + "--" + task }

// A workflow is bound to its own branch and to the branches of its task worktrees, so that hooks
// and an omitted feature find it from inside `.worktrees/<feature>/<task>` too. Task branches are
// named TaskBranch(workflow branch, task): the name picks the candidates from what is already at
// hand (the list's trailers, the hook cache's index), and only a candidate's state is read to
// confirm that it recorded that worktree.

// TaskBranchCandidate reports whether branch is named like a task branch of a workflow on wfBranch.
func TaskBranchCandidate(branch, wfBranch string) bool {
	task, ok := strings.CutPrefix(branch, TaskBranch(wfBranch, ""))
	return wfBranch != "" && ok && task != ""
}

// HasTaskWorktree reports whether st recorded a task worktree on branch that is not removed yet.
func HasTaskWorktree(st workflow.State, branch string) bool {
	for _, r := range st.Resources {
		if r.Kind == workflow.ResourceWorktree && r.Branch == branch && !r.Compensated() {
			return true
		}
	}
	return false
}
