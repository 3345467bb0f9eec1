package gitstore

import (
	"errors"
	"fmt"
	"os/exec"
	"strings"
)

// The facts of what a branch changed (guards.ChangeFacts): its merge-base with the base branch,
// the paths its commits changed since, and what its worktree holds uncommitted. Diffs use the git
// binary: go-git has no rename-aware, pathspec-free name-only diff as cheap as git's.

// MergeBase returns the best common ancestor of a and b; ok=false when they share none.
func (f Facts) MergeBase(a, b string) (string, bool, error) {
	out, err := gitCmd(f.s.Loc.CommonDir, nil, "merge-base", a, b)
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) && ee.ExitCode() == 1 && len(strings.TrimSpace(string(out))) == 0 {
			return "", false, nil
		}
		return "", false, fmt.Errorf("git merge-base %s %s: %v: %s", a, b, err, strings.TrimSpace(string(out)))
	}
	return strings.TrimSpace(string(out)), true, nil
}

// ChangedPaths lists the paths added, modified, deleted or renamed (both names) between two commits.
func (f Facts) ChangedPaths(from, to string) ([]string, error) {
	out, err := gitCmd(f.s.Loc.CommonDir, nil, "diff", "--name-only", "-z", "--no-renames", from, to, "--")
	if err != nil {
		return nil, fmt.Errorf("git diff %s %s: %v: %s", from, to, err, strings.TrimSpace(string(out)))
	}
	return splitZ(string(out)), nil
}

// AddedOrModified lists the paths that exist at to and differ from (or are absent at) from.
func (f Facts) AddedOrModified(from, to string) ([]string, error) {
	out, err := gitCmd(f.s.Loc.CommonDir, nil, "diff", "--name-only", "-z", "--no-renames", "--diff-filter=AM", from, to, "--")
	if err != nil {
		return nil, fmt.Errorf("git diff %s %s: %v: %s", from, to, err, strings.TrimSpace(string(out)))
	}
	return splitZ(string(out)), nil
}

// WorktreeChanges lists the paths the worktree that has branch checked out holds uncommitted
// (staged, unstaged and untracked files that are not ignored); none when no worktree has it.
func (f Facts) WorktreeChanges(branch string) ([]string, error) {
	dir, _, err := f.WorktreeOf(branch)
	if err != nil || dir == "" {
		return nil, err
	}
	cmd := exec.Command("git", "-C", dir, "status", "--porcelain=v1", "-z", "--untracked-files=all", "--no-renames")
	cmd.Env = cleanGitEnv()
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git status in %s: %w", dir, err)
	}
	var paths []string
	for _, rec := range splitZ(string(out)) {
		if len(rec) > 3 {
			paths = append(paths, rec[3:])
		}
	}
	return paths, nil
}

// WorktreeOf is the directory of the worktree that has branch checked out and its HEAD commit,
// or "" when none has.
func (f Facts) WorktreeOf(branch string) (dir, head string, err error) {
	out, err := gitCmd(f.s.Loc.CommonDir, nil, "worktree", "list", "--porcelain")
	if err != nil {
		return "", "", fmt.Errorf("git worktree list: %v: %s", err, strings.TrimSpace(string(out)))
	}
	for _, block := range strings.Split(string(out), "\n\n") {
		var path, sha, ref string
		for _, line := range strings.Split(block, "\n") {
			k, v, _ := strings.Cut(line, " ")
			switch k {
			case "worktree":
				path = v
			case "HEAD":
				sha = v
			case "branch":
				ref = v
			}
		}
		if ref == "refs/heads/"+branch && path != "" {
			return path, sha, nil
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
