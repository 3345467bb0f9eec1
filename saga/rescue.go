package saga

import (
	"fmt"
	"path/filepath"

	"github.com/exarchos/git-exarchos/gitstore"
	"github.com/exarchos/git-exarchos/project"
)

// RescueListOptions selects rescued work (`git exarchos rescue list [<feature>]`).
type RescueListOptions struct{ Feature string }

// RescueListResult is what `rescue list` prints.
type RescueListResult struct {
	Rescues []Rescue `json:"rescues"`
}

// RescueList lists the work cancels preserved under refs/exarchos-rescue/, of one feature or all.
func RescueList(r *Repo, o RescueListOptions) (*RescueListResult, error) {
	if o.Feature != "" {
		if err := gitstore.ValidateFeature(o.Feature); err != nil {
			return nil, &project.UsageError{Msg: err.Error()}
		}
	}
	list, err := ListRescues(r.Location(), o.Feature)
	if err != nil {
		return nil, err
	}
	return &RescueListResult{Rescues: list}, nil
}

// RescueRestoreOptions restores rescued work (`git exarchos rescue restore`).
type RescueRestoreOptions struct {
	Feature string
	Task    string
	Path    string // default: <main worktree>/.worktrees/<feature>/<task>
	Branch  string // default: the task branch, when that name is free
	// Version picks one of the pieces of work the rescue keeps: 0 (default) is what the ref
	// brings back first, N the N-th of `rescue list`'s earlier versions.
	Version int
}

// RescueRestore checks rescued work out into a new linked worktree, with the working files
// (untracked ones included) and the index as they were preserved.
func RescueRestore(r *Repo, o RescueRestoreOptions) (*RescueRestoreResult, error) {
	if err := gitstore.ValidateFeature(o.Feature); err != nil {
		return nil, &project.UsageError{Msg: err.Error()}
	}
	if o.Task == "" {
		return nil, project.Usagef("name the task: git exarchos rescue restore %s <task> (see git exarchos rescue list %s)", o.Feature, o.Feature)
	}
	if err := checkPlace(o.Path, "", o.Branch); err != nil {
		return nil, err
	}
	if o.Version < 0 {
		return nil, project.Usagef("--version %d: a version is 0 (the default) or a number `git exarchos rescue list %s` shows", o.Version, o.Feature)
	}
	loc := r.Location()
	list, err := ListRescues(loc, o.Feature)
	if err != nil {
		return nil, err
	}
	var found *Rescue
	for i := range list {
		if list[i].Task == o.Task {
			found = &list[i]
		}
	}
	if found == nil {
		return nil, fmt.Errorf("%w: no rescued work for task %s of %s (see git exarchos rescue list %s)", gitstore.ErrNotFound, o.Task, o.Feature, o.Feature)
	}
	branch := o.Branch
	if branch == "" {
		branch = found.Branch
	}
	path := o.Path
	if path == "" {
		top, err := loc.MainWorktree()
		if err != nil {
			return nil, err
		}
		path = filepath.Join(top, WorktreeDir, o.Feature, o.Task)
	} else if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	res, err := RestoreRescue(loc, o.Feature, o.Task, path, branch, o.Version)
	if err != nil {
		return nil, err
	}
	if _, err := excludeWorktree(loc, path); err != nil {
		return res, err
	}
	return res, nil
}
