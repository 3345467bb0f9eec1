package project

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// A gate that prints a lot keeps only the end of it, with how much was cut, however it was
// written (one write, or many small ones).
func TestGateRunKeepsTheEndOfItsOutput(t *testing.T) {
	run, err := RunGate(t.TempDir(), "seq 1 200000; exit 3", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	var all bytes.Buffer
	for i := 1; i <= 200000; i++ {
		fmt.Fprintf(&all, "%d\n", i)
	}
	kept := strings.TrimSpace(all.String()[all.Len()-GateOutputTail:])
	want := fmt.Sprintf("… (%d bytes cut) %s", all.Len()-GateOutputTail, kept)
	if run.ExitCode != 3 || run.Output != want {
		t.Fatalf("exit %d, output %.80q…, want exit 3 and %.80q…", run.ExitCode, run.Output, want)
	}
	for _, chunk := range []int{1, 7, GateOutputTail - 1, GateOutputTail + 1, 3 * GateOutputTail} {
		w := &tailWriter{max: GateOutputTail}
		for b := all.Bytes(); len(b) > 0; {
			n := min(chunk, len(b))
			w.Write(b[:n])
			b = b[n:]
		}
		if w.String() != want {
			t.Errorf("written %d bytes at a time: %.80q…", chunk, w.String())
		}
	}
	short := &tailWriter{max: GateOutputTail}
	short.Write([]byte("  all of it\n"))
	if short.String() != "all of it" {
		t.Errorf("a short output: %q", short.String())
	}
}

// A gate that outlives its timeout is killed with everything it started, and recorded as exit
// 124; one that exits leaving a process behind holding its output loses that process too.
func TestGateRunLeavesNothingRunning(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc to read a process's state from")
	}
	for _, c := range []struct {
		name, command string
		timeout       time.Duration
		timedOut      bool
	}{
		{"timeout", "sleep 300 & echo $! > child.pid; wait", 500 * time.Millisecond, true},
		// Longer than exec's WaitDelay (2s): the gate exited 0, its output is closed after it.
		{"straggler", "sleep 300 & echo $! > child.pid; echo done", time.Minute, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			run, err := RunGate(dir, c.command, c.timeout)
			if err != nil {
				t.Fatal(err)
			}
			if run.TimedOut != c.timedOut || (c.timedOut && (run.ExitCode != GateTimedOutExit || !strings.Contains(run.Output, "killed: the gate ran longer than its 500ms timeout"))) ||
				(!c.timedOut && (run.ExitCode != 0 || run.Output != "done")) {
				t.Fatalf("%+v", run)
			}
			b, err := os.ReadFile(filepath.Join(dir, "child.pid"))
			if err != nil {
				t.Fatal(err)
			}
			pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
			// Killed, it is reaped by whoever inherited it: wait for that (a live sleep 300 would
			// still be there after half a minute).
			for give := time.Now().Add(30 * time.Second); alive(pid); time.Sleep(20 * time.Millisecond) {
				if time.Now().After(give) {
					killPid(pid)
					t.Fatalf("the gate's child %d is still running", pid)
				}
			}
		})
	}
}

// alive reports whether pid is a process that is not a zombie.
func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}

func killPid(pid int) {
	if p, err := os.FindProcess(pid); err == nil {
		_ = p.Kill()
	}
}
