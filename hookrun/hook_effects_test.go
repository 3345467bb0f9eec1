package hookrun

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/exarchos/git-exarchos/hooks"
	"github.com/exarchos/git-exarchos/internal/gittest"
	"github.com/exarchos/git-exarchos/workflow"
)

// TestMain runs the tests isolated from the developer's PATH, git config and agent session.
func TestMain(m *testing.M) { os.Exit(gittest.RunIsolated(m)) }

// createWorkflow starts a workflow of a built-in type as `git exarchos init` does (Decide on the
// empty state, then create its ref), without the command's checks: the hook's tests need one.
func createWorkflow(t testing.TB, r *Repo, cmd workflow.Init) {
	t.Helper()
	def, ok := workflow.Builtin(cmd.Type)
	require.True(t, ok, "built-in type %s", cmd.Type)
	events, rej := workflow.Decide(def, workflow.State{}, cmd, workflow.Env{Actor: "Test User <test@example.com>"})
	require.Nil(t, rej)
	_, err := r.Create(cmd.Feature, events)
	require.NoError(t, err)
}

// TestBranchDiffCacheEmptyIsNotNothing (issue 28): an empty or cut branch-diff cache file is not
// "the branch changed nothing"; it is computed again.
func TestBranchDiffCacheEmptyIsNotNothing(t *testing.T) {
	dir := gittest.NewRepoOnBranch(t, "main")
	gittest.Git(t, dir, "", "switch", "-q", "-c", "login")
	gittest.CommitFile(t, dir, "src/main.go", "package main\n")
	changes := func() []hooks.Change {
		r, err := Open(dir)
		require.NoError(t, err)
		h := &hookRepo{repo: r}
		out, err := h.Changes(hooks.Bound{Root: dir})
		require.NoError(t, err)
		return out
	}
	want := hooks.Change{Path: "src/main.go", Where: "branch"}
	assert.Contains(t, changes(), want)
	files, _ := filepath.Glob(filepath.Join(dir, ".git", "exarchos-cache", "hooks", "branchdiff", "*"))
	require.Len(t, files, 1)
	for _, damaged := range []string{"", "\n", "0000\n"} {
		require.NoError(t, os.WriteFile(files[0], []byte(damaged), 0o644))
		assert.Contains(t, changes(), want, "cache file %q", damaged)
	}
}
