// Package app holds what each git exarchos command does, one options struct and one Run function per
// command, apart from flag parsing and printing (which cmd/git-exarchos does). Commands reach the
// repository only through gitstore, GitHub only through githubsync, and decide only through workflow.
//
// It may import every package below it in the package map (CONTRIBUTING.md: hooks, workflowdef,
// guards, githubsync, gitstore, gitrepo, signing, fsmonitor, workflow) and the internal helpers,
// never cmd or mcpserver; internal/archtest holds the rule, and notes where app still reaches
// gitrepo directly.
package app

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync/atomic"

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

// projector adapts the workflow fold to the store, with the definitions of the repository's rules
// (read only when a fold is needed: a snapshot written by this projector version is not refolded).
type projector struct{ r *Repo }

// Projector is the fold the store writes snapshots with.
func (r *Repo) Projector() gitstore.Projector { return projector{r} }

func (p projector) Version() string { return p.r.projectorVersion() }
func (p projector) Project(prev json.RawMessage, events []workflow.Event) (json.RawMessage, error) {
	// In signed mode each decision's verdict is passed to the fold as data (trust.go). The fold
	// reads a definition's phases and transitions, never its limits, so a built-in type folds the
	// same with or without the rules' limits: the hook's appends skip reading them.
	events = p.r.verdictsFor(prev, events)
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
	// trusted is who may sign decisions, read once from the base branch (trust.go).
	trusted *trust
	// Notices receives what the user should know besides a command's result (a decision signed
	// again because the workflow moved); nil is os.Stderr.
	Notices io.Writer
	// Environ is the environment the call runs in (Open takes the process's): in an agent's,
	// human decisions are refused (authority.go).
	Environ agentenv.Env
	// hookIndex is the hooks' branch index as this process last read it (hook_index.go); atomic,
	// as goroutines may move refs through one Repo.
	hookIndex atomic.Pointer[loadedIndex]
}

// Open discovers the repository enclosing dir.
func Open(dir string) (*Repo, error) {
	return openStore(dir)
}

// definition is the definition of a workflow type under the repository's rules; built-in types
// whose phases are all a caller needs are served without reading the rules.
func (r *Repo) definition(typ string) (*workflow.Definition, error) {
	return r.Rules().Definition(typ)
}

// isFinal reports whether phase is final in typ (false when typ is unknown here).
func (r *Repo) isFinal(typ, phase string) bool {
	def, ok := workflow.Builtin(typ) // limits do not change which phases are final
	if !ok {
		def, ok = r.Rules().Defs.Lookup(typ)
	}
	return ok && def.IsFinal(phase)
}

// isActive reports whether a listed workflow is not in a final phase of its type.
func (r *Repo) isActive(sum gitstore.Summary) bool { return !r.isFinal(sum.Type, sum.Phase) }

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
		if r.isActive(s) {
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
			// A task worktree's branch: confirmed on the candidates' states (binding.go).
			for _, s := range active {
				if taskBranchCandidate(branch, s.Branch) {
					st, _, err := r.State(s.Feature)
					if err != nil {
						return "", err
					}
					if hasTaskWorktree(st, branch) {
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

// openStore opens the repository without reading the workflow types it defines (the hook reads
// them only when a bound workflow needs them).
func openStore(dir string) (*Repo, error) {
	s, err := gitstore.Open(dir)
	if err != nil {
		return nil, err
	}
	r := &Repo{Store: s, Environ: agentenv.Process()}
	s.Watch = r.indexMove // the hooks' branch index follows this process's own moves (hook_index_moves.go)
	return r, nil
}
