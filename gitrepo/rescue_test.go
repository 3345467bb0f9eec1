package gitrepo

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/exarchos/git-exarchos/internal/gittest"
)

// files reads every file under dir except .git, with its mode, so two trees compare byte for byte.
func files(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	require.NoError(t, filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		require.NoError(t, err)
		rel, _ := filepath.Rel(dir, p)
		if rel == ".git" {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			return nil
		}
		fi, err := os.Lstat(p)
		require.NoError(t, err)
		if fi.Mode()&os.ModeSymlink != 0 {
			target, err := os.Readlink(p)
			require.NoError(t, err)
			out[rel] = "link:" + target
			return nil
		}
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		out[rel] = fi.Mode().String() + ":" + string(b)
		return nil
	}))
	return out
}

func write(t *testing.T, dir, name, content string) {
	t.Helper()
	p := filepath.Join(dir, name)
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
}

func TestPreserveAndRestoreWorktreeByteForByte(t *testing.T) {
	dir := gittest.NewRepo(t, "sha1")
	write(t, dir, "a.txt", "a\n")
	write(t, dir, "gone.txt", "bye\n")
	write(t, dir, "staged-gone.txt", "bye too\n")
	write(t, dir, ".gitignore", "*.log\n")
	gittest.Git(t, dir, "", "add", ".")
	gittest.Git(t, dir, "", "commit", "-q", "-m", "files")
	loc, err := Discover(dir)
	require.NoError(t, err)
	wt := filepath.Join(dir, ".worktrees", "f", "t1")
	require.NoError(t, loc.AddWorktree(wt, "main--t1", "HEAD", true))
	if added, err := loc.EnsureExcluded("/.worktrees/"); err != nil || !added {
		t.Fatalf("exclude: %v %v", added, err)
	}
	if added, _ := loc.EnsureExcluded("/.worktrees/"); added {
		t.Fatal("exclude line added twice")
	}
	if out := gittest.Git(t, dir, "", "status", "--porcelain"); out != "" {
		t.Fatalf("main worktree sees the task worktree: %q", out)
	}

	// Staged then modified again, staged only, unstaged, deleted, staged deletion, untracked
	// (also in a new directory), executable, symlink, ignored.
	write(t, wt, "a.txt", "staged version\n")
	gittest.Git(t, wt, "", "add", "a.txt")
	write(t, wt, "a.txt", "working version\n")
	write(t, wt, "new-staged.txt", "staged only\n")
	gittest.Git(t, wt, "", "add", "new-staged.txt")
	require.NoError(t, os.Remove(filepath.Join(wt, "gone.txt")))
	gittest.Git(t, wt, "", "rm", "-q", "staged-gone.txt")
	write(t, wt, "deep/untracked.txt", "not added\n")
	write(t, wt, "run.sh", "#!/bin/sh\n")
	require.NoError(t, os.Chmod(filepath.Join(wt, "run.sh"), 0o755))
	require.NoError(t, os.Symlink("a.txt", filepath.Join(wt, "link")))
	write(t, wt, "debug.log", "ignored\n")

	st, err := loc.WorktreeStatus(wt)
	require.NoError(t, err)
	require.True(t, st.Dirty())
	indexBefore := gittest.Git(t, wt, "", "ls-files", "-s", "--debug")
	wantFiles := files(t, wt)
	delete(wantFiles, "debug.log") // ignored files are not preserved
	wantIndex := gittest.Git(t, wt, "", "ls-files", "-s")
	wantStatus := gittest.Git(t, wt, "", "status", "--porcelain")

	sp := RescueSpec{Feature: "f", Task: "t1", Branch: "main--t1", Path: wt}
	p, _, err := loc.PreserveWorktree(sp)
	require.NoError(t, err)
	require.True(t, p.Written)
	require.Equal(t, indexBefore, gittest.Git(t, wt, "", "ls-files", "-s", "--debug"), "the user's index was touched")
	again, _, err := loc.PreserveWorktree(sp)
	require.NoError(t, err)
	require.False(t, again.Written, "a rerun rewrote an identical snapshot")
	require.Equal(t, p.Commit, again.Commit)

	require.NoError(t, loc.RemoveWorktree(wt, true))
	require.NoError(t, loc.PruneWorktrees())
	tip, _, _ := loc.BranchTip("main--t1")
	ok, err := loc.RescueContains("f", "t1", tip)
	require.NoError(t, err)
	require.True(t, ok)
	require.NoError(t, loc.DeleteBranch("main--t1", tip))

	list, err := loc.ListRescues("f")
	require.NoError(t, err)
	require.Len(t, list, 1)
	require.Equal(t, RescueWorktree, list[0].Kind)
	require.Contains(t, strings.Join(list[0].Changed, ","), "D gone.txt")

	back := filepath.Join(t.TempDir(), "restored")
	r, err := loc.RestoreRescue("f", "t1", back, "main--t1", 0)
	require.NoError(t, err)
	require.Equal(t, "main--t1", r.Branch)
	require.Equal(t, wantFiles, files(t, back))
	require.Equal(t, wantIndex, gittest.Git(t, back, "", "ls-files", "-s"))
	require.Equal(t, wantStatus, gittest.Git(t, back, "", "status", "--porcelain"))

	_, err = loc.RestoreRescue("f", "t1", back, "", 0)
	require.ErrorContains(t, err, "already exists")
}

