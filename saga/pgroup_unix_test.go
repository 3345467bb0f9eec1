//go:build unix

package saga_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// ownGroup starts cmd in a process group of its own, which the git processes it runs inherit.
func ownGroup(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} }

// waitGroupGone waits until no live process is left in the group pgid. A SIGKILL ends the cancel
// process only: a git command it was running (an update-ref holding its lock, a worktree removal)
// runs on and finishes as an orphan. A rerun started meanwhile meets that live git's lock files,
// more often the slower git runs (issue 41: the test failed once under load). A crash's orphans
// finishing their step is a state the saga must handle, and is kept; overlapping the rerun with
// them is not what the test is about. The deadline only keeps a stuck orphan from hanging the run.
func waitGroupGone(t testing.TB, pgid int) {
	t.Helper()
	start := time.Now()
	deadline := start.Add(2 * time.Minute)
	if groupAlive(pgid) {
		defer func() { t.Logf("the killed cancel's git processes ran on for %s", time.Since(start)) }()
	}
	for groupAlive(pgid) {
		if time.Now().After(deadline) {
			t.Fatalf("processes of the killed cancel's group %d still run after 2 minutes", pgid)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// groupAlive reports whether a process of group pgid is alive (zombies do not count: an orphan
// is reaped by whoever adopted it, which may be slow to). Without /proc, kill(-pgid, 0) answers.
func groupAlive(pgid int) bool {
	stats, err := filepath.Glob("/proc/[0-9]*/stat")
	if err != nil || len(stats) == 0 {
		return syscall.Kill(-pgid, 0) == nil
	}
	for _, p := range stats {
		b, err := os.ReadFile(p)
		if err != nil {
			continue // gone meanwhile
		}
		// pid (comm) state ppid pgrp …: comm may hold spaces and parentheses, so cut at the last ')'.
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) < 3 || f[0] == "Z" || f[0] == "X" {
			continue
		}
		if g, err := strconv.Atoi(f[2]); err == nil && g == pgid {
			return true
		}
	}
	return false
}
