//go:build unix

package project

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A gate runs in a process group of its own, out of reach of a signal meant for `task done` (the
// user's Ctrl-C, the client stopping its tool's group). Such a signal stops the gate with all it
// started, and the run is an error, never a recorded result.
func TestGateRunStopsWithAnInterrupt(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc to read a process's state from")
	}
	dir := t.TempDir()
	type result struct {
		run GateRun
		err error
	}
	done := make(chan result, 1)
	go func() {
		run, err := RunGate(dir, "sleep 300 & echo $! > child.pid; wait", time.Minute)
		done <- result{run, err}
	}()
	var pid int
	for give := time.Now().Add(30 * time.Second); pid == 0; time.Sleep(20 * time.Millisecond) {
		if b, err := os.ReadFile(filepath.Join(dir, "child.pid")); err == nil && strings.HasSuffix(string(b), "\n") {
			pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		}
		if time.Now().After(give) {
			t.Fatal("the gate never started")
		}
	}
	// The gate has started, so runGate listens for the signal: this process survives it.
	if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case r := <-done:
		if r.err == nil || !strings.Contains(r.err.Error(), "interrupted") {
			t.Fatalf("an interrupted gate is an error, not a result: %+v %v", r.run, r.err)
		}
	case <-time.After(30 * time.Second):
		killPid(pid)
		t.Fatal("the signal did not stop the gate")
	}
	for give := time.Now().Add(30 * time.Second); alive(pid); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(give) {
			killPid(pid)
			t.Fatalf("the gate's child %d is still running", pid)
		}
	}
}
