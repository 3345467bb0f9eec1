package trust

// A workflow's state as this clone counts it, and the workflow a command means. The state is the
// fold of the workflow's events with each human decision judged here (Projector: the verdicts,
// then project's fold under the rules), so every read of it goes through trust: project has no
// fold of its own to forget the verdicts with.

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/exarchos/git-exarchos/gitstore"
	"github.com/exarchos/git-exarchos/project"
	"github.com/exarchos/git-exarchos/workflow"
)

// Projector is the fold the store reads and writes snapshots with: trust's verdicts on the human
// decisions among the events (none in unsigned mode), then the workflow fold under the rules
// (project.Repo.Fold). Its version names what the verdicts depend on (projectorVersion), so a
// snapshot folded under other verdicts is folded again. It is passed to each store call, never
// installed: the store calls nothing it was not handed.
func (r *Repo) Projector() gitstore.Projector { return projector{r} }

type projector struct{ r *Repo }

func (p projector) Version() string { return p.r.projectorVersion() }

func (p projector) Project(prev json.RawMessage, events []workflow.Event) (json.RawMessage, error) {
	return p.r.Fold(prev, p.r.verdictsFor(prev, events))
}

// ResolveFeature returns the feature to act on: the given one (validated), else the active workflow
// bound to the current branch (its own, or one of its task worktrees' branches); on a detached HEAD
// only, the only active workflow. It never resolves to a workflow bound to another branch.
func (r *Repo) ResolveFeature(given string) (string, error) {
	if given != "" {
		if err := gitstore.ValidateFeature(given); err != nil {
			return "", &project.UsageError{Msg: err.Error()}
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
	if branch := r.CurrentBranch(); branch != "" {
		var bound []string
		for _, s := range active {
			if s.Branch == branch {
				bound = append(bound, s.Feature)
			}
		}
		if len(bound) == 0 {
			// A task worktree's branch: confirmed on the candidates' states (below).
			for _, s := range active {
				if project.TaskBranchCandidate(branch, s.Branch) {
					st, _, err := r.State(s.Feature)
					if err != nil {
						return "", err
					}
					if project.HasTaskWorktree(st, branch) {
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
			return "", fmt.Errorf("%w %d active workflows are bound to branch %s (%s): name one", project.ErrAmbiguous, len(bound), branch, strings.Join(bound, ", "))
		}
	}
	if branch := r.CurrentBranch(); branch != "" && len(active) > 0 {
		// Never act on a workflow bound to another branch: a finished workflow here and an active
		// one elsewhere must not make `cancel` (or `set`, `transition`) reach across branches.
		names := make([]string, len(active))
		for i, s := range active {
			names[i] = s.Feature + " (branch " + s.Branch + ")"
		}
		return "", fmt.Errorf("%w no active workflow is bound to the current branch %s; active elsewhere: %s: name one, or check out its branch", project.ErrAmbiguous, branch, strings.Join(names, ", "))
	}
	// Detached HEAD (CI, a bisect): no branch to bind to, so the only active workflow is meant.
	switch len(active) {
	case 1:
		return active[0].Feature, nil
	case 0:
		return "", fmt.Errorf("%w none is active: start one with `git exarchos init <feature> --type feature`, or name one (`git exarchos list --all`)", project.ErrAmbiguous)
	}
	names := make([]string, len(active))
	for i, s := range active {
		names[i] = s.Feature
	}
	return "", fmt.Errorf("%w %d workflows are active and none is bound to the current branch (%s): name one", project.ErrAmbiguous, len(active), strings.Join(names, ", "))
}

// State reads a workflow's current state.
func (r *Repo) State(feature string) (workflow.State, *gitstore.Snapshot, error) {
	snap, err := r.Snapshot(feature)
	if err != nil {
		return workflow.State{}, nil, err
	}
	st, err := project.DecodeSnapshot(snap)
	return st, snap, err
}

// Snapshot reads a feature's snapshot as State does, leaving its JSON undecoded.
func (r *Repo) Snapshot(feature string) (*gitstore.Snapshot, error) {
	return r.Store.State(feature, r.Projector())
}

// ResolveSnapshot resolves a feature that may be left out (ResolveFeature) and reads its
// snapshot, undecoded.
func (r *Repo) ResolveSnapshot(given string) (string, *gitstore.Snapshot, error) {
	feature, err := r.ResolveFeature(given)
	if err != nil {
		return "", nil, err
	}
	snap, err := r.Snapshot(feature)
	if err != nil {
		return "", nil, err
	}
	return feature, snap, nil
}

// ResolveState is ResolveSnapshot with the state decoded.
func (r *Repo) ResolveState(given string) (string, workflow.State, *gitstore.Snapshot, error) {
	feature, snap, err := r.ResolveSnapshot(given)
	if err != nil {
		return "", workflow.State{}, nil, err
	}
	st, err := project.DecodeSnapshot(snap)
	if err != nil {
		return "", workflow.State{}, nil, err
	}
	return feature, st, snap, nil
}
