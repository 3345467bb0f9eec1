package app

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

	"github.com/exarchos/git-exarchos/workflow"
)

// recordGates runs each of gates that lacks a passing run on commit, one after the other in a clean
// checkout of it, stopping at the first failure, and records every run as a validation of commit
// before anything is decided on them; it returns the failed gate's output ("" when none failed).
// what names the gates in an error; env is added to the gates' environment.
func (r *Repo) recordGates(feature string, st workflow.State, def *workflow.Definition, gates []string, commit, what string, env ...string) (string, error) {
	var pending []string
	for _, g := range gates {
		if run, ok := st.LatestGateRun(g, commit); !ok || run.ExitCode != 0 {
			pending = append(pending, g)
		}
	}
	if len(pending) == 0 {
		return "", nil
	}
	dir, done, err := r.Store.Loc.CleanCheckout(commit)
	if err != nil {
		return "", fmt.Errorf("check out %s to run %s: %w", short(commit), what, err)
	}
	defer done()
	env = append(env, "EXARCHOS_FEATURE="+feature, "EXARCHOS_COMMIT="+commit)
	timeout := time.Duration(def.GateTimeoutMillis()) * time.Millisecond
	var records []workflow.Command
	failed := ""
	for _, g := range pending {
		run, err := runGate(dir, g, timeout, env...)
		if err != nil {
			return "", err
		}
		records = append(records, workflow.RecordValidation{Command: g, ExitCode: run.ExitCode, DurationMs: run.Duration.Milliseconds(), Commit: commit, Gate: true})
		if run.ExitCode != 0 {
			failed = orElse(run.Output, "(no output)")
			break
		}
	}
	if _, err := r.Execute(feature, records...); err != nil {
		return "", err
	}
	return failed, nil
}

// gateRun is one finished run of a quality gate: a phase's (gates.go) or a task's (task_gates.go).
type gateRun struct {
	ExitCode int
	Duration time.Duration
	TimedOut bool
	Output   string // the end of what it printed, at most gateOutputTail bytes
}

// gateTimedOutExit is the exit code recorded for a gate killed at its timeout (timeout(1)'s).
const gateTimedOutExit = 124

// runGate runs one gate with sh -c in dir, under timeout. The gate's whole process group is
// killed at the timeout (a `sleep` the shell started would otherwise hold the output open), and
// only the end of its output is kept, however much it prints. err is set only when it could not
// run at all.
func runGate(dir, command string, timeout time.Duration, env ...string) (gateRun, error) {
	return runBounded(dir, command, timeout, nil, env...)
}

// runBounded is runGate that also copies the output, as it comes, to live (nil: nowhere), for a
// runbook step the user watches.
func runBounded(dir, command string, timeout time.Duration, live io.Writer, env ...string) (gateRun, error) {
	base, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	// The gate runs in a process group of its own, which a signal meant for this one (Ctrl-C, the
	// client stopping its tool's group) does not reach: such a signal ends the gate's group first.
	ctx, stop := signal.NotifyContext(base, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	cmd := exec.CommandContext(ctx, "sh", "-c", command)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	cmd.WaitDelay = 2 * time.Second
	killGroupOnCancel(cmd)
	out := &tailWriter{max: gateOutputTail}
	var w io.Writer = out
	if live != nil {
		w = io.MultiWriter(live, out)
	}
	cmd.Stdout, cmd.Stderr = w, w // one writer: exec copies both through one pipe, in order
	start := time.Now()
	code, err := exitStatus(cmd.Run())
	run := gateRun{ExitCode: code, Duration: time.Since(start), Output: out.String()}
	if errors.Is(base.Err(), context.DeadlineExceeded) {
		run.TimedOut, run.ExitCode = true, gateTimedOutExit
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
