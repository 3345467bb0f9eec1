package project

import (
	"os"
	"testing"

	"github.com/exarchos/git-exarchos/internal/gittest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBaseResolution: the rules' source is the remote's default branch as fetched, the local
// default branch with no remote, or exarchos.definitionsRef — never the checked-out branch.
func TestBaseResolution(t *testing.T) {
	t.Run("no remote: local default branch, whatever is checked out", func(t *testing.T) {
		dir := gittest.NewRepoOnBranch(t, "main")
		gittest.CommitFile(t, dir, ".exarchos/rules.txt", "strict")
		gittest.Git(t, dir, "", "switch", "-q", "-c", "agent")
		gittest.CommitFile(t, dir, ".exarchos/rules.txt", "loose")
		r, err := Open(dir)
		require.NoError(t, err)
		b := r.Base()
		assert.Equal(t, "refs/heads/main", b.Ref)
		assert.Equal(t, "local default branch", b.Source)
		got, ok, err := r.BaseFile(".exarchos/rules.txt")
		require.NoError(t, err)
		require.True(t, ok)
		assert.Equal(t, "strict", string(got))
	})
	t.Run("remote HEAD as last fetched wins over local main", func(t *testing.T) {
		up := gittest.NewRepoOnBranch(t, "trunk")
		gittest.CommitFile(t, up, ".exarchos/rules.txt", "upstream")
		clone := t.TempDir()
		gittest.Git(t, clone, "", "clone", "-q", up, ".")
		gittest.Git(t, clone, "", "config", "user.name", "T")
		gittest.Git(t, clone, "", "config", "user.email", "t@example.com")
		gittest.CommitFile(t, clone, ".exarchos/rules.txt", "local edit on trunk")
		r, err := Open(clone)
		require.NoError(t, err)
		assert.Equal(t, "refs/remotes/origin/trunk", r.Base().Ref)
		assert.Equal(t, "remote HEAD", r.Base().Source)
		got, _, err := r.BaseFile(".exarchos/rules.txt")
		require.NoError(t, err)
		assert.Equal(t, "upstream", string(got))
	})
	t.Run("remote without a fetched HEAD names the fix", func(t *testing.T) {
		dir := gittest.NewRepoOnBranch(t, "dev")
		gittest.Git(t, dir, "", "remote", "add", "origin", t.TempDir())
		r, err := Open(dir)
		require.NoError(t, err)
		assert.Empty(t, r.Base().Commit)
		assert.Contains(t, r.Base().Problem, "git remote set-head origin --auto")
	})
	t.Run("exarchos.definitionsRef", func(t *testing.T) {
		dir := gittest.NewRepoOnBranch(t, "main")
		gittest.Git(t, dir, "", "branch", "rules")
		// Issue 29: the repository's own config (what a script in it can write) names no base.
		gittest.Git(t, dir, "", "config", "exarchos.definitionsRef", "rules")
		r, err := Open(dir)
		require.NoError(t, err)
		assert.Equal(t, "refs/heads/main", r.Base().Ref)
		// The user's own (global) config does.
		t.Setenv("HOME", t.TempDir())
		t.Setenv("XDG_CONFIG_HOME", "")
		gittest.Git(t, dir, "", "config", "--global", "exarchos.definitionsRef", "rules")
		r, err = Open(dir)
		require.NoError(t, err)
		assert.Equal(t, "refs/heads/rules", r.Base().Ref)
		assert.NotEmpty(t, r.Base().Commit)
	})
}

// TestMain runs the tests isolated from the developer's PATH, git config and agent session.
func TestMain(m *testing.M) { os.Exit(gittest.RunIsolated(m)) }