func TestPreserveCommitKeepsBothWorks(t *testing.T) {
	dir := gittest.NewRepo(t, "sha1")
	loc, err := Discover(dir)
	require.NoError(t, err)
	gittest.Git(t, dir, "", "switch", "-q", "-c", "side")
	write(t, dir, "s.txt", "side\n")
	gittest.Git(t, dir, "", "add", ".")
	gittest.Git(t, dir, "", "commit", "-q", "-m", "side work")
	side := gittest.Git(t, dir, "", "rev-parse", "HEAD")
	gittest.Git(t, dir, "", "switch", "-q", "main")
	sp := RescueSpec{Feature: "f", Task: "t", Branch: "side"}
	p, err := loc.PreserveCommit(sp, side)
	require.NoError(t, err)
	require.Equal(t, side, p.Commit)
	p, err = loc.PreserveCommit(sp, side)
	require.NoError(t, err)
	require.False(t, p.Written)

	other := gittest.Git(t, dir, "", "commit-tree", "-p", "HEAD", "-m", "other", gittest.Git(t, dir, "", "rev-parse", "HEAD^{tree}"))
	p, err = loc.PreserveCommit(sp, other)
	require.NoError(t, err)
	require.True(t, p.Written)
	for _, c := range []string{side, other} {
		ok, err := loc.RescueContains("f", "t", c)
		require.NoError(t, err)
		require.True(t, ok, c)
	}
	list, err := loc.ListRescues("")
	require.NoError(t, err)
	require.Len(t, list, 1)
	require.Equal(t, RescueCommit, list[0].Kind)
	require.Equal(t, []string{other}, list[0].Kept)
	require.Equal(t, side, list[0].Head)
}

func TestWorktreeListSeesLocksAndMissingDirectories(t *testing.T) {
	dir := gittest.NewRepo(t, "sha1")
	loc, err := Discover(dir)
	require.NoError(t, err)
	a, b := filepath.Join(dir, ".worktrees", "a"), filepath.Join(dir, ".worktrees", "b")
	require.NoError(t, loc.AddWorktree(a, "wa", "HEAD", true))
	require.NoError(t, loc.AddWorktree(b, "wb", "HEAD", true))
	gittest.Git(t, dir, "", "worktree", "lock", "--reason", "agent busy", a)
	require.NoError(t, os.RemoveAll(b))
	w, ok, err := loc.FindWorktree(a)
	require.NoError(t, err)
	require.True(t, ok)
	require.True(t, w.Locked)
	require.Equal(t, "agent busy", w.LockReason)
	require.Equal(t, "wa", w.Branch)
	w, ok, err = loc.FindWorktree(b)
	require.NoError(t, err)
	require.True(t, ok)
	require.True(t, w.Prunable)
	require.Error(t, loc.RemoveWorktree(a, true), "a lock must stop a forced remove")
	at, held, err := loc.CheckedOutAt("wa")
	require.NoError(t, err)
	require.True(t, held)
	require.True(t, SamePath(at, a))
	main, err := loc.MainWorktree()
	require.NoError(t, err)
	require.True(t, SamePath(main, dir))
}
