package hookrun

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/exarchos/git-exarchos/internal/gittest"
	"github.com/exarchos/git-exarchos/workflow"
)

// TestPackRefsBesideAppends (issue 28): the hook's pack of the refs running again and again while
// two writers append to their workflows loses no event and leaves the refs, the index and git in
// agreement: pack-refs takes each ref's lock to prune it, the lock the store's writers take too.
func TestPackRefsBesideAppends(t *testing.T) {
	dir := gittest.NewRepoOnBranch(t, "main")
	r, err := Open(dir)
	require.NoError(t, err)
	for _, f := range []string{"login", "signup"} {
		createWorkflow(t, r, workflow.Init{Feature: f, Type: "feature", Branch: f})
	}
	var refs strings.Builder
	for i := range 200 {
		fmt.Fprintf(&refs, "create refs/exarchos/other-%d refs/exarchos/signup\n", i)
	}
	gittest.Git(t, dir, refs.String(), "update-ref", "--stdin")

	const appends = 30
	var wg sync.WaitGroup
	for _, f := range []string{"login", "signup"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w, err := Open(dir) // a writer of its own, as another process is
			if !assert.NoError(t, err) {
				return
			}
			for i := range appends {
				_, err := w.Append(f, workflow.NewEvent{Type: "note.added", Data: map[string]any{"i": i}})
				assert.NoError(t, err)
			}
		}()
	}
	packs := 0
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	for running := true; running; {
		select {
		case <-done:
			running = false
		default:
			p, err := Open(dir)
			require.NoError(t, err)
			if p.packRefs(packLooseRefsAt) {
				packs++
			}
		}
	}
	require.Positive(t, packs, "packed while the writers ran")
	for _, f := range []string{"login", "signup"} {
		st, _, err := r.State(f)
		require.NoError(t, err)
		assert.Equal(t, int64(appends+1), st.Events, "%s: every append kept (its init and %d notes)", f, appends)
	}
	gittest.Git(t, dir, "", "fsck", "--strict", "--no-progress")
	gittest.Git(t, dir, "", "switch", "-q", "-c", "signup")
	fresh, err := Open(dir)
	require.NoError(t, err)
	bound, err := fresh.BoundWorkflows()
	require.NoError(t, err)
	assert.Len(t, bound, 201, "signup and its 200 copies")
}
