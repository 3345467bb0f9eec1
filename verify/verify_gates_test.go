package verify_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/exarchos/git-exarchos/app"
	"github.com/exarchos/git-exarchos/internal/apptest"
	"github.com/exarchos/git-exarchos/internal/gittest"
	"github.com/exarchos/git-exarchos/verify"
	"github.com/exarchos/git-exarchos/workflow"
)

// Issue 30: verify re-checks that the quality gates ran on the commits they claim. The apptest.Team's base
// branch defines a type whose phase build and whose tasks have gates; the agent's branch is login.

const gatedType = `type: gated
initial: build
taskGates: ["test -f built.txt && echo task gate"]
gateTimeout: 20s
phases:
  - id: build
    gates: ["test -f built.txt"]
  - id: review
  - id: done
    kind: final
  - id: cancelling
  - id: cancelled
    kind: final
transitions:
  - {from: build, to: review}
  - {from: review, to: done}
  - {from: "*", to: cancelling, on: [cancel]}
  - {from: cancelling, to: cancelled, on: [cancel]}
`

const taskGate, phaseGate = "test -f built.txt && echo task gate", "test -f built.txt"

// gatedLogin is one clone whose origin/main defines the gated type, on branch login with workflow
// login in build and task a started.
func gatedLogin(t *testing.T) (*apptest.Team, string) {
	t.Helper()
	tm := apptest.NewTeam(t, 1)
	dir := tm.Dirs[0]
	apptest.WriteCommit(t, dir, ".exarchos/workflows/gated.yaml", gatedType)
	gittest.Git(t, dir, "", "push", "-q", "origin", "main")
	gittest.Git(t, dir, "", "checkout", "-q", "-b", "login")
	r := apptest.Reopen(t, dir)
	_, err := app.Init(r, app.InitOptions{Feature: "login", Type: "gated"})
	require.NoError(t, err)
	for _, c := range []workflow.Command{workflow.AddTask{ID: "a"}, workflow.StartTask{ID: "a"}} {
		_, err := app.Run(apptest.Reopen(t, dir), "login", c)
		require.NoError(t, err)
	}
	return tm, dir
}

// forgeGated appends an event with plumbing (no decision, no gate run), folded under the
// repository's definitions so the snapshot agrees with the log: only the gates can give it away.
func forgeGated(t *testing.T, dir string, ev workflow.NewEvent) {
	t.Helper()
	r := apptest.Reopen(t, dir)
	_, err := r.Store.Append("login", r.Projector(), ev)
	require.NoError(t, err)
}

// ciVerifyGates verifies the login branch in a fresh clone of the apptest.Team's remote, as CI does.
func ciVerifyGates(t *testing.T, tm *apptest.Team, dir string, rerun bool) (*verify.Result, error) {
	t.Helper()
	apptest.PushAll(t, dir)
	return verify.Verify(&verify.Repo{Repo: apptest.Reopen(t, apptest.CIClone(t, tm.Remote)).Repo}, verify.Options{Branch: "login", Base: "origin/main", RerunGates: rerun})
}

func ran(t *testing.T, dir string, cmds ...workflow.Command) {
	t.Helper()
	for _, c := range cmds {
		_, err := app.Run(apptest.Reopen(t, dir), "login", c)
		require.NoError(t, err)
	}
}

// The honest road: task done and the transition run their gates; verify passes, and with
// --rerun-gates runs each (gate, commit) pair once more and still passes.
func TestVerifyGateGatesThatRanPass(t *testing.T) {
	tm, dir := gatedLogin(t)
	apptest.WriteCommit(t, dir, "built.txt", "ok\n")
	ran(t, dir, workflow.CompleteTask{ID: "a"}, workflow.TransitionTo{Phase: "review"})
	res, err := ciVerifyGates(t, tm, dir, false)
	require.NoError(t, err, "verify of gates that ran")
	if res.Workflows[0].GatesRerun != nil {
		t.Fatalf("gates re-run without --rerun-gates: %d", *res.Workflows[0].GatesRerun)
	}
	res, err = ciVerifyGates(t, tm, dir, true)
	require.NoError(t, err, "verify --rerun-gates of gates that ran")
	if n := res.Workflows[0].GatesRerun; n == nil || *n != 2 {
		t.Fatalf("--rerun-gates ran %v gates, want 2 (the task's and the phase's, on one commit)", n)
	}
}

