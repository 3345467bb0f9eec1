package gitrepo

import (
	"errors"
	"os/exec"
	"strings"
)

// The facts of what a branch changed (guards.ChangeFacts): its merge-base with the base branch,
// the paths its commits changed since, and what its worktree holds uncommitted. Diffs use the git
// binary: go-git has no rename-aware, pathspec-free name-only diff as cheap as git's.

// MergeBase returns the best common ancestor of a and b; ok=false when they share none.
func (f Facts) MergeBase(a, b string) (string, bool, error) {
	out, err := f.s.Loc.repoGit(nil, "merge-base", a, b)
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) && ee.ExitCode() == 1 && strings.TrimSpace(out) == "" {
			return "", false, nil
		}
		return "", false, err
	}
	return strings.TrimSpace(out), true, nil
}

// ChangedPaths lists the paths added, modified, deleted or renamed (both names) between two commits.
func (f Facts) ChangedPaths(from, to string) ([]string, error) {
	out, err := f.s.Loc.repoGit(nil, "diff", "--name-only", "-z", "--no-renames", from, to, "--")
	if err != nil {
		return nil, err
	}
	return splitZ(out), nil
}

// AddedOrModified lists the paths that exist at to and differ from (or are absent at) from.
func (f Facts) AddedOrModified(from, to string) ([]string, error) {
	out, err := f.s.Loc.repoGit(nil, "diff", "--name-only", "-z", "--no-renames", "--diff-filter=AM", from, to, "--")
	if err != nil {
		return nil, err
	}
	return splitZ(out), nil
}

// WorktreeChanges lists the paths the worktree that has branch checked out holds uncommitted
// (staged, unstaged and untracked files that are not ignored); none when no worktree has it.
func (f Facts) WorktreeChanges(branch string) ([]string, error) {
	dir, _, err := f.WorktreeOf(branch)
	if err != nil || dir == "" {
		return nil, err
	}
	rep, err := StatusIn(dir)
	if err != nil {
		return nil, err
	}
	return rep.Paths(), nil
}

// WorktreeOf is the directory of the worktree that has branch checked out and its HEAD commit,
// or "" when none has.
func (f Facts) WorktreeOf(branch string) (dir, head string, err error) {
	wts, err := f.s.Loc.Worktrees()
	if err != nil {
		return "", "", err
	}
	for _, wt := range wts {
		if wt.Branch == branch && !wt.Bare && wt.Path != "" {
			return wt.Path, wt.Head, nil
		}
	}
	return "", "", nil
}

func splitZ(s string) []string {
	var out []string
	for _, p := range strings.Split(s, "\x00") {
		if p != "" {
			out = append(out, p)
		}
	}
	return out
}
