//go:build linux

package app

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/exarchos/git-exarchos/fsmonitor"
	"github.com/exarchos/git-exarchos/internal/gittest"
	"github.com/exarchos/git-exarchos/workflow"
)

// startMonitor runs a file-system monitor on root in this process (the hook starts `git exarchos
// hook monitor`); it ends when root is removed.
func startMonitor(t *testing.T, root string) {
	t.Helper()
	ready, done := make(chan struct{}), make(chan error, 1)
	go func() { done <- fsmonitor.Serve(root, fsmonitor.Options{Rescan: -1, Ready: func() { close(ready) }}) }()
	select {
	case <-ready:
	case err := <-done:
		t.Fatalf("monitor: %v", err)
	}
}

// While the file-system monitor watches the worktree and nothing moved since the hook's last
// status, a transition asks git nothing at all: the merge-base and the diff come from the object
// reader, the worktree's state from the status kept under the monitor's token. A change the
// monitor sees sends the next one back to git, which finds it (a kept answer must never hide it).
func TestTransitionUnderTheMonitorStartsNoGit(t *testing.T) {
	dir := designedBranch(t, "feat", "feat-b")
	r, err := Open(dir)
	require.NoError(t, err)
	startMonitor(t, r.WorkTree())
	_, err = r.Hook().WorktreeState(r.WorkTree()) // what PostToolUse does after each tool call
	require.NoError(t, err)

	calls := gittest.LogGit(t)
	r, err = Open(dir)
	require.NoError(t, err)
	res, err := Run(r, "feat", workflow.TransitionTo{Phase: "plan"})
	require.NoError(t, err)
	require.Equal(t, "plan", res.State.Phase)
	require.Empty(t, calls(), "git processes of a transition under the monitor:\n%s", strings.Join(calls(), "\n"))

	// The neighbour: a file written outside ideate's paths after the kept status.
	require.NoError(t, os.WriteFile(filepath.Join(dir, "main.go"), []byte("package main\n"), 0o644))
	r, err = Open(dir)
	require.NoError(t, err)
	_, err = Run(r, "feat-b", workflow.TransitionTo{Phase: "plan"})
	var rej *workflow.Rejection
	require.True(t, errors.As(err, &rej), "the untracked main.go must refuse ideate → plan, got %v", err)
	assert.Contains(t, rej.Error(), "main.go")
	assert.Contains(t, subcommands(t, calls()), "status", "the monitor saw the write: git was asked again")
}
