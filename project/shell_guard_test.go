package project

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/exarchos/git-exarchos/internal/gittest"
	"github.com/exarchos/git-exarchos/workflow"
)

// TestShellGuardRunsLikeAGate: a shell guard runs through the gates' runner (RunGate) in a clean
// checkout of the branch's tip: a guard past its timeout is stopped with what it started (a
// child holding the output open used to keep it two seconds more), a guard that exits leaving a
// child behind is judged by its exit code, a failure says its exit code and output, and the guard
// sees the workflow's variables.
func TestShellGuardRunsLikeAGate(t *testing.T) {
	dir := gittest.NewRepoOnBranch(t, "main")
	gittest.CommitFile(t, dir, "notes.txt", "notes\n")
	tip := strings.TrimSpace(gittest.Git(t, dir, "", "rev-parse", "HEAD"))
	r, err := Open(dir)
	require.NoError(t, err)
	run := shellRunner{loc: r.Location()}
	st := workflow.State{Feature: "f", Phase: "plan", Type: "t", Branch: "main"}

	start := time.Now()
	ok, why, err := run.RunGuard(workflow.ShellGuard{Run: "sleep 30; true", TimeoutMs: 300}, st)
	require.NoError(t, err)
	require.False(t, ok)
	require.Equal(t, "timed out after 300ms", why)
	require.Less(t, time.Since(start), 2*time.Second, "the guard's sleep outlived its timeout")

	ok, why, err = run.RunGuard(workflow.ShellGuard{Run: "sleep 30 & echo started", TimeoutMs: 10000}, st)
	require.NoError(t, err, "a child left running is no error of the guard's")
	require.True(t, ok, why)
	require.Equal(t, "started", why)

	ok, why, err = run.RunGuard(workflow.ShellGuard{Run: "cat notes.txt; exit 3"}, st)
	require.NoError(t, err)
	require.False(t, ok)
	require.Equal(t, "exit 3: notes", why)

	ok, why, err = run.RunGuard(workflow.ShellGuard{Run: `test "$EXARCHOS_COMMIT $EXARCHOS_FEATURE $EXARCHOS_PHASE $EXARCHOS_TYPE" = "` + tip + ` f plan t"`}, st)
	require.NoError(t, err)
	require.True(t, ok, why)

	ok, why, err = run.RunGuard(workflow.ShellGuard{Run: "true"}, workflow.State{Branch: "gone"})
	require.NoError(t, err)
	require.False(t, ok)
	require.Contains(t, why, "branch gone does not exist")
}
