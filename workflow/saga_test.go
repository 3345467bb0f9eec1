package workflow_test

import (
	"slices"
	"testing"

	"github.com/exarchos/git-exarchos/guards"

	"github.com/exarchos/git-exarchos/workflow"
)

func worktreeOf(r *run, task string, created bool) workflow.StartTaskWorktree {
	tip, _ := r.repo.BranchTip("topic")
	return workflow.StartTaskWorktree{ID: task, Worktree: workflow.WorktreeData{Path: "/repo/.worktrees/login/" + task, Branch: "topic--" + task, Base: tip, BranchCreated: created}}
}

func step(res, action, outcome string) workflow.RecordCompensation {
	return workflow.RecordCompensation{CompensationData: workflow.CompensationData{Resource: res, Action: action, Outcome: outcome}}
}

func TestCancelSagaCompensatesInReverseOrder(t *testing.T) {
	r := newRun(t, "login", "feature", workflow.Init{})
	r.must(workflow.AddTask{ID: "t1"}, workflow.AddTask{ID: "t2"})
	r.must(worktreeOf(r, "t1", true))
	r.must(worktreeOf(r, "t1", true)) // the same worktree again: nothing new
	if len(r.state.Resources) != 2 {
		t.Fatalf("resources %+v", r.state.Resources)
	}
	r.refuse(workflow.CodeBadInput, workflow.StartTaskWorktree{ID: "t1", Worktree: workflow.WorktreeData{Path: "/elsewhere", Branch: "x", Base: r.state.Resources[0].Base}})
	r.refuse(workflow.CodeBadInput, workflow.StartTaskWorktree{ID: "t9", Worktree: worktreeOf(r, "t9", true).Worktree})
	r.must(worktreeOf(r, "t2", false)) // on a branch that already existed: not ours to delete
	r.must(workflow.LinkPR{URL: "https://github.com/acme/app/pull/4"})
	r.must(workflow.CompleteTask{ID: "t1", HeadSHA: "1111111111111111111111111111111111111111"})
	if w, _ := r.state.TaskWorktree("t1"); w.Head != "1111111111111111111111111111111111111111" || w.Branch != "topic--t1" {
		t.Fatalf("t1 worktree %+v", w)
	}

	var got []string
	for _, s := range workflow.CompensationPlan(r.state) {
		got = append(got, s.Action+" "+s.Resource.ID)
	}
	want := []string{"close pr:https://github.com/acme/app/pull/4", "preserve worktree:t2", "remove worktree:t2",
		"preserve worktree:t1", "remove worktree:t1", "preserve branch:topic--t1", "delete branch:topic--t1"}
	if len(got) != len(want) {
		t.Fatalf("plan %q", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("plan %q, want %q", got, want)
		}
	}

	r.refuse(workflow.CodeWrongPhase, step("worktree:t1", "preserve", "done"))
	r.must(workflow.Cancel{Reason: "superseded"})
	r.phase("cancelling")
	if r.state.Cancel == nil || r.state.Cancel.From != "ideate" || r.state.Cancel.Reason != "superseded" {
		t.Fatalf("cancel %+v", r.state.Cancel)
	}
	r.refuse(workflow.CodeCancelling, workflow.TransitionTo{Phase: "plan"})
	r.refuse(workflow.CodeCancelling, workflow.AddTask{ID: "t3"})
	r.refuse(workflow.CodeCompensationPending, workflow.Cancel{})
	r.refuse(workflow.CodeBadInput, step("worktree:t1", "remove", "done")) // preserve comes first
	r.refuse(workflow.CodeBadInput, step("worktree:t1", "close", "done"))
	r.refuse(workflow.CodeBadInput, step("worktree:t1", "preserve", "maybe"))

	r.must(step("pr:https://github.com/acme/app/pull/4", "close", "skipped"))
	r.must(step("worktree:t2", "preserve", "done"))
	r.must(workflow.RecordCompensation{CompensationData: workflow.CompensationData{Resource: "worktree:t2", Action: "remove", Outcome: "failed", Detail: "locked", Fix: "git worktree unlock"}})
	if w, _ := r.state.TaskWorktree("t2"); w.Failure == nil || w.Failure.Fix != "git worktree unlock" {
		t.Fatalf("failure not recorded: %+v", w)
	}
	r.refuse(workflow.CodeCompensationPending, workflow.Cancel{})
	n := len(r.log)
	r.must(step("worktree:t2", "preserve", "done")) // already done: nothing appended
	if len(r.log) != n {
		t.Fatal("a finished step was recorded twice")
	}
	r.must(step("worktree:t2", "remove", "done"))
	if w, _ := r.state.TaskWorktree("t2"); w.Failure != nil || !w.Compensated() {
		t.Fatalf("retry did not clear the failure: %+v", w)
	}
	for _, s := range workflow.CompensationPlan(r.state) {
		r.must(step(s.Resource.ID, s.Action, "done"))
	}
	r.must(workflow.Cancel{})
	r.phase("cancelled")
	if r.state.Reason != "superseded" {
		t.Fatalf("reason %q", r.state.Reason)
	}
	r.refuse(workflow.CodeFinalPhase, workflow.Cancel{})
	r.checkReplay()
}

