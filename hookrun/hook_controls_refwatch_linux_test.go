//go:build linux

package hookrun

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/exarchos/git-exarchos/fsmonitor"
	"github.com/exarchos/git-exarchos/internal/gittest"
)

// refsMonitor runs a monitor of root in this process that ends idle after idle; done says when.
func refsMonitor(t *testing.T, root string, idle time.Duration) <-chan error {
	t.Helper()
	ready, done := make(chan struct{}), make(chan error, 1)
	go func() {
		done <- fsmonitor.Serve(root, fsmonitor.Options{Rescan: -1, Idle: idle, Ready: func() { close(ready) }})
	}()
	select {
	case <-ready:
	case err := <-done:
		t.Fatalf("monitor: %v", err)
	}
	return done
}

// underToken reports whether the next CheckControls would skip stamping the ref files: the kept
// refs token is the monitor's now, for the stamps file as it is.
func underToken(t *testing.T, r *Repo, dir string) bool {
	b, err := os.ReadFile(r.stampsPath(dir))
	require.NoError(t, err)
	return r.refsUnchanged(dir, r.refsToken(dir), stampsSum(b))
}

// TestControlsRefsUnderTheMonitor: with a monitor watching the refs, a call after a full stamp of
// the ref files keeps the monitor's refs token and the next calls do not stamp them again (shown
// by a ref's kept stamp made wrong without changing the refs: still nothing to look at); a plain
// `git update-ref`, an in-place rewrite of the same size, and `git pack-refs --all` change
// the token and are judged as before.
func TestControlsRefsUnderTheMonitor(t *testing.T) {
	dir, r, refsDir := manyRefsRepo(t, 300)
	refsMonitor(t, dir, time.Hour)
	head := gittest.Git(t, dir, "", "rev-parse", "refs/exarchos/login") // every workflow ref starts there
	gittest.Git(t, dir, "", "commit", "-q", "--allow-empty", "-m", "second")
	second := gittest.Git(t, dir, "", "rev-parse", "HEAD")

	require.Empty(t, r.CheckControls(dir), "full stamp, token kept")
	require.True(t, underToken(t, r, dir))
	require.Empty(t, r.CheckControls(dir))

	// Plain git among 300 refs.
	gittest.Git(t, dir, "", "update-ref", "refs/exarchos/other-5", second)
	require.False(t, underToken(t, r, dir), "the move changed the refs token")
	assert.Contains(t, r.CheckControls(dir), "refs/exarchos/other-5 moved from "+head[:12])
	require.Empty(t, r.CheckControls(dir))
	require.Empty(t, r.CheckControls(dir))
	require.True(t, underToken(t, r, dir))

	// In place, same size (no rename: the directory's stamp stays).
	rewriteInPlace(t, filepath.Join(refsDir, "other-9"), second)
	require.False(t, underToken(t, r, dir))
	assert.Contains(t, r.CheckControls(dir), "refs/exarchos/other-9 moved from "+head[:12])
	require.Empty(t, r.CheckControls(dir))

	// Packed: every loose file goes; nothing moved, nothing held; a packed ref rewritten is seen.
	gittest.Git(t, dir, "", "pack-refs", "--all")
	require.False(t, underToken(t, r, dir))
	require.Empty(t, r.CheckControls(dir), "packing moves no ref")
	require.Empty(t, r.CheckControls(dir))
	gittest.Git(t, dir, "", "update-ref", "refs/exarchos/other-11", second)
	assert.Contains(t, r.CheckControls(dir), "refs/exarchos/other-11 moved from "+head[:12])
}

// TestControlsRefsWithoutTheirMonitor: a token kept under a monitor that was then killed, or
// replaced by another (whose count of changes is the same), is not taken: the ref files are
// stamped and an in-place rewrite made while no monitor ran is held.
func TestControlsRefsWithoutTheirMonitor(t *testing.T) {
	dir, r, refsDir := manyRefsRepo(t, 300)
	head := gittest.Git(t, dir, "", "rev-parse", "refs/exarchos/login") // every workflow ref starts there
	gittest.Git(t, dir, "", "commit", "-q", "--allow-empty", "-m", "second")
	second := gittest.Git(t, dir, "", "rev-parse", "HEAD")
	rewriteSameSize := func(name string) {
		ref := filepath.Join(refsDir, name)
		fi, err := os.Stat(ref)
		require.NoError(t, err)
		require.NotZero(t, fi.Size())
		rewriteInPlace(t, ref, second)
	}

	done := refsMonitor(t, dir, 200*time.Millisecond)
	require.Empty(t, r.CheckControls(dir))
	require.True(t, underToken(t, r, dir))
	select { // the monitor ends (killed, as far as the hook can tell)
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the monitor did not end")
	}
	rewriteSameSize("other-3")
	assert.Contains(t, r.CheckControls(dir), "refs/exarchos/other-3 moved from "+head[:12], "no monitor: the files are stamped")

	done = refsMonitor(t, dir, 200*time.Millisecond)
	require.Empty(t, r.CheckControls(dir))
	require.True(t, underToken(t, r, dir))
	<-done
	rewriteSameSize("other-4")
	refsMonitor(t, dir, time.Hour) // another monitor, which saw nothing
	assert.Contains(t, r.CheckControls(dir), "refs/exarchos/other-4 moved from "+head[:12], "another monitor's token is not the kept one")
}
