package gitrepo

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/exarchos/git-exarchos/internal/gittest"
	"github.com/stretchr/testify/require"
)

func write(t *testing.T, dir, name, content string) {
	t.Helper()
	p := filepath.Join(dir, name)
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
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