func TestCancelWithoutResourcesEndsAtOnce(t *testing.T) {
	r := newRun(t, "login", "debug", workflow.Init{})
	r.must(workflow.Cancel{Reason: "dup"})
	r.phase("cancelled")
	if len(r.log) != 3 || r.log[1].Type != workflow.EventCancelRequested || r.log[2].Type != workflow.EventCancelled {
		t.Fatalf("log %+v", r.log)
	}
	d, _ := workflow.Builtin("debug")
	if d.CancellingPhase() != "cancelling" || d.CancelTarget() != "cancelled" {
		t.Fatal(d.CancellingPhase(), d.CancelTarget())
	}
	r.checkReplay()
}

// Issue 16 item 7: a definition whose cancel enters its final phase directly (no cancelling phase)
// still cancels once it owns a worktree: the steps are recorded in the phase the cancel was asked
// in, then the cancel ends it.
func TestCancelWithoutCancellingPhaseCompensates(t *testing.T) {
	base, _ := workflow.Builtin("oneshot")
	def := base.Clone()
	def.Type, def.ID = "flat", "blob:flat"
	def.Phases = slices.DeleteFunc(def.Phases, func(p workflow.Phase) bool { return p.ID == "cancelling" })
	def.Transitions = slices.DeleteFunc(def.Transitions, func(t workflow.Transition) bool { return t.From == "cancelling" })
	for i, tr := range def.Transitions {
		if tr.Universal() && tr.TakenBy(workflow.OnCancel) {
			def.Transitions[i].To = "cancelled"
		}
	}
	if err := def.Validate(); err != nil || def.CancellingPhase() != "" || def.CancelTarget() != "cancelled" {
		t.Fatalf("definition: %v %q %q", err, def.CancellingPhase(), def.CancelTarget())
	}
	r := &run{t: t, repo: newFakeRepo("topic"), defn: def}
	r.env = workflow.Env{Actor: "alice", Guards: guards.NewEvaluator(r.repo)}
	if rej := r.do(workflow.Init{Feature: "flat", Type: "flat", Branch: "topic"}); rej != nil {
		t.Fatal(rej)
	}
	r.must(workflow.AddTask{ID: "t1"})
	r.must(worktreeOf(r, "t1", true))
	r.must(workflow.Cancel{Reason: "dropped"}) // requested; steps pending
	r.phase("plan")
	for _, s := range workflow.CompensationPlan(r.state) {
		r.must(step(s.Resource.ID, s.Action, workflow.OutcomeDone))
	}
	if len(workflow.CompensationPlan(r.state)) != 0 {
		t.Fatal("steps left")
	}
	r.must(workflow.Cancel{Reason: "dropped"})
	r.phase("cancelled")
	if r.state.Reason != "dropped" {
		t.Fatalf("reason %q", r.state.Reason)
	}
}
