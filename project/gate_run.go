package project

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"time"
)

// GateOutputTail is how much of a gate's output is kept: its end, where the failure is.
const GateOutputTail = 1500

// GateRun is one finished run of a quality gate: a phase's (app/gates.go) or a task's (app/task_gates.go), or one verify runs again.
type GateRun struct {
	ExitCode int
	Duration time.Duration
	TimedOut bool
	Output   string // the end of what it printed, at most GateOutputTail bytes
}

// GateTimedOutExit is the exit code recorded for a gate killed at its timeout (timeout(1)'s).
const GateTimedOutExit = 124

// RunGate runs one gate (or a shell guard: shellRunner, defs.go) with sh -c in dir, under timeout. The gate's whole process group is
// killed at the timeout (a `sleep` the shell started would otherwise hold the output open), and
// only the end of its output is kept, however much it prints. err is set only when it could not
// run at all, or when it was interrupted (nothing of an interrupted run is to be recorded).
func RunGate(dir, command string, timeout time.Duration, env ...string) (GateRun, error) {
	return RunBounded(dir, command, timeout, nil, env...)
}

// RunGateIn is RunGate in exactly the environment environ (nothing of this process's added): the
// quality gates' fixed environment (app/gate_env.go).
func RunGateIn(dir, command string, timeout time.Duration, environ []string) (GateRun, error) {
	return runBounded(dir, command, timeout, nil, environ)
}

// RunBounded is RunGate that also copies the output, as it comes, to live (nil: nowhere), for a
// runbook step the user watches.
func RunBounded(dir, command string, timeout time.Duration, live io.Writer, env ...string) (GateRun, error) {
	return runBounded(dir, command, timeout, live, append(os.Environ(), env...))
}

func runBounded(dir, command string, timeout time.Duration, live io.Writer, environ []string) (GateRun, error) {
	base, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	// The gate runs in a process group of its own, which a signal meant for this one (Ctrl-C, the
	// client stopping its tool's group) does not reach: such a signal ends the gate's group first.
	ctx, stop := signal.NotifyContext(base, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	cmd := exec.CommandContext(ctx, "sh", "-c", command)
	cmd.Dir = dir
	cmd.Env = environ
	cmd.WaitDelay = 2 * time.Second
	killGroupOnCancel(cmd)
	out := &tailWriter{max: GateOutputTail}
	var w io.Writer = out
	if live != nil {
		w = io.MultiWriter(live, out)
	}
	cmd.Stdout, cmd.Stderr = w, w // one writer: exec copies both through one pipe, in order
	start := time.Now()
	code, err := ExitStatus(cmd.Run())
	run := GateRun{ExitCode: code, Duration: time.Since(start), Output: out.String()}
	if errors.Is(base.Err(), context.DeadlineExceeded) {
		run.TimedOut, run.ExitCode = true, GateTimedOutExit
		run.Output = strings.TrimSpace(run.Output + fmt.Sprintf("\n(killed: the gate ran longer than its %s timeout, gateTimeout in the definition)", timeout))
		return run, nil
	}
	if ctx.Err() != nil {
		return run, fmt.Errorf("`%s` was interrupted, and what it started stopped with it: nothing is recorded of this run", command)
	}
	if errors.Is(err, exec.ErrWaitDelay) {
		// It exited, but left something running that holds its output: nothing of a gate
		// outlives it.
		_ = killGroup(cmd)
		return run, nil
	}
	if err != nil {
		return run, fmt.Errorf("run the gate `%s`: %w", command, err)
	}
	return run, nil
}

// tailWriter keeps the last max bytes written to it and counts the rest.
type tailWriter struct {
	max     int
	buf     []byte
	dropped int64
}

func (t *tailWriter) Write(p []byte) (int, error) {
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.max; over > t.max {
		// Drop in big steps, so a gate printing gigabytes costs a copy per max bytes at most.
		t.dropped += int64(over)
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(p), nil
}

// String is the kept output, trimmed, with how much was cut before it.
func (t *tailWriter) String() string {
	b, dropped := t.buf, t.dropped
	if over := len(b) - t.max; over > 0 {
		b, dropped = b[over:], dropped+int64(over)
	}
	s := strings.ToValidUTF8(strings.TrimSpace(string(b)), "")
	if dropped > 0 {
		s = fmt.Sprintf("… (%d bytes cut) %s", dropped, s)
	}
	return s
}

// ExitStatus is a finished command's exit code; err is set only when it could not run at all.
func ExitStatus(runErr error) (int, error) {
	var exitErr *exec.ExitError
	switch {
	case errors.As(runErr, &exitErr):
		return exitErr.ExitCode(), nil
	case runErr != nil:
		return 0, runErr
	}
	return 0, nil
}