// A task.completed written with plumbing, its gates claimed passed: with no run on its commit,
// with a run on another commit, or with runs of the branch's own weaker gate, verify fails.
func TestVerifyGateForgedTaskCompletion(t *testing.T) {
	t.Run("no run", func(t *testing.T) {
		tm, dir := gatedLogin(t)
		apptest.WriteCommit(t, dir, "work.txt", "work\n")
		head := gittest.Git(t, dir, "", "rev-parse", "HEAD")
		forgeGated(t, dir, workflow.NewEvent{Type: workflow.EventTaskCompleted, Data: workflow.TaskData{ID: "a", HeadSHA: head, Was: workflow.TaskInProgress, Gates: []string{taskGate}}})
		res, err := ciVerifyGates(t, tm, dir, false)
		apptest.WantViolation(t, res, err, "gate", "task a was completed at "+head[:12]+", but the gate `"+taskGate+"` has no run recorded on that commit")
	})
	t.Run("runs on another commit", func(t *testing.T) {
		tm, dir := gatedLogin(t)
		apptest.WriteCommit(t, dir, "built.txt", "ok\n")
		built := gittest.Git(t, dir, "", "rev-parse", "HEAD")
		ran(t, dir, workflow.RecordValidation{Command: taskGate, ExitCode: 0, Commit: built, Gate: true})
		gittest.Git(t, dir, "", "rm", "-q", "built.txt")
		gittest.Git(t, dir, "", "commit", "-q", "-m", "drop the artifact")
		head := gittest.Git(t, dir, "", "rev-parse", "HEAD")
		forgeGated(t, dir, workflow.NewEvent{Type: workflow.EventTaskCompleted, Data: workflow.TaskData{ID: "a", HeadSHA: head, Was: workflow.TaskInProgress, Gates: []string{taskGate}}})
		res, err := ciVerifyGates(t, tm, dir, false)
		apptest.WantViolation(t, res, err, "gate", "has no run recorded on that commit")
	})
	t.Run("a validation of the gate's text", func(t *testing.T) {
		// `validate` ran the same command in the worktree (untracked files and all): not a gate's
		// run in a clean checkout, so it vouches for nothing.
		tm, dir := gatedLogin(t)
		apptest.WriteCommit(t, dir, "work.txt", "work\n")
		head := gittest.Git(t, dir, "", "rev-parse", "HEAD")
		ran(t, dir, workflow.RecordValidation{Command: taskGate, ExitCode: 0, Commit: head})
		forgeGated(t, dir, workflow.NewEvent{Type: workflow.EventTaskCompleted, Data: workflow.TaskData{ID: "a", HeadSHA: head, Was: workflow.TaskInProgress, Gates: []string{taskGate}}})
		res, err := ciVerifyGates(t, tm, dir, false)
		apptest.WantViolation(t, res, err, "gate", "the gate `"+taskGate+"` has no run recorded on that commit")
	})
	t.Run("the branch's weaker gate", func(t *testing.T) {
		tm, dir := gatedLogin(t)
		apptest.WriteCommit(t, dir, ".exarchos/workflows/gated.yaml", strings.Replace(gatedType, `taskGates: ["test -f built.txt && echo task gate"]`, `taskGates: ["true"]`, 1))
		head := gittest.Git(t, dir, "", "rev-parse", "HEAD")
		ran(t, dir, workflow.RecordValidation{Command: "true", ExitCode: 0, Commit: head, Gate: true})
		forgeGated(t, dir, workflow.NewEvent{Type: workflow.EventTaskCompleted, Data: workflow.TaskData{ID: "a", HeadSHA: head, Was: workflow.TaskInProgress, Gates: []string{"true"}}})
		res, err := ciVerifyGates(t, tm, dir, false)
		apptest.WantViolation(t, res, err, "gate", "the gate `"+taskGate+"` has no run recorded on that commit")
	})
	t.Run("a failed last run", func(t *testing.T) {
		tm, dir := gatedLogin(t)
		apptest.WriteCommit(t, dir, "work.txt", "work\n")
		head := gittest.Git(t, dir, "", "rev-parse", "HEAD")
		ran(t, dir, workflow.RecordValidation{Command: taskGate, ExitCode: 0, Commit: head, Gate: true}, workflow.RecordValidation{Command: taskGate, ExitCode: 1, Commit: head, Gate: true})
		forgeGated(t, dir, workflow.NewEvent{Type: workflow.EventTaskCompleted, Data: workflow.TaskData{ID: "a", HeadSHA: head, Was: workflow.TaskInProgress}})
		res, err := ciVerifyGates(t, tm, dir, false)
		apptest.WantViolation(t, res, err, "gate", "the gate `"+taskGate+"` last exited 1 there")
	})
}

