package views_test

import (
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/exarchos/git-exarchos/app"
	"github.com/exarchos/git-exarchos/internal/apptest"
	"github.com/exarchos/git-exarchos/internal/gittest"
	"github.com/exarchos/git-exarchos/views"
	"github.com/exarchos/git-exarchos/workflow"
)

// TestFsckBesideMaintenance (issue 28): fsck while `git gc` and `git repack` run in a loop beside
// it (as `git maintenance` does) reports no problem that is not there.
func TestFsckBesideMaintenance(t *testing.T) {
	dir := gittest.NewRepoOnBranch(t, "main")
	r := apptest.Reopen(t, dir)
	for _, f := range []string{"a", "b", "c"} {
		_, err := r.CreateWorkflow(workflow.Init{Feature: f, Type: "oneshot", Branch: f})
		require.NoError(t, err)
		for i := 0; i < 5; i++ {
			_, err := app.Run(r, f, workflow.Set{Assignments: []workflow.Assignment{{Path: "n", Value: []byte{'0' + byte(i)}}}})
			require.NoError(t, err)
		}
	}
	var stop atomic.Bool
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; !stop.Load(); i++ {
			args := []string{"repack", "-adq"}
			if i%2 == 1 {
				args = []string{"gc", "-q", "--prune=now"}
			}
			_, _ = gittest.Run(dir, "", args...) // a gc that loses a lock race is not what is tested
		}
	}()
	runs := 12
	if testing.Short() {
		runs = 4
	}
	for i := 0; i < runs; i++ {
		res, err := views.Fsck(apptest.Reopen(t, dir).Hook(), views.FsckOptions{})
		require.NoError(t, err)
		assert.Empty(t, res.Problems, "run %d", i)
	}
	stop.Store(true)
	wg.Wait()
}
