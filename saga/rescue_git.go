package saga

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/exarchos/git-exarchos/gitrepo"
)

// rescueGit is the repository as the rescue records (rescue_records.go, which owns their format)
// write and read it: commits, trees and refs through the git binary (moved here from gitrepo,
// which keeps only what many jobs share). A worktree snapshotted without
// touching its index, a commit made from a tree, a ref moved by compare-and-swap, a commit read
// through git (which also reaches alternates and a promisor's objects), two trees compared, a
// tree read back into a worktree.
type rescueGit struct{ gitrepo.Location }

// SnapshotTrees builds, in a temporary index, the trees of a linked worktree's index (staged
// state) and of its working files (`git add -A`: modified, deleted and untracked files, ignored
// ones left out). The worktree's own index is copied, never written. Git is pointed at the
// worktree's administrative directory explicitly, so a worktree that lost its .git file is still
// snapshotted as itself, and nothing else (the main checkout) ever is.
func (l rescueGit) SnapshotTrees(path string) (head, indexTree, workTree string, note string, err error) {
	if head, err = l.WorktreeHead(path); err != nil {
		return "", "", "", "", err
	}
	out, err := l.WorktreeGit(path, nil, "rev-parse", "--git-path", "index")
	if err != nil {
		return "", "", "", "", err
	}
	realIndex := strings.TrimSpace(out)
	if !filepath.IsAbs(realIndex) {
		realIndex = filepath.Join(path, realIndex)
	}
	tmp, err := os.MkdirTemp("", "exarchos-snapshot-")
	if err != nil {
		return "", "", "", "", fmt.Errorf("temporary index: %w", err)
	}
	defer os.RemoveAll(tmp)
	tmpIndex := filepath.Join(tmp, "index")
	env := []string{"GIT_INDEX_FILE=" + tmpIndex}
	b, err := os.ReadFile(realIndex)
	switch {
	case err == nil:
		if err := os.WriteFile(tmpIndex, b, 0o600); err != nil {
			return "", "", "", "", fmt.Errorf("copy the index: %w", err)
		}
	case errors.Is(err, os.ErrNotExist):
		if _, err := l.WorktreeGit(path, env, "read-tree", head); err != nil {
			return "", "", "", "", err
		}
	default:
		return "", "", "", "", fmt.Errorf("read the index of %s: %w", path, err)
	}
	out, err = l.WorktreeGit(path, env, "write-tree")
	if err != nil {
		// Unmerged entries (a conflict in progress) have no tree: the working files, added
		// below, carry the conflict markers; the staged side is the HEAD tree.
		note = "the index had unresolved conflicts: staged state not kept separately"
		out, err = l.WorktreeGit(path, nil, "rev-parse", head+"^{tree}")
		if err != nil {
			return "", "", "", "", err
		}
	}
	indexTree = strings.TrimSpace(out)
	if _, err := l.WorktreeGit(path, env, "add", "-A", "--", ":/"); err != nil {
		return "", "", "", "", err
	}
	out, err = l.WorktreeGit(path, env, "write-tree")
	if err != nil {
		return "", "", "", "", err
	}
	return head, indexTree, strings.TrimSpace(out), note, nil
}

// CommitTree writes a commit of tree with message and parents (git commit-tree) and returns its id.
func (l rescueGit) CommitTree(tree, message string, parents ...string) (string, error) {
	args := []string{"commit-tree", tree}
	for _, p := range parents {
		args = append(args, "-p", p)
	}
	out, err := l.CommonGit(strings.NewReader(message), append(args, "-F", "-")...)
	return strings.TrimSpace(out), err
}

// UpdateRef moves ref from old ("": must not exist, in either hash) to newSHA, compare-and-swap,
// with why in its reflog.
func (l rescueGit) UpdateRef(ref, newSHA, old, why string) error {
	_, err := l.CommonGit(nil, "update-ref", "--create-reflog", "-m", why, ref, newSHA, old)
	return err
}

// ReadCommitGit reads a commit through git cat-file (alternates and a promisor's objects
// included), decoded by the one commit reader (DecodeCommit).
func (l rescueGit) ReadCommitGit(sha string) (*gitrepo.Commit, error) {
	out, err := l.CommonGit(nil, "cat-file", "commit", sha)
	if err != nil {
		return nil, err
	}
	format, err := l.ObjectFormat()
	if err != nil {
		return nil, err
	}
	c, err := gitrepo.DecodeCommit([]byte(out), format)
	if err != nil {
		return nil, fmt.Errorf("commit %s: %w", sha, err)
	}
	return c, nil
}

// CommitDate returns when commit was made, as git's strict ISO 8601 (%cI).
func (l rescueGit) CommitDate(commit string) (string, error) {
	out, err := l.CommonGit(nil, "show", "-s", "--format=%cI", commit)
	return strings.TrimSpace(out), err
}

// DiffTrees lists the paths that differ from tree a to tree b, recursively and without rename
// detection, each as git's status letter, a space and the path ("D gone.txt").
func (l rescueGit) DiffTrees(a, b string) ([]string, error) {
	out, err := l.CommonGit(nil, "diff-tree", "-r", "--no-renames", "--name-status", "-z", a, b)
	if err != nil {
		return nil, err
	}
	changed := []string{}
	f := strings.Split(strings.TrimSuffix(out, "\x00"), "\x00")
	for i := 0; i+1 < len(f); i += 2 {
		changed = append(changed, f[i]+" "+f[i+1])
	}
	return changed, nil
}

// AddDetachedWorktree creates a linked worktree at path with HEAD detached at commit.
func (l rescueGit) AddDetachedWorktree(path, commit string) error {
	_, err := l.CommonGit(nil, "worktree", "add", "--quiet", "--detach", path, commit)
	return err
}

// ReadTree reads tree into the index of the worktree at path; withFiles also makes its working
// files exactly the tree's (deletions applied, untracked files the tree holds written).
func (l rescueGit) ReadTree(path, tree string, withFiles bool) error {
	args := []string{"read-tree", tree}
	if withFiles {
		args = []string{"read-tree", "-u", "--reset", tree}
	}
	_, err := gitrepo.GitIn(path, args...)
	return err
}
