package gitstore

import (
	"context"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/exarchos/git-exarchos/internal/gittest"
	"github.com/exarchos/git-exarchos/workflow"
)

// gcLoop runs git gc --prune=now, repack -ad and pack-refs in turn until the test ends, and
// returns a function that stops it and reports how many rounds ran.
func gcLoop(t *testing.T, dir string) func() int {
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	rounds := 0
	wg.Add(1)
	go func() {
		defer wg.Done()
		for ctx.Err() == nil {
			for _, args := range [][]string{{"gc", "--prune=now", "--quiet"}, {"repack", "-a", "-d", "-q"}, {"pack-refs", "--all"}} {
				gittest.Run(dir, "", args...) // a gc that loses a lock race is not what is tested
			}
			rounds++
		}
	}()
	stop := func() int { cancel(); wg.Wait(); return rounds }
	t.Cleanup(func() { stop() })
	return stop
}

// fsck (Verify) and log (Events) beside a looping gc/repack and a writer: objects move between
// loose files and packs, and a new commit's objects may be pruned until its writer puts them
// back. Neither reports corruption or fails: they read again until the picture is stable.
func TestVerifyAndLogDuringGC(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: runs git gc in a loop")
	}
	dir := gittest.NewRepo(t, "sha1")
	s := openStore(t, dir)
	mustCreate(t, s, "gc")
	appendN(t, s, "gc", 600) // three segments, so a read takes several objects
	stop := gcLoop(t, dir)

	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // a writer keeps making fresh loose objects for the gc to pack and prune
		defer wg.Done()
		w := openStore(t, dir)
		for i := 0; i < 40; i++ {
			_, err := w.Append("gc", proj, workflow.NewEvent{Type: "note"})
			assert.NoError(t, err)
		}
	}()
	reader := openStore(t, dir) // one store for all reads, as a long-lived process would: its pack index goes stale
	checks := 0
	for ; checks < 60; checks++ { // each run overlaps gc rounds (more than one is required below); 150 took 2.5 times as long
		problems, err := reader.Verify("gc", proj)
		require.NoError(t, err)
		require.Empty(t, problems, "fsck run %d", checks)
		events, _, err := reader.Events("gc", EventFilter{})
		require.NoError(t, err, "log run %d", checks)
		require.GreaterOrEqual(t, len(events), 601)
		_, err = reader.State("gc", proj)
		require.NoError(t, err)
	}
	wg.Wait()
	rounds := stop()
	t.Logf("%d fsck+log runs beside %d gc rounds", checks, rounds)
	require.Greater(t, rounds, 1)
	assertDense(t, dir, "gc", 641)
}
