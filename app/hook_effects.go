package app

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"

	"github.com/exarchos/git-exarchos/gitrepo"
	"github.com/exarchos/git-exarchos/hooks"
)

// Shell is what the Bash check needs about the repository enclosing dir: the directories no
// command may write (git's directories, the session bindings) and the repository's git aliases,
// resolved by git itself (only for a subcommand that is not one of git's own, so it rarely costs a
// process).
func (h *hookRepo) Shell(dir string) hooks.BashContext {
	ctx := hooks.BashContext{Protected: []string{SessionsDir()}}
	r, err := h.open(dir)
	if err != nil {
		return ctx // no repository: aliases unknown (nil), so an unknown git subcommand is unreadable
	}
	loc := r.Store.Loc
	ctx.Protected = append(ctx.Protected, loc.GitDir, loc.CommonDir)
	ctx.Alias = func(name string) (string, bool) {
		out, err := loc.Git(nil, "config", "--get", "alias."+name)
		if err != nil {
			return "", false
		}
		return strings.TrimSpace(out), true
	}
	return ctx
}

// Changes lists what the worktree the session works in changed: the index and the working tree
// against HEAD and the untracked files (one `git status`, which uses the index's stat data and the
// untracked cache when it is on), and the files the branch changed since it left its base
// (`git diff base...HEAD`, cached by the two commits, so it runs once per new commit).
func (h *hookRepo) Changes(w hooks.Bound) ([]hooks.Change, error) {
	root := w.Root
	// The untracked cache keeps the directories' mtimes in the index, so later calls skip reading
	// directories that did not change: the check costs about the same at any size.
	out, err := gitrepo.GitIn(root, "-c", "core.untrackedCache=true", "status", "--porcelain=v2", "-z", "--branch", "--untracked-files=all", "--no-renames")
	if err != nil {
		return nil, err
	}
	var changes []hooks.Change
	head := ""
	recs := strings.Split(out, "\x00")
	for _, rec := range recs {
		s := rec
		switch {
		case strings.HasPrefix(s, "# branch.oid "):
			head = strings.TrimPrefix(s, "# branch.oid ")
		case strings.HasPrefix(s, "1 "), strings.HasPrefix(s, "u "):
			f := strings.SplitN(s, " ", 9)
			if s[0] == 'u' {
				f = strings.SplitN(s, " ", 11)
			}
			if len(f) < 3 {
				continue
			}
			where := "worktree"
			if f[1][0] != '.' {
				where = "index"
			}
			changes = append(changes, hooks.Change{Path: f[len(f)-1], Where: where})
		case strings.HasPrefix(s, "? "):
			changes = append(changes, hooks.Change{Path: s[2:], Where: "untracked"})
		}
	}
	branch, err := h.branchChanges(root, head)
	if err != nil {
		return nil, err
	}
	return append(changes, branch...), nil
}

// branchChanges are the files changed between the base branch and head, cached per (base, head).
func (h *hookRepo) branchChanges(root, head string) ([]hooks.Change, error) {
	if head == "" || head == "(initial)" {
		return nil, nil
	}
	r := h.repo
	baseTip := r.Base().Commit // the protected base branch, the one the guards diff against
	if baseTip == "" {
		return nil, nil
	}
	key := filepath.Join(r.hookCache().dir, "branchdiff", baseTip+"-"+head)
	b, err := os.ReadFile(key)
	if err != nil {
		diff, err := gitrepo.GitIn(root, "diff", "--name-only", "-z", "--no-renames", baseTip+"..."+head)
		if err != nil {
			return nil, err
		}
		b = []byte(diff)
		_ = os.RemoveAll(filepath.Dir(key)) // one entry: older ones are for other commits
		_ = hooks.WriteFileAtomic(key, b, 0o644)
	}
	var out []hooks.Change
	for _, p := range bytes.Split(b, []byte{0}) {
		if len(p) > 0 {
			out = append(out, hooks.Change{Path: string(p), Where: "branch"})
		}
	}
	return out, nil
}
