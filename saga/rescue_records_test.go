package saga

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/exarchos/git-exarchos/gitrepo"
	"github.com/exarchos/git-exarchos/internal/gittest"
)

// The rescue records against real repositories: a snapshot restored byte for byte, a rerun that
// writes nothing, commits kept beside each other. The crash and kill cases are app's
// cancel_crash_test.go and the rescue_after_crash testscript.

func gitIn(t testing.TB, dir string, args ...string) string {
	t.Helper()
	return gittest.Git(t, dir, "", args...)
}

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

func writeFile(t *testing.T, dir, name, content string) {
	t.Helper()
	p := filepath.Join(dir, name)
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
}

func TestPreserveAndRestoreWorktreeByteForByte(t *testing.T) {
	dir := gittest.NewRepo(t, "sha1")
	writeFile(t, dir, "a.txt", "a\n")
	writeFile(t, dir, "gone.txt", "bye\n")
	writeFile(t, dir, "staged-gone.txt", "bye too\n")
	writeFile(t, dir, ".gitignore", "*.log\n")
	gitIn(t, dir, "add", ".")
	gitIn(t, dir, "commit", "-q", "-m", "files")
	loc, err := gitrepo.Discover(dir)
	require.NoError(t, err)
	wt := filepath.Join(dir, ".worktrees", "f", "t1")
	require.NoError(t, loc.AddWorktree(wt, "main--t1", "HEAD", true))
	if added, err := loc.EnsureExcluded("/.worktrees/"); err != nil || !added {
		t.Fatalf("exclude: %v %v", added, err)
	}
	if added, _ := loc.EnsureExcluded("/.worktrees/"); added {
		t.Fatal("exclude line added twice")
	}
	if out := gitIn(t, dir, "status", "--porcelain"); out != "" {
		t.Fatalf("main worktree sees the task worktree: %q", out)
	}

	// Staged then modified again, staged only, unstaged, deleted, staged deletion, untracked
	// (also in a new directory), executable, symlink, ignored.
	writeFile(t, wt, "a.txt", "staged version\n")
	gitIn(t, wt, "add", "a.txt")
	writeFile(t, wt, "a.txt", "working version\n")
	writeFile(t, wt, "new-staged.txt", "staged only\n")
	gitIn(t, wt, "add", "new-staged.txt")
	require.NoError(t, os.Remove(filepath.Join(wt, "gone.txt")))
	gitIn(t, wt, "rm", "-q", "staged-gone.txt")
	writeFile(t, wt, "deep/untracked.txt", "not added\n")
	writeFile(t, wt, "run.sh", "#!/bin/sh\n")
	require.NoError(t, os.Chmod(filepath.Join(wt, "run.sh"), 0o755))
	require.NoError(t, os.Symlink("a.txt", filepath.Join(wt, "link")))
	writeFile(t, wt, "debug.log", "ignored\n")

	st, err := loc.WorktreeStatus(wt)
	require.NoError(t, err)
	require.True(t, st.Dirty())
	indexBefore := gitIn(t, wt, "ls-files", "-s", "--debug")
	wantFiles := files(t, wt)
	delete(wantFiles, "debug.log") // ignored files are not preserved
	wantIndex := gitIn(t, wt, "ls-files", "-s")
	wantStatus := gitIn(t, wt, "status", "--porcelain")

	sp := RescueSpec{Feature: "f", Task: "t1", Branch: "main--t1", Path: wt}
	p, _, err := PreserveWorktree(loc, sp)
	require.NoError(t, err)
	require.True(t, p.Written)
	require.Equal(t, indexBefore, gitIn(t, wt, "ls-files", "-s", "--debug"), "the user's index was touched")
	again, _, err := PreserveWorktree(loc, sp)
	require.NoError(t, err)
	require.False(t, again.Written, "a rerun rewrote an identical snapshot")
	require.Equal(t, p.Commit, again.Commit)

	require.NoError(t, loc.RemoveWorktree(wt, true))
	require.NoError(t, loc.PruneWorktrees())
	tip, _, _ := loc.BranchTip("main--t1")
	ok, err := RescueContains(loc, "f", "t1", tip)
	require.NoError(t, err)
	require.True(t, ok)
	require.NoError(t, loc.DeleteBranch("main--t1", tip))

	list, err := ListRescues(loc, "f")
	require.NoError(t, err)
	require.Len(t, list, 1)
	require.Equal(t, RescueWorktree, list[0].Kind)
	require.Contains(t, strings.Join(list[0].Changed, ","), "D gone.txt")

	back := filepath.Join(t.TempDir(), "restored")
	r, err := RestoreRescue(loc, "f", "t1", back, "main--t1", 0)
	require.NoError(t, err)
	require.Equal(t, "main--t1", r.Branch)
	require.Equal(t, wantFiles, files(t, back))
	require.Equal(t, wantIndex, gitIn(t, back, "ls-files", "-s"))
	require.Equal(t, wantStatus, gitIn(t, back, "status", "--porcelain"))

	_, err = RestoreRescue(loc, "f", "t1", back, "", 0)
	require.ErrorContains(t, err, "already exists")
}

func TestPreserveCommitKeepsBothWorks(t *testing.T) {
	dir := gittest.NewRepo(t, "sha1")
	loc, err := gitrepo.Discover(dir)
	require.NoError(t, err)
	gitIn(t, dir, "switch", "-q", "-c", "side")
	writeFile(t, dir, "s.txt", "side\n")
	gitIn(t, dir, "add", ".")
	gitIn(t, dir, "commit", "-q", "-m", "side work")
	side := gitIn(t, dir, "rev-parse", "HEAD")
	gitIn(t, dir, "switch", "-q", "main")
	sp := RescueSpec{Feature: "f", Task: "t", Branch: "side"}
	p, err := PreserveCommit(loc, sp, side)
	require.NoError(t, err)
	require.Equal(t, side, p.Commit)
	p, err = PreserveCommit(loc, sp, side)
	require.NoError(t, err)
	require.False(t, p.Written)

	other := gitIn(t, dir, "commit-tree", "-p", "HEAD", "-m", "other", gitIn(t, dir, "rev-parse", "HEAD^{tree}"))
	p, err = PreserveCommit(loc, sp, other)
	require.NoError(t, err)
	require.True(t, p.Written)
	for _, c := range []string{side, other} {
		ok, err := RescueContains(loc, "f", "t", c)
		require.NoError(t, err)
		require.True(t, ok, c)
	}
	list, err := ListRescues(loc, "")
	require.NoError(t, err)
	require.Len(t, list, 1)
	require.Equal(t, RescueCommit, list[0].Kind)
	require.Equal(t, []string{other}, list[0].Kept)
	require.Equal(t, side, list[0].Head)
}
