package gitstore

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/exarchos/git-exarchos/gitrepo"
	"github.com/exarchos/git-exarchos/internal/gittest"
)

func TestDiscoverFromSubdirectory(t *testing.T) {
	dir := gittest.NewRepo(t, "sha1")
	sub := filepath.Join(dir, "a", "b")
	require.NoError(t, os.MkdirAll(sub, 0o755))
	loc, err := gitrepo.Discover(sub)
	require.NoError(t, err)
	real, _ := filepath.EvalSymlinks(dir)
	got, _ := filepath.EvalSymlinks(loc.WorkTree)
	assert.Equal(t, real, got)
	assert.Equal(t, loc.GitDir, loc.CommonDir)
}

func TestLinkedWorktreeSharesWorkflows(t *testing.T) {
	dir := gittest.NewRepo(t, "sha1")
	mustCreate(t, openStore(t, dir), "shared")
	wt := filepath.Join(t.TempDir(), "wt")
	gittest.Git(t, dir, "", "worktree", "add", "-q", "-b", "side", wt)

	loc, err := gitrepo.Discover(filepath.Join(wt))
	require.NoError(t, err)
	assert.NotEqual(t, loc.GitDir, loc.CommonDir)
	s, err := OpenAt(loc)
	require.NoError(t, err)
	appendN(t, s, "shared", 2)
	// The main checkout sees what the worktree wrote.
	snap, err := openStore(t, dir).State("shared", proj)
	require.NoError(t, err)
	assert.EqualValues(t, 3, snap.Events)
}

func TestDiscoverWithGitDirEnv(t *testing.T) {
	dir := gittest.NewRepo(t, "sha1")
	t.Setenv("GIT_DIR", filepath.Join(dir, ".git"))
	loc, err := gitrepo.Discover(t.TempDir())
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(dir, ".git"), loc.CommonDir)

	t.Setenv("GIT_DIR", t.TempDir())
	_, err = gitrepo.Discover(dir)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "unset GIT_DIR")
}

func TestDiscoverBareAndNone(t *testing.T) {
	bare := t.TempDir()
	gittest.Git(t, bare, "", "init", "-q", "--bare")
	loc, err := gitrepo.Discover(bare)
	require.NoError(t, err)
	assert.Empty(t, loc.WorkTree)

	_, err = gitrepo.Discover(t.TempDir())
	require.ErrorIs(t, err, gitrepo.ErrNotRepository)
	assert.Contains(t, err.Error(), "git init")
}

func TestWorktreeConfigExtension(t *testing.T) {
	dir := gittest.NewRepo(t, "sha1")
	gittest.Git(t, dir, "", "config", "core.repositoryformatversion", "1")
	gittest.Git(t, dir, "", "config", "extensions.worktreeConfig", "true")
	gittest.Git(t, dir, "", "config", "--worktree", "user.name", "Worktree User")
	s := openStore(t, dir)
	mustCreate(t, s, "ext")
	assert.Equal(t, "Worktree User", gittest.Git(t, dir, "", "log", "-1", "--format=%an", "refs/exarchos/ext"))
}
