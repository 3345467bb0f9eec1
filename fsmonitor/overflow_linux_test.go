//go:build linux

package fsmonitor

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/exarchos/git-exarchos/internal/gittest"
)

// serveEnv makes the test binary a monitor of the tree it names (see TestMain), so that a test can
// stop the monitor's process while the tree changes.
const serveEnv = "FSMONITOR_TEST_SERVE"

func TestMain(m *testing.M) {
	if root := os.Getenv(serveEnv); root != "" {
		if err := Serve(root, Options{Rescan: -1}); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	// Isolated as every package's tests are (gittest.RunIsolated): the same inside an agent's
	// session and on a developer's machine as in CI.
	os.Exit(gittest.RunIsolated(m))
}

// TestQueueOverflowWalksTheTreeAgain: with the monitor stopped (SIGSTOP) while a command creates
// more entries than the kernel queues (fs.inotify.max_queued_events, 16,384 by default), events
// are lost, the creation of a directory among them too. When the monitor runs again the overflow
// is a change, and the tree is walked again, so that directory is watched from then on.
func TestQueueOverflowWalksTheTreeAgain(t *testing.T) {
	root := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), serveEnv+"="+root)
	cmd.Stderr = os.Stderr
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGCONT)
		_ = os.RemoveAll(root)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			t.Error("the monitor did not end when its tree was removed")
		}
	})
	var before string
	for deadline := time.Now().Add(10 * time.Second); ; {
		tok, err := Token(root)
		if err == nil {
			before = tok
			break
		}
		require.True(t, time.Now().Before(deadline), "the monitor never answered: %v", err)
		time.Sleep(10 * time.Millisecond)
	}

	require.NoError(t, cmd.Process.Signal(syscall.SIGSTOP))
	queued := 16384
	if b, err := os.ReadFile("/proc/sys/fs/inotify/max_queued_events"); err == nil {
		fmt.Sscan(string(b), &queued)
	}
	if queued > 100000 {
		t.Skipf("max_queued_events is %d: too many files to overflow it here", queued)
	}
	// Files in the root, which is watched: two events each (created, closed after writing).
	for f := 0; f < queued/2+1000; f++ {
		require.NoError(t, os.WriteFile(filepath.Join(root, fmt.Sprintf("f%d", f)), nil, 0o644))
	}
	late := filepath.Join(root, "late", "deep")
	require.NoError(t, os.MkdirAll(late, 0o755)) // its events are lost: the queue is full
	require.NoError(t, cmd.Process.Signal(syscall.SIGCONT))

	after, err := Token(root)
	require.NoError(t, err)
	require.NotEqual(t, before, after, "the overflow is a change")
	require.NoError(t, os.WriteFile(filepath.Join(late, "new.go"), []byte("package deep\n"), 0o644))
	again, err := Token(root)
	require.NoError(t, err)
	require.NotEqual(t, after, again, "a directory whose creation was lost is watched after the overflow")
}
