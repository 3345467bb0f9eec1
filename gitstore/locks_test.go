package gitstore

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/exarchos/git-exarchos/gitrepo"
	"github.com/exarchos/git-exarchos/internal/gittest"
	"github.com/exarchos/git-exarchos/workflow"
)

// startHelper runs a helper process and returns it with the first line it printed.
func startHelper(t *testing.T, dir, mode, feature string) (*exec.Cmd, string) {
	t.Helper()
	cmd := helperCmd(t, dir, mode, feature, 0)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	sc := bufio.NewScanner(stdout)
	require.True(t, sc.Scan(), "helper %s printed nothing", mode)
	return cmd, sc.Text()
}

func kill9(t *testing.T, cmd *exec.Cmd) {
	t.Helper()
	require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
	cmd.Wait()
}

func staleNames(t *testing.T, s *Store) []string {
	t.Helper()
	stale, err := s.StaleFiles()
	require.NoError(t, err)
	var out []string
	for _, f := range stale {
		out = append(out, f.Paths...)
	}
	return out
}

// A writer SIGKILLed while it holds a ref's lock: while it lives its lock is respected (the next
// writer waits, then exits with gitrepo.ErrLocked); once it is dead the lock is reported by fsck and the
// next writer removes it and writes.
func TestSIGKILLedLockHolderDoesNotBlockWriters(t *testing.T) {
	dir := gittest.NewRepo(t, "sha1")
	s := openStore(t, dir)
	mustCreate(t, s, "held")
	lock := filepath.Join(dir, ".git/refs/exarchos/held.lock")

	holder, line := startHelper(t, dir, "hold-lock", "held")
	require.Equal(t, "locked", line)
	owner, err := os.ReadFile(lock)
	require.NoError(t, err)
	name, _ := os.Hostname()
	assert.Equal(t, strings.TrimSpace(string(owner)), strings.Join([]string{itoa(holder.Process.Pid), name}, " "), "the lock names its owner as gc.pid does")

	assert.Empty(t, staleNames(t, s), "a live owner's lock is not stale")
	_, err = s.Append("held", proj, workflow.NewEvent{Type: "note"})
	require.ErrorIs(t, err, gitrepo.ErrLocked, "a live owner's lock is never taken")

	kill9(t, holder)
	assert.Equal(t, []string{lock}, staleNames(t, s))
	res, err := s.Append("held", proj, workflow.NewEvent{Type: "note"})
	require.NoError(t, err)
	assert.EqualValues(t, 2, res.Events)
	assert.Empty(t, staleNames(t, s))
	assertDense(t, dir, "held", 2)
	gittest.Git(t, dir, "", "fsck", "--strict", "--no-dangling")
}

// A lock git (or another host) left names no owner we can check: it is stale once older than
// gitrepo.StaleLockAge, not before.
func TestUnownedLockIsStaleByAge(t *testing.T) {
	dir := gittest.NewRepo(t, "sha1")
	s := openStore(t, dir)
	mustCreate(t, s, "old")
	head := gittest.Git(t, dir, "", "rev-parse", "refs/exarchos/old")
	lock := filepath.Join(dir, ".git/refs/exarchos/old.lock")
	for _, content := range []string{head + "\n", "", "1 some-other-host\n"} {
		require.NoError(t, os.WriteFile(lock, []byte(content), 0o644))
		assert.Empty(t, staleNames(t, s), "fresh lock %q", content)
		_, err := s.Append("old", proj, workflow.NewEvent{Type: "note"})
		require.ErrorIs(t, err, gitrepo.ErrLocked, "fresh lock %q", content)
		assert.Contains(t, err.Error(), "rm -f -- '"+lock+"'")

		past := time.Now().Add(-gitrepo.StaleLockAge - time.Minute)
		require.NoError(t, os.Chtimes(lock, past, past))
		assert.Equal(t, []string{lock}, staleNames(t, s), "old lock %q", content)
		_, err = s.Append("old", proj, workflow.NewEvent{Type: "note"})
		require.NoError(t, err, "old lock %q", content)
	}
	assertDense(t, dir, "old", 4)

	// packed-refs.lock left by a killed `git pack-refs`: reported once old, not before.
	packedLock := filepath.Join(dir, ".git/packed-refs.lock")
	require.NoError(t, os.WriteFile(packedLock, nil, 0o644))
	assert.Empty(t, staleNames(t, s))
	past := time.Now().Add(-gitrepo.StaleLockAge - time.Minute)
	require.NoError(t, os.Chtimes(packedLock, past, past))
	assert.Equal(t, []string{packedLock}, staleNames(t, s))
}

// An object writer SIGKILLed mid-write leaves a tmp_obj_* file naming it: not reported while it
// lives, reported once it is dead, and the printed fix removes it.
func TestSIGKILLedObjectWriterLeavesReportedTmp(t *testing.T) {
	dir := gittest.NewRepo(t, "sha1")
	s := openStore(t, dir)
	mustCreate(t, s, "tmp")
	// git's own kind of leftover, old: reported too.
	gitTmp := filepath.Join(dir, ".git/objects/cd/tmp_obj_XYZ123")
	require.NoError(t, os.MkdirAll(filepath.Dir(gitTmp), 0o777))
	require.NoError(t, os.WriteFile(gitTmp, []byte("x"), 0o444))
	past := time.Now().Add(-2 * gitrepo.StaleTmpAge)
	require.NoError(t, os.Chtimes(gitTmp, past, past))

	writer, path := startHelper(t, dir, "hold-tmp", "tmp")
	require.FileExists(t, path)
	assert.Equal(t, []string{gitTmp}, staleNames(t, s), "a live writer's temporary object is not stale")

	kill9(t, writer)
	stale, err := s.StaleFiles()
	require.NoError(t, err)
	require.Len(t, stale, 1)
	assert.ElementsMatch(t, []string{gitTmp, path}, stale[0].Paths)
	out, err := exec.Command("sh", "-c", stale[0].Fix).CombinedOutput()
	require.NoError(t, err, "%s", out)
	assert.NoFileExists(t, path)
	assert.NoFileExists(t, gitTmp)
	assert.Empty(t, staleNames(t, s))
}

func itoa(n int) string { return strconv.Itoa(n) }
