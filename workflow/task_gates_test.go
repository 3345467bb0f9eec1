package workflow_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/exarchos/git-exarchos/workflow"
)

// TestTaskGates: a task is completed at a commit only when each of the definition's task gates has
// its latest declared run on that commit exiting 0; a run of another commit, an ad-hoc run, or a
// pass followed by a failure does not count. The completion names the gates it was decided under.
func TestTaskGates(t *testing.T) {
	r := newRun(t, "login", "feature", workflow.Init{})
	def := *r.def()
	def.TaskGates = []string{"make test", "make lint"}
	r.defn = &def
	r.must(workflow.AddTask{ID: "a"}, workflow.StartTask{ID: "a"})
	const head = "abc1234def"
	done := workflow.CompleteTask{ID: "a", HeadSHA: head}
	refused := func(reason, fix string) {
		t.Helper()
		rej := r.refuse(workflow.CodeGuardFailed, done)
		if len(rej.FailedGuards) != 1 || rej.FailedGuards[0].Guard != workflow.GuardTaskGatesPassed ||
			!strings.Contains(rej.FailedGuards[0].Reason, reason) || rej.FailedGuards[0].Fix != fix {
			t.Fatalf("refusal %+v, want %q with fix %q", rej.FailedGuards, reason, fix)
		}
		if tk, _ := r.state.Task("a"); tk.Status != workflow.TaskInProgress {
			t.Fatalf("the task left in_progress: %+v", tk)
		}
	}
	run := func(cmd string, exit int, commit string, adHoc bool) workflow.RecordValidation {
		return workflow.RecordValidation{Command: cmd, ExitCode: exit, Commit: commit, AdHoc: adHoc, Gate: !adHoc}
	}
	again, fixed := "git exarchos task done login a", `git commit -am "fix the gate" && git exarchos task done login a`
	refused("the gate `make test` has not run on abc1234def", again)
	r.must(run("make test", 0, head, false), run("make lint", 2, head, false))
	refused("the gate `make lint` exited 2 on abc1234def", fixed)
	r.must(run("make lint", 0, "0000000", false), run("make lint", 0, head, true))
	refused("`make lint` exited 2", fixed) // another commit's pass, an ad-hoc pass: neither counts
	// `validate` running the gate's text passes in the worktree: not the gates' runner, no count.
	r.must(workflow.RecordValidation{Command: "make lint", Commit: head})
	refused("`make lint` exited 2", fixed)
	r.must(run("make lint", 0, head[:7], false), run("make test", 1, head, false))
	refused("the gate `make test` exited 1", fixed) // passed, then failed
	r.must(run("make test", 0, head, false), done)
	if tk, _ := r.state.Task("a"); tk.Status != workflow.TaskCompleted || tk.HeadSHA != head {
		t.Fatalf("task %+v", tk)
	}
	var d workflow.TaskData
	if err := r.log[len(r.log)-1].DecodeData(&d); err != nil || !slices.Equal(d.Gates, def.TaskGates) {
		t.Fatalf("the completion records gates %v (%v), want %v", d.Gates, err, def.TaskGates)
	}
	// Without task gates, nothing changes.
	plain := newRun(t, "login", "feature", workflow.Init{})
	plain.must(workflow.AddTask{ID: "a"}, workflow.CompleteTask{ID: "a", HeadSHA: head})
}
