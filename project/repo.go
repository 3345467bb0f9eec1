// Package project is an opened repository with its rules: the shared base every job of git exarchos
// stands on. It opens the event store (Repo, Open), reads the rules a workflow is held to from the
// protected base branch (Rules, Base, the legacy config keys), reads a workflow's state, resolves
// a feature the caller left out, defines the errors every command shares (UsageError,
// ErrAmbiguous), and runs shell commands under a timeout for every job that does (RunGate,
// gate_run.go: quality gates, verify's reruns, shell guards), and locates a repository for
// what runs where no store opens (locate.go: the installers' hooks directory and working tree,
// doctor's git version). The jobs above it (the hook runtime, trust, the commands) build on a *Repo; what
// one of them contributes to the base (the verdicts of trust, which the fold needs) comes in
// through a small interface (Verdicts), never an import up.
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
	"slices"
	"sort"
	"strings"

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

// Verdicts gives human decisions their verdicts before a fold (the trust package's job): the
// projector's version names what the verdicts depend on, so a snapshot folded under other
// verdicts is folded again.
type Verdicts interface {
	ProjectorVersion() string
	// For returns events with a verdict on every decision among them, folded onto prev.
	For(prev json.RawMessage, events []workflow.Event) []workflow.Event
}

// errNoVerdicts refuses a fold of human decisions on a Repo opened without trust: an unverdicted
// decision must never take effect because a caller forgot to install one (fail closed).
var errNoVerdicts = errors.New("internal: a human decision cannot be folded without the trust package's verdicts (project.Repo.Verdicts is nil)")

// projector adapts the workflow fold to the store, with the definitions of the repository's rules
// (read only when a fold is needed: a snapshot written by this projector version is not refolded).
type projector struct{ r *Repo }

// Projector is the fold the store writes snapshots with.
func (r *Repo) Projector() gitstore.Projector { return projector{r} }

func (p projector) Version() string {
	if p.r.Verdicts == nil {
		return workflow.ProjectorVersion
	}
	return p.r.Verdicts.ProjectorVersion()
}
func (p projector) Project(prev json.RawMessage, events []workflow.Event) (json.RawMessage, error) {
	// In signed mode each decision's verdict is passed to the fold as data (Verdicts). The fold
	// reads a definition's phases and transitions, never its limits, so a built-in type folds the
	// same with or without the rules' limits: the hook's appends skip reading them.
	if p.r.Verdicts != nil {
		events = p.r.Verdicts.For(prev, events)
	} else if slices.ContainsFunc(events, func(e workflow.Event) bool { return workflow.DecisionKind(e) != "" }) {
		return nil, errNoVerdicts
	}
	snap, err := workflow.Project(workflow.Definitions{}, prev, events)
	var unknown *workflow.UnknownTypeError
	if !errors.As(err, &unknown) {
		return snap, err
	}
	if snap, err = workflow.Project(p.r.Rules().Defs, prev, events); errors.As(err, &unknown) {
		return nil, p.r.Rules().missing(unknown.Type)
	}
	return snap, err
}

// Repo is an opened repository.
type Repo struct {
	Store *gitstore.Store
	rules *Rules // what the base branch holds, read once (defs.go)
	base  *Base  // the protected base branch rules are read from, resolved once (base.go)
	// Verdicts judges human decisions for the fold; whoever opens the Repo for a job installs
	// the trust package's (nil refuses to fold a decision).
	Verdicts Verdicts
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

// ResolveFeature returns the feature to act on: the given one (validated), else the active workflow
// bound to the current branch (its own, or one of its task worktrees' branches); on a detached HEAD
// only, the only active workflow. It never resolves to a workflow bound to another branch.
func (r *Repo) ResolveFeature(given string) (string, error) {
	if given != "" {
		if err := gitstore.ValidateFeature(given); err != nil {
			return "", &UsageError{Msg: err.Error()}
		}
		return given, nil
	}
	all, err := r.Store.List()
	if err != nil {
		return "", err
	}
	var active []gitstore.Summary
	for _, s := range all {
		if r.IsActive(s) {
			active = append(active, s)
		}
	}
	if branch := r.Store.CurrentBranch(); branch != "" {
		var bound []string
		for _, s := range active {
			if s.Branch == branch {
				bound = append(bound, s.Feature)
			}
		}
		if len(bound) == 0 {
			// A task worktree's branch: confirmed on the candidates' states (below).
			for _, s := range active {
				if TaskBranchCandidate(branch, s.Branch) {
					st, _, err := r.State(s.Feature)
					if err != nil {
						return "", err
					}
					if HasTaskWorktree(st, branch) {
						bound = append(bound, s.Feature)
					}
				}
			}
		}
		if len(bound) == 1 {
			return bound[0], nil
		}
		if len(bound) > 1 {
			sort.Strings(bound)
			return "", fmt.Errorf("%w %d active workflows are bound to branch %s (%s): name one", ErrAmbiguous, len(bound), branch, strings.Join(bound, ", "))
		}
	}
	if branch := r.Store.CurrentBranch(); branch != "" && len(active) > 0 {
		// Never act on a workflow bound to another branch: a finished workflow here and an active
		// one elsewhere must not make `cancel` (or `set`, `transition`) reach across branches.
		names := make([]string, len(active))
		for i, s := range active {
			names[i] = s.Feature + " (branch " + s.Branch + ")"
		}
		return "", fmt.Errorf("%w no active workflow is bound to the current branch %s; active elsewhere: %s: name one, or check out its branch", ErrAmbiguous, branch, strings.Join(names, ", "))
	}
	// Detached HEAD (CI, a bisect): no branch to bind to, so the only active workflow is meant.
	switch len(active) {
	case 1:
		return active[0].Feature, nil
	case 0:
		return "", fmt.Errorf("%w none is active: start one with `git exarchos init <feature> --type feature`, or name one (`git exarchos list --all`)", ErrAmbiguous)
	}
	names := make([]string, len(active))
	for i, s := range active {
		names[i] = s.Feature
	}
	return "", fmt.Errorf("%w %d workflows are active and none is bound to the current branch (%s): name one", ErrAmbiguous, len(active), strings.Join(names, ", "))
}

// Open discovers the repository enclosing dir, without reading the rules (read on first use:
// the hook reads them only when a bound workflow needs them) and without Verdicts.
func Open(dir string) (*Repo, error) {
	s, err := gitstore.Open(dir)
	if err != nil {
		return nil, err
	}
	return &Repo{Store: s, Environ: agentenv.Process()}, nil
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
