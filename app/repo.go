// Package app holds what each git exarchos command does, one options struct and one Run function per
// command, apart from flag parsing and printing (which cmd/git-exarchos does). Commands reach the
// repository only through gitstore, GitHub only through githubsync, and decide only through workflow.
package app

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/exarchos/git-exarchos/gitstore"
	"github.com/exarchos/git-exarchos/workflow"
)

// UsageError is bad input from the caller: exit code 2.
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

// Usagef builds a UsageError.
func Usagef(format string, args ...any) error { return &UsageError{Msg: fmt.Sprintf(format, args...)} }

// ErrAmbiguous means the feature was left out and could not be inferred.
var ErrAmbiguous = errors.New("which workflow?")

// Projector adapts the workflow fold to the store.
var Projector gitstore.Projector = projector{}

type projector struct{}

func (projector) Version() string { return workflow.ProjectorVersion }
func (projector) Project(prev json.RawMessage, events []workflow.Event) (json.RawMessage, error) {
	return workflow.Project(prev, events)
}

// Repo is an opened repository.
type Repo struct {
	Store *gitstore.Store
	defs  *DefinitionSet // what HEAD defines, read once (defs.go)
	base  *Base          // the protected base branch rules are read from, resolved once (base.go)
	// trusted is who may sign decisions, read once from the base branch (trust.go).
	trusted *trust
}

// Open discovers the repository enclosing dir.
func Open(dir string) (*Repo, error) {
	r, err := openStore(dir)
	if err != nil {
		return nil, err
	}
	r.Definitions()
	return r, nil
}

// isActive reports whether a listed workflow is not in a final phase of its type.
func isActive(sum gitstore.Summary) bool {
	def, ok := workflow.Lookup(sum.Type)
	if !ok {
		return true
	}
	return !def.IsFinal(sum.Phase)
}

// ResolveFeature returns the feature to act on: the given one (validated), else the active workflow
// bound to the current branch (its own, or one of its task worktrees' branches), else the only
// active workflow.
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
		if isActive(s) {
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
	return &Repo{Store: s}, nil
}
