package agentenv

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// TestDetachedTop: the walk names the first process of the chain whose parent is pid 1 or the
// user's systemd (a subreaper), with its start time; a controlling terminal anywhere, or a parent
// it cannot read, means not detached.
func TestDetachedTop(t *testing.T) {
	proc := t.TempDir()
	assert.NoError(t, os.WriteFile(filepath.Join(proc, "stat"), []byte("cpu 1 2\nbtime 1700000000\n"), 0o644))
	mk := func(pid, ppid, tty int, comm string, start int) {
		dir := filepath.Join(proc, strconv.Itoa(pid))
		assert.NoError(t, os.MkdirAll(dir, 0o755))
		rest := strings.Repeat(" 0", 12)
		stat := fmt.Sprintf("%d (%s) S %d %d %d %d -1 4194560%s %d 0\n", pid, comm, ppid, pid, pid, tty, rest, start)
		assert.NoError(t, os.WriteFile(filepath.Join(dir, "stat"), []byte(stat), 0o644))
		assert.NoError(t, os.WriteFile(filepath.Join(dir, "comm"), []byte(comm+"\n"), 0o644))
	}
	// git-exarchos (30) ← git (20) ← sh (10, reparented to pid 1, started at 500 ticks).
	mk(30, 20, 0, "git-exarchos", 900)
	mk(20, 10, 0, "git", 800)
	mk(10, 1, 0, "s h) (x", 500)
	d, ok := detachedTop(proc, 30)
	assert.True(t, ok)
	assert.Equal(t, 10, d.Pid)
	assert.Equal(t, "s h) (x", d.Command)
	assert.Equal(t, time.Unix(1700000005, 0), d.Started)

	// A terminal in the chain: attended.
	mk(11, 1, 0x8801, "bash", 100)
	mk(31, 11, 0, "git-exarchos", 900)
	_, ok = detachedTop(proc, 31)
	assert.False(t, ok, "a chain with a terminal")

	// Reparented to the user's systemd (a subreaper).
	mk(40, 1, 0, "systemd", 1)
	mk(41, 40, 0, "sh", 700)
	mk(42, 41, 0, "git-exarchos", 900)
	d, ok = detachedTop(proc, 42)
	assert.True(t, ok)
	assert.Equal(t, 41, d.Pid)

	// A parent that cannot be read ends the walk.
	mk(50, 49, 0, "git-exarchos", 900)
	_, ok = detachedTop(proc, 50)
	assert.False(t, ok, "an unreadable parent")

	// The tests' ancestry top stops the walk.
	ancestryTop = 20
	defer func() { ancestryTop = 0 }()
	_, ok = detachedTop(proc, 30)
	assert.False(t, ok, "stopped at the ancestry top")
}
