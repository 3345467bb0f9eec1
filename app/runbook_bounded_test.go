package app_test

import (
	"io"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/exarchos/git-exarchos/app"
	"github.com/exarchos/git-exarchos/internal/apptest"
	"github.com/exarchos/git-exarchos/internal/gittest"
)

// A runbook step runs under the gates' runner: a step that prints far more than memory should
// hold costs a bounded buffer (the record keeps its end), and a step that leaves a daemon holding
// its output, or hangs, does not hold the runbook past the definition's gateTimeout.
const runbookType = `type: booked
initial: build
gateTimeout: 3s
runbooks:
  loud: ["head -c 200000000 /dev/zero | tr '\\0' x; echo; echo the end; exit 3"]
  daemon: ["sleep 300 & echo started", "true"]
  hang: ["sleep 300"]
phases:
  - id: build
  - id: done
    kind: final
  - id: cancelling
  - id: cancelled
    kind: final
transitions:
  - {from: build, to: done}
  - {from: "*", to: cancelling, on: [cancel]}
  - {from: cancelling, to: cancelled, on: [cancel]}
`

func bookedLogin(t *testing.T) string {
	t.Helper()
	tm := apptest.NewTeam(t, 1)
	dir := tm.Dirs[0]
	apptest.WriteCommit(t, dir, ".exarchos/workflows/booked.yaml", runbookType)
	gittest.Git(t, dir, "", "push", "-q", "origin", "main")
	gittest.Git(t, dir, "", "checkout", "-q", "-b", "login")
	if _, err := app.Init(apptest.Reopen(t, dir), app.InitOptions{Feature: "login", Type: "booked"}); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestRunbookStepOutputIsBounded(t *testing.T) {
	dir := bookedLogin(t)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	res, err := app.Runbook(apptest.Reopen(t, dir), app.RunbookOptions{Feature: "login", Name: "loud", Output: io.Discard})
	runtime.ReadMemStats(&after)
	if err == nil || res == nil || res.Failed != 1 {
		t.Fatalf("the loud step should fail at step 1: %v %+v", err, res)
	}
	// 200 MB printed; kept in a buffer it costs at least that much allocation.
	alloc := after.TotalAlloc - before.TotalAlloc
	t.Logf("a step printing 200 MB: %d KB allocated while the runbook ran", alloc>>10)
	if alloc > 32<<20 {
		t.Errorf("running a step that printed 200 MB allocated %d MB: its output is not bounded", alloc>>20)
	}
	out := res.Steps[0].Output
	if len(out) > 1600 || !strings.HasSuffix(out, "the end") {
		t.Errorf("the recorded output should be the end of what the step printed: %d bytes, %.80q…", len(out), out)
	}
}

func TestRunbookStepCannotHoldTheRunbook(t *testing.T) {
	dir := bookedLogin(t)
	start := time.Now()
	res, err := app.Runbook(apptest.Reopen(t, dir), app.RunbookOptions{Feature: "login", Name: "daemon"})
	if err != nil || len(res.Steps) != 2 {
		t.Fatalf("a step that left a daemon behind still finishes, and the runbook goes on: %v %+v", err, res)
	}
	res, err = app.Runbook(apptest.Reopen(t, dir), app.RunbookOptions{Feature: "login", Name: "hang"})
	if err == nil || res == nil || res.Steps[0].ExitCode != 124 || !strings.Contains(res.Steps[0].Output, "killed") {
		t.Fatalf("a hanging step is killed at gateTimeout and recorded as exit 124: %v %+v", err, res)
	}
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("the two runbooks took %s: a step held them", d)
	}
}
