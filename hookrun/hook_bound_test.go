package hookrun_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/exarchos/git-exarchos/app"
	"github.com/exarchos/git-exarchos/hookrun"
	"github.com/exarchos/git-exarchos/internal/apptest"
	"github.com/exarchos/git-exarchos/internal/gittest"
	"github.com/exarchos/git-exarchos/project"
	"github.com/exarchos/git-exarchos/workflow"
)

func boundPhases(t *testing.T, dir string) map[string]string {
	t.Helper()
	r, err := hookrun.Open(dir) // a fresh repository handle, as each hook process opens one
	require.NoError(t, err)
	ws, err := r.BoundWorkflows()
	require.NoError(t, err)
	out := map[string]string{}
	for _, w := range ws {
		out[w.Feature] = w.State.Phase
	}
	return out
}

// TestBoundWorkflowsCache: the hook cache answers exactly what the refs say, after every change,
// after `git gc`, with a ref moved behind its back, and with its files damaged or deleted.
func TestBoundWorkflowsCache(t *testing.T) {
	dir, r := newRepo(t, "login")
	_, err := r.CreateWorkflow(workflow.Init{Feature: "login", Type: "feature", Branch: "login"})
	require.NoError(t, err)
	_, err = r.CreateWorkflow(workflow.Init{Feature: "other", Type: "feature", Branch: "other"})
	require.NoError(t, err)

	assert.Equal(t, map[string]string{"login": "ideate"}, boundPhases(t, dir))
	index := filepath.Join(dir, ".git", "exarchos-cache", "hooks", "index")
	require.FileExists(t, index)

	// A change moves the ref: the cache entry keyed by the old commit is not used.
	gittest.CommitFile(t, dir, "docs/design.md", "design")
	apptest.MustRun(t, r, "login", workflow.Set{Assignments: []workflow.Assignment{{Path: "artifacts.design", Value: []byte(`"docs/design.md"`)}}})
	apptest.MustRun(t, r, "login", workflow.TransitionTo{Phase: "plan"})
	assert.Equal(t, map[string]string{"login": "plan"}, boundPhases(t, dir))

	// The ref moved back by hand (as a pull could): the answer follows the ref.
	before := gittest.Git(t, dir, "", "rev-parse", "refs/exarchos/login~1")
	gittest.Git(t, dir, "", "update-ref", "refs/exarchos/login", before)
	assert.Equal(t, map[string]string{"login": "ideate"}, boundPhases(t, dir))

	// Packed objects and refs read the same.
	gittest.Git(t, dir, "", "gc", "-q")
	assert.Equal(t, map[string]string{"login": "ideate"}, boundPhases(t, dir))

	// Damaged cache files are ignored and rewritten; a deleted cache is rebuilt.
	require.NoError(t, os.WriteFile(index, []byte("exarchos-hook-index 3 0\n../../etc\nlogin\nNot A Feature\n"), 0o644))
	assert.Equal(t, map[string]string{"login": "ideate"}, boundPhases(t, dir))
	stateFile := filepath.Join(dir, ".git", "exarchos-cache", "hooks", "state", "login")
	require.NoError(t, os.WriteFile(stateFile, []byte("garbage"), 0o644))
	assert.Equal(t, map[string]string{"login": "ideate"}, boundPhases(t, dir))
	// An edited phase in the cache (issue 14: it changed the phase the hook believed) is dropped:
	// the entry no longer hashes to what was written for that commit.
	b, err := os.ReadFile(stateFile)
	require.NoError(t, err)
	require.Contains(t, string(b), `"phase":"ideate"`)
	require.NoError(t, os.WriteFile(stateFile, []byte(strings.Replace(string(b), `"phase":"ideate"`, `"phase":"delegate"`, 1)), 0o644))
	assert.Equal(t, map[string]string{"login": "ideate"}, boundPhases(t, dir))
	require.NoError(t, os.RemoveAll(filepath.Join(dir, ".git", "exarchos-cache")))
	assert.Equal(t, map[string]string{"login": "ideate"}, boundPhases(t, dir))

	// Another branch binds its own workflow; a deleted workflow leaves the cache.
	gittest.Git(t, dir, "", "switch", "-q", "-c", "other")
	assert.Equal(t, map[string]string{"other": "ideate"}, boundPhases(t, dir))
	gittest.Git(t, dir, "", "update-ref", "-d", "refs/exarchos/other")
	assert.Empty(t, boundPhases(t, dir))

	// Detached HEAD binds nothing.
	gittest.Git(t, dir, "", "switch", "-q", "--detach", "login")
	assert.Empty(t, boundPhases(t, dir))
}

// TestTaskWorktreeBindsItsWorkflow: inside a task worktree (branch <workflow-branch>--<task>) the
// hooks and an omitted feature find the workflow that recorded it, even with other workflows
// active; a branch merely named like a task branch binds nothing.
func TestTaskWorktreeBindsItsWorkflow(t *testing.T) {
	dir, r := apptest.NewSagaRepo(t)
	wt := apptest.StartWorktree(t, r, "t1")
	_, err := r.CreateWorkflow(workflow.Init{Feature: "other", Type: "feature", Branch: "other"})
	require.NoError(t, err)

	assert.Equal(t, map[string]string{"login": "ideate"}, boundPhases(t, wt))
	assert.Equal(t, map[string]string{"login": "ideate"}, boundPhases(t, wt)) // from the cache
	inside, err := app.Open(wt)
	require.NoError(t, err)
	feature, err := inside.ResolveFeature("")
	require.NoError(t, err)
	assert.Equal(t, "login", feature)

	gittest.Git(t, dir, "", "switch", "-q", "-c", "main--t9")
	assert.Empty(t, boundPhases(t, dir))
	_, err = r.ResolveFeature("")
	assert.ErrorIs(t, err, project.ErrAmbiguous)
}