// A pass written with plumbing on the very commit it claims, where the gate in fact fails: the log
// is consistent, so only running the gate again finds it; --rerun-gates does, for the task's gate
// and for the phase's.
func TestVerifyGateRerunFindsAForgedPass(t *testing.T) {
	tm, dir := gatedLogin(t)
	apptest.WriteCommit(t, dir, "work.txt", "no artifact\n")
	head := gittest.Git(t, dir, "", "rev-parse", "HEAD")
	forgeGated(t, dir, workflow.NewEvent{Type: workflow.EventValidationRecorded, Data: workflow.ValidationData{Command: taskGate, ExitCode: 0, Commit: head, Gate: true}})
	forgeGated(t, dir, workflow.NewEvent{Type: workflow.EventValidationRecorded, Data: workflow.ValidationData{Command: phaseGate, ExitCode: 0, Commit: head, Gate: true}})
	ran(t, dir, workflow.CompleteTask{ID: "a"}, workflow.TransitionTo{Phase: "review"})
	_, err := ciVerifyGates(t, tm, dir, false)
	require.NoError(t, err, "without --rerun-gates verify reads the log alone, which holds together")
	res, err := ciVerifyGates(t, tm, dir, true)
	apptest.WantViolation(t, res, err, "gate", "the gate `"+taskGate+"` is recorded as passing on "+head[:12]+", but exits 1 there when verify runs it again")
	apptest.WantViolation(t, res, err, "gate", "the gate `"+phaseGate+"` is recorded as passing on "+head[:12]+", but exits 1 there")
}

// A transition out of build written with plumbing, gates-passed recorded: with no run on the head
// it claims, verify derives the guard again and fails; with a head that is not on the branch (runs
// forged on a commit made aside), it fails on the head.
func TestVerifyGateForgedPhaseGates(t *testing.T) {
	forgeExit := func(t *testing.T, dir, head string) {
		t.Helper()
		forgeGated(t, dir, workflow.NewEvent{Type: workflow.EventTransitioned, Data: workflow.TransitionedData{From: "build", To: "review", Guards: []string{workflow.GuardGatesPassed}, Head: head}})
	}
	t.Run("no run on the head", func(t *testing.T) {
		tm, dir := gatedLogin(t)
		apptest.WriteCommit(t, dir, "work.txt", "work\n")
		head := gittest.Git(t, dir, "", "rev-parse", "HEAD")
		forgeExit(t, dir, head)
		res, err := ciVerifyGates(t, tm, dir, false)
		apptest.WantViolation(t, res, err, "guard", "recorded guard gates-passed as passed, but verify finds: the gate `"+phaseGate+"` has not run on "+head[:12])
	})
	t.Run("runs on another commit", func(t *testing.T) {
		tm, dir := gatedLogin(t)
		apptest.WriteCommit(t, dir, "built.txt", "ok\n")
		built := gittest.Git(t, dir, "", "rev-parse", "HEAD")
		ran(t, dir, workflow.RecordValidation{Command: phaseGate, ExitCode: 0, Commit: built, Gate: true}) // true there
		gittest.Git(t, dir, "", "rm", "-q", "built.txt")
		gittest.Git(t, dir, "", "commit", "-q", "-m", "drop the artifact")
		head := gittest.Git(t, dir, "", "rev-parse", "HEAD")
		forgeExit(t, dir, head)
		res, err := ciVerifyGates(t, tm, dir, false)
		apptest.WantViolation(t, res, err, "guard", "the gate `"+phaseGate+"` has not run on "+head[:12])
	})
	t.Run("a head off the branch", func(t *testing.T) {
		tm, dir := gatedLogin(t)
		apptest.WriteCommit(t, dir, "built.txt", "ok\n")
		aside := gittest.Git(t, dir, "", "commit-tree", "-p", "HEAD", "-m", "aside", gittest.Git(t, dir, "", "rev-parse", "HEAD^{tree}"))
		gittest.Git(t, dir, "", "rm", "-q", "built.txt")
		gittest.Git(t, dir, "", "commit", "-q", "-m", "no artifact on the branch")
		forgeGated(t, dir, workflow.NewEvent{Type: workflow.EventValidationRecorded, Data: workflow.ValidationData{Command: phaseGate, ExitCode: 0, Commit: aside, Gate: true}})
		forgeExit(t, dir, aside)
		res, err := ciVerifyGates(t, tm, dir, false)
		apptest.WantViolation(t, res, err, "gate", "build → review records its gates as passed on "+aside[:12]+", which is not on the branch's history")
	})
}
