package workflow_test

import (
	"strings"
	"testing"

	"github.com/exarchos/git-exarchos/workflow"
)

func featureToReview(t *testing.T) *run {
	r := newRun(t, "login", "feature", workflow.Init{})
	r.artifact("design")
	r.to("plan")
	r.artifact("plan")
	r.to("plan-review")
	r.must(workflow.Approve{Note: "ok"})
	r.to("implementation") // a compound target enters its initial child
	r.phase("delegate")
	r.completeTasks("t1", "t2")
	r.to("review")
	return r
}

func TestFeatureHappyPath(t *testing.T) {
	r := featureToReview(t)
	r.must(workflow.RecordReview{Dimension: "spec", Pass: true}, workflow.RecordReview{Dimension: "quality", Pass: true, Note: "clean"})
	r.to("synthesize")
	rej := r.refuse(workflow.CodeGuardFailed, workflow.TransitionTo{Phase: "completed"})
	if rej.FailedGuards[0].Guard != "pr-url-exists" || !strings.Contains(rej.FailedGuards[0].Fix, "git exarchos pr find login") {
		t.Fatalf("unexpected failure %+v", rej.FailedGuards)
	}
	// A URL written by hand is a claim, not a fact.
	r.set("pr.url=https://github.com/acme/app/pull/12")
	rej = r.refuse(workflow.CodeGuardFailed, workflow.TransitionTo{Phase: "completed"})
	if !strings.Contains(rej.FailedGuards[0].Fix, "git exarchos pr link login https://github.com/acme/app/pull/12") {
		t.Fatalf("unexpected failure %+v", rej.FailedGuards)
	}
	r.linkPR("https://github.com/acme/app/pull/12")
	r.to("completed")
	if r.state.PR.Number != 12 || r.state.Conflicts != nil {
		t.Fatalf("state %+v", r.state)
	}
	// Completed again: answered idempotently, nothing recorded; any other move is refused.
	if evs, rej := workflow.Decide(r.def(), r.state, workflow.TransitionTo{Phase: "completed"}, r.env); rej != nil || len(evs) > 0 {
		t.Fatalf("completed → completed: %v %v", evs, rej)
	}
	r.refuse(workflow.CodeFinalPhase, workflow.TransitionTo{Phase: "cancelled"})
	r.refuse(workflow.CodeFinalPhase, workflow.Cancel{})
	r.refuse(workflow.CodeFinalPhase, workflow.AddTask{ID: "late"})
	r.must(workflow.ObservePR{PRObservation: workflow.PRObservation{Number: 12, Merged: true}}) // facts still recorded
	r.checkReplay()
}

func TestFeatureGuardsExplainThemselves(t *testing.T) {
	r := newRun(t, "login", "feature", workflow.Init{})
	rej := r.refuse(workflow.CodeGuardFailed, workflow.TransitionTo{Phase: "plan"})
	f := rej.FailedGuards[0]
	if f.Guard != "artifact-design" || f.Fix != "git exarchos set login artifacts.design=<path>" || f.Expected == "" || f.Reason == "" {
		t.Fatalf("failure %+v", f)
	}
	// A path that is not committed on the branch does not count…
	r.set("artifacts.design=docs/design.md")
	rej = r.refuse(workflow.CodeGuardFailed, workflow.TransitionTo{Phase: "plan"})
	if !strings.Contains(rej.FailedGuards[0].Reason, "not a file in the tip of topic") {
		t.Fatalf("reason %q", rej.FailedGuards[0].Reason)
	}
	// …until it is.
	r.repo.commit("topic", "docs/design.md")
	r.to("plan")
	// Inline text is refused where the definition does not allow it (no built-in does).
	if rej := r.refuse(workflow.CodeBadInput, workflow.Set{Inline: true, Assignments: []workflow.Assignment{{Path: "artifacts.plan", Value: []byte(`"1. do it"`)}}}); !strings.Contains(rej.Message, "does not allow an inline plan") {
		t.Fatalf("%v", rej)
	}
	r.artifact("plan")
	r.to("plan-review")
	rej = r.refuse(workflow.CodeGuardFailed, workflow.TransitionTo{Phase: "delegate"})
	if rej.FailedGuards[0].Fix != `ask the user to run: git exarchos approve login --note "…"` {
		t.Fatalf("fix %q", rej.FailedGuards[0].Fix)
	}
	if !strings.Contains(rej.Error(), "fix: ask the user to run: git exarchos approve login") {
		t.Fatalf("error text %q", rej.Error())
	}
}

func TestFeatureUnknownAndInvalidTargets(t *testing.T) {
	r := newRun(t, "login", "feature", workflow.Init{})
	rej := r.refuse(workflow.CodeUnknownPhase, workflow.TransitionTo{Phase: "nowhere"})
	if strings.Join(rej.ValidTargets, ",") != "plan,completed" {
		t.Fatalf("valid targets %v", rej.ValidTargets)
	}
	r.refuse(workflow.CodeInvalidTransition, workflow.TransitionTo{Phase: "synthesize"})
	rej = r.refuse(workflow.CodeInvalidTransition, workflow.TransitionTo{Phase: "cancelled"})
	if !strings.Contains(rej.Message, "git exarchos cancel login") {
		t.Fatalf("message %q", rej.Message)
	}
	// Self transition: no events, no error.
	n := len(r.log)
	if evs, rej := decide(r.state, workflow.TransitionTo{Phase: "ideate"}, r.env); evs != nil || rej != nil {
		t.Fatalf("self transition: %v %v", evs, rej)
	}
	if len(r.log) != n {
		t.Fatal("self transition appended events")
	}
}

func TestFeaturePlanRevisionsBlockAndUnblock(t *testing.T) {
	r := newRun(t, "login", "feature", workflow.Init{})
	r.artifact("design")
	r.to("plan")
	r.artifact("plan")
	r.refuse(workflow.CodeWrongPhase, workflow.Reject{Gaps: "x"})
	for i := 1; i <= 3; i++ {
		r.to("plan-review")
		r.refuse(workflow.CodeBadInput, workflow.Reject{})
		r.must(workflow.Reject{Gaps: "missing tests"})
		r.phase("plan")
		if r.state.Revisions != i {
			t.Fatalf("revisions = %d, want %d", r.state.Revisions, i)
		}
	}
	r.to("plan-review")
	r.must(workflow.Reject{Gaps: "still missing tests"})
	r.phase("blocked")
	last := r.log[len(r.log)-1]
	if !strings.Contains(string(last.Data), "revisions limit reached (3 of 3)") {
		t.Fatalf("blocked transition %s", last.Data)
	}
	if a := r.state.Approvals[len(r.state.Approvals)-1]; a.Decision != "rejected" || a.Actor != "alice" || a.Gaps != "still missing tests" {
		t.Fatalf("approval %+v", a)
	}
	r.refuse(workflow.CodeInvalidTransition, workflow.TransitionTo{Phase: "delegate"})
	r.refuse(workflow.CodeBadInput, workflow.Unblock{})
	r.must(workflow.Unblock{Reason: "plan is good enough"})
	r.phase("delegate")
	r.checkReplay()
}

func TestFeatureApprovalIsPerVisit(t *testing.T) {
	r := newRun(t, "login", "feature", workflow.Init{})
	r.artifact("design")
	r.to("plan")
	r.artifact("plan")
	r.to("plan-review")
	r.must(workflow.Approve{})
	r.must(workflow.Reject{Gaps: "on second thought"})
	r.to("plan-review")
	r.refuse(workflow.CodeGuardFailed, workflow.TransitionTo{Phase: "delegate"})
	r.must(workflow.Approve{Note: "now"})
	r.to("delegate")
}

func TestCircuitBreakerTripsAndUnblocks(t *testing.T) {
	r := featureToReview(t)
	for i := 1; i <= 3; i++ {
		r.verdict("spec", false)
		r.to("delegate", "review")
		if r.state.FixCycles["implementation"] != i {
			t.Fatalf("fix cycles %v", r.state.FixCycles)
		}
	}
	r.verdict("spec", false)
	n := len(r.log)
	rej := r.refuse(workflow.CodeCircuitOpen, workflow.TransitionTo{Phase: "delegate"})
	if !strings.Contains(rej.Message, "git exarchos unblock login") {
		t.Fatalf("message %q", rej.Message)
	}
	if len(r.log) != n+1 || r.log[n].Type != workflow.EventCircuitOpened {
		t.Fatalf("tripping must record circuit.opened, log tail %v", r.log[n:])
	}
	if c := r.state.Circuit; c == nil || !c.Open || c.Compound != "implementation" || c.Limit != 3 {
		t.Fatalf("circuit %+v", r.state.Circuit)
	}
	r.refuse(workflow.CodeCircuitOpen, workflow.TransitionTo{Phase: "delegate"})
	if len(r.log) != n+1 {
		t.Fatal("an open circuit records its opening once")
	}
	if s := workflow.Summary(r.def(), r.state, r.env); !strings.Contains(s, "circuit open") {
		t.Fatalf("summary %q", s)
	}
	// Passing verdicts recorded while the circuit is open do not leave it: only a human unblock does.
	r.verdict("spec", true)
	r.verdict("quality", true)
	if rej := r.refuse(workflow.CodeGuardFailed, workflow.TransitionTo{Phase: "synthesize"}); !strings.Contains(rej.FailedGuards[0].Fix, "ask the user to run: git exarchos unblock login") {
		t.Fatalf("an open circuit's fix is the user's unblock: %+v", rej.FailedGuards)
	}
	r.must(workflow.Unblock{Reason: "reviewed by hand"})
	if r.state.Circuit != nil || r.state.FixCycles["implementation"] != 0 {
		t.Fatalf("unblock did not reset: %+v %v", r.state.Circuit, r.state.FixCycles)
	}
	if r.log[len(r.log)-1].Actor != "alice" || !strings.Contains(string(r.log[len(r.log)-1].Data), `"actor":"alice"`) {
		t.Fatalf("unblock must record the actor: %s", r.log[len(r.log)-1].Data)
	}
	r.verdict("spec", false)
	r.to("delegate")
	r.refuse(workflow.CodeNotBlocked, workflow.Unblock{Reason: "nothing"})
	r.checkReplay()
}

// withMaxFixCycles is the feature definition with another fix-cycle limit, as rules read from the
// base branch make it.
func withMaxFixCycles(n int) *workflow.Definition {
	d, _ := workflow.Builtin("feature")
	c := d.Clone()
	c.SetMaxFixCycles(n)
	return c
}

func TestCircuitBreakerLimitFromDefinition(t *testing.T) {
	r := featureToReview(t)
	r.defn = withMaxFixCycles(1)
	r.verdict("spec", false)
	r.to("delegate", "review")
	r.verdict("spec", false)
	r.refuse(workflow.CodeCircuitOpen, workflow.TransitionTo{Phase: "delegate"})
	last := r.log[len(r.log)-1]
	if last.Type != workflow.EventCircuitOpened || !strings.Contains(string(last.Data), `"limit":1`) || !strings.Contains(string(last.Data), `"definition":"builtin:feature@`) {
		t.Fatalf("the enforcing event records the limit and the definition: %s %s", last.Type, last.Data)
	}
}

// An open circuit closes only by a human unblock: a limit raised after it opened (a new rule on
// the base branch) does not let the next fix cycle through.
func TestOpenCircuitIgnoresARaisedLimit(t *testing.T) {
	r := featureToReview(t)
	r.defn = withMaxFixCycles(1)
	r.verdict("spec", false)
	r.to("delegate", "review")
	r.verdict("spec", false)
	r.refuse(workflow.CodeCircuitOpen, workflow.TransitionTo{Phase: "delegate"})
	r.defn = withMaxFixCycles(50)
	r.refuse(workflow.CodeCircuitOpen, workflow.TransitionTo{Phase: "delegate"})
	for _, o := range workflow.Transitions(r.defn, r.state, r.env) {
		if o.To == "delegate" && o.Allowed {
			t.Fatalf("transitions shows the fix cycle open under an open circuit: %+v", o)
		}
	}
	r.must(workflow.Unblock{Reason: "human looked"})
	r.to("delegate")
	tr := r.log[len(r.log)-1]
	if !strings.Contains(string(tr.Data), `"fixCycles":50`) {
		t.Fatalf("the transition records the effective limits: %s", tr.Data)
	}
}

func TestCircuitRestartsOnEntry(t *testing.T) {
	r := featureToReview(t)
	r.verdict("spec", false)
	r.to("delegate", "review")
	r.verdict("spec", false)
	r.to("delegate", "review")
	r.must(workflow.RecordReview{Dimension: "spec", Pass: true}, workflow.RecordReview{Dimension: "quality", Pass: true})
	r.to("synthesize")
	r.synthesisFails()
	r.to("delegate") // retry re-enters the compound
	if r.state.FixCycles["implementation"] != 0 || r.state.Retries != 1 {
		t.Fatalf("fixCycles %v retries %d", r.state.FixCycles, r.state.Retries)
	}
}

func TestSynthesisRetryLimit(t *testing.T) {
	r := featureToReview(t)
	for i := 0; i < 3; i++ {
		r.must(workflow.RecordReview{Dimension: "spec", Pass: true}, workflow.RecordReview{Dimension: "quality", Pass: true})
		r.to("synthesize")
		r.synthesisFails()
		r.to("delegate", "review")
	}
	r.must(workflow.RecordReview{Dimension: "spec", Pass: true}, workflow.RecordReview{Dimension: "quality", Pass: true})
	r.to("synthesize")
	rej := r.refuse(workflow.CodeLimitReached, workflow.TransitionTo{Phase: "delegate"})
	// The refusal says how to go on (issue 16 item 7).
	for _, want := range []string{"way forward", "workflows.feature.synthesisRetries", "git exarchos cancel login"} {
		if !strings.Contains(rej.Message, want) {
			t.Fatalf("%q lacks %q", rej.Message, want)
		}
	}
}

func TestReviewsMustAllPass(t *testing.T) {
	r := featureToReview(t)
	r.must(workflow.RecordReview{Dimension: "spec", Pass: true}, workflow.RecordReview{Dimension: "quality", Pass: false})
	rej := r.refuse(workflow.CodeGuardFailed, workflow.TransitionTo{Phase: "synthesize"})
	if f := rej.FailedGuards[0]; !strings.HasPrefix(f.Fix, `git exarchos review login quality pass --human --note "…"`) || !strings.Contains(f.Reason, "quality (fail)") {
		t.Fatalf("failure %+v", f)
	}
}

func TestTasksMustAllComplete(t *testing.T) {
	r := newRun(t, "login", "feature", workflow.Init{})
	r.artifact("design")
	r.to("plan")
	r.artifact("plan")
	r.to("plan-review")
	r.must(workflow.Approve{})
	r.to("delegate")
	rej := r.refuse(workflow.CodeGuardFailed, workflow.TransitionTo{Phase: "review"})
	if !strings.Contains(rej.FailedGuards[0].Reason, "no tasks") {
		t.Fatalf("%+v", rej.FailedGuards)
	}
	r.must(workflow.AddTask{ID: "a", Title: "A"}, workflow.AddTask{ID: "b"})
	r.refuse(workflow.CodeBadInput, workflow.AddTask{ID: "a"})
	r.refuse(workflow.CodeBadInput, workflow.StartTask{ID: "zzz"})
	r.refuse(workflow.CodeBadInput, workflow.AddTask{ID: "bad id"})
	r.must(workflow.CompleteTask{ID: "a", HeadSHA: "abc1234"}, workflow.FailTask{ID: "b", Reason: "flaky"})
	rej = r.refuse(workflow.CodeGuardFailed, workflow.TransitionTo{Phase: "review"})
	// A failed task is worked on again (issue 32: the fix said task done, which skips the rework).
	if rej.FailedGuards[0].Fix != "git exarchos task start login b" {
		t.Fatalf("%+v", rej.FailedGuards)
	}
	r.must(workflow.StartTask{ID: "b"})
	r.must(workflow.CompleteTask{ID: "b"})
	r.to("review")
	if tk, _ := r.state.Task("a"); tk.Status != workflow.TaskCompleted || tk.HeadSHA != "abc1234" || tk.Title != "A" {
		t.Fatalf("task %+v", tk)
	}
}

func TestOverrideMakesGuardPassOnce(t *testing.T) {
	r := newRun(t, "login", "feature", workflow.Init{})
	r.refuse(workflow.CodeBadInput, workflow.OverrideGuard{Guard: "artifact-design"})
	r.refuse(workflow.CodeBadInput, workflow.OverrideGuard{Guard: "plan-approved", Reason: "not here"})
	r.must(workflow.OverrideGuard{Guard: "artifact-design", Reason: "design lives in the wiki"})
	r.to("plan")
	last := r.log[len(r.log)-1]
	if !strings.Contains(string(last.Data), `"overridden":["artifact-design"]`) {
		t.Fatalf("transition must say which guards were overridden: %s", last.Data)
	}
	if o := r.state.Overrides[0]; o.Actor != "alice" || o.Phase != "ideate" {
		t.Fatalf("override %+v", o)
	}
	r.refuse(workflow.CodeGuardFailed, workflow.TransitionTo{Phase: "plan-review"})
}

func TestCancelAndCleanup(t *testing.T) {
	r := newRun(t, "login", "feature", workflow.Init{})
	r.refuse(workflow.CodeGuardFailed, workflow.Cleanup{})
	// Evidence of a head with no commit of the branch's own verifies nothing.
	r.must(workflow.VerifyMerge{MergeVerifiedData: workflow.MergeVerifiedData{Method: "ancestry", HeadSHA: r.repo.tips["topic"]}})
	if rej := r.refuse(workflow.CodeGuardFailed, workflow.Cleanup{}); !strings.Contains(rej.FailedGuards[0].Reason, "carries no commit of topic") {
		t.Fatalf("%+v", rej.FailedGuards)
	}
	r.repo.commit("topic", "src/login.go")
	r.must(workflow.VerifyMerge{MergeVerifiedData: workflow.MergeVerifiedData{Method: "ancestry", HeadSHA: r.repo.tips["topic"]}})
	r.must(workflow.Cleanup{})
	r.phase("completed")

	r = newRun(t, "login", "feature", workflow.Init{})
	r.must(workflow.Cancel{Reason: "not needed"})
	r.phase("cancelled")
	if r.state.Reason != "not needed" {
		t.Fatalf("reason %q", r.state.Reason)
	}
	r.refuse(workflow.CodeFinalPhase, workflow.Cancel{})
	r.refuse(workflow.CodeFinalPhase, workflow.TransitionTo{Phase: "ideate"})
	r.checkReplay()
}

// Issue 29: `task add t1 && task done t1` with no commit is refused, with what to do.
func TestTaskDoneNeedsACommitOfItsOwn(t *testing.T) {
	r := newRun(t, "login", "feature", workflow.Init{})
	r.must(workflow.AddTask{ID: "t1"})
	start := r.state.Tasks[0].Start
	if start == "" {
		t.Fatal("task.added records the branch tip the task starts at")
	}
	rej := r.refuse(workflow.CodeNoWork, workflow.CompleteTask{ID: "t1", HeadSHA: start})
	for _, want := range []string{"no commit of its own", "git commit", "git exarchos task done login t1"} {
		if !strings.Contains(rej.Message, want) {
			t.Fatalf("%q lacks %q", rej.Message, want)
		}
	}
	// Neighbours: no head at all; a task branch at its worktree's base.
	r.idle = true
	r.refuse(workflow.CodeNoWork, workflow.CompleteTask{ID: "t1"})
	r.refuse(workflow.CodeNoWork, workflow.CompleteTask{ID: "t1", HeadSHA: "abc", Since: "abc"})
	r.idle = false
	r.must(workflow.CompleteTask{ID: "t1"}) // the harness commits src/t1.go first
}

// Issue 29: delegate → review needs code committed since delegate was entered, and every fix
// cycle new code again.
func TestReviewNeedsWorkSinceDelegate(t *testing.T) {
	r := featureToReview(t)
	r.verdict("spec", false)
	r.must(workflow.TransitionTo{Phase: "delegate"})
	r.idle = true
	r.repo.commit("topic", "docs/plan.md") // a planning document is not work
	rej := r.refuse(workflow.CodeGuardFailed, workflow.TransitionTo{Phase: "review"})
	if f := rej.FailedGuards[0]; f.Guard != workflow.GuardWorkCommitted || !strings.Contains(f.Fix, "git commit") {
		t.Fatalf("failure %+v", rej.FailedGuards)
	}
	if r.state.EnteredHead == "" {
		t.Fatal("the transition into delegate records the branch tip")
	}
	r.repo.commit("topic", "src/fix.go")
	r.must(workflow.TransitionTo{Phase: "review"})
}

// Issue 29: by default a verdict of the agent that did the work does not count; a reviewer
// subagent's, a human's (--human) do; reviewBy: agent keeps any verdict.
func TestReviewsByTheWorkerDoNotCount(t *testing.T) {
	r := featureToReview(t)
	r.env.Caller = workflow.Caller{Session: "s1"} // the main agent, who completed the tasks
	// Issue 38 item 4: its pass is refused when recorded, not recorded and then not counted.
	rej := r.refuse(workflow.CodeHumanDecision, workflow.RecordReview{Dimension: "spec", Pass: true})
	if !strings.Contains(rej.Message, "would not count") || !strings.Contains(rej.Message, "reviewer subagent") ||
		!strings.Contains(rej.Message, `ask the user to run: git exarchos review login spec pass --human --note "…"`) {
		t.Fatalf("refusal %s", rej.Message)
	}
	r.must(workflow.RecordReview{Dimension: "spec", Pass: false}) // a fail is recorded
	rej = r.refuse(workflow.CodeGuardFailed, workflow.TransitionTo{Phase: "synthesize"})
	if f := rej.FailedGuards[0]; !strings.Contains(f.Expected, "reviewer subagent") || !strings.Contains(f.Expected, "--human") {
		t.Fatalf("failure %+v", f)
	}
	// An agent's environment with no session named (another client's) is refused too.
	r.env.Caller, r.env.Agent = workflow.Caller{AgentType: "none"}, true // not the harness's default reviewer
	r.refuse(workflow.CodeHumanDecision, workflow.RecordReview{Dimension: "quality", Pass: true})
	r.env.Agent = false
	// A subagent that completed a task is the worker too.
	r.env.Caller = workflow.Caller{Session: "s1", Agent: "w1"}
	r.must(workflow.AddTask{ID: "t3"})
	r.must(workflow.CompleteTask{ID: "t3"})
	r.refuse(workflow.CodeHumanDecision, workflow.RecordReview{Dimension: "spec", Pass: true})
	r.refuse(workflow.CodeGuardFailed, workflow.TransitionTo{Phase: "synthesize"})
	// A human's verdict counts whoever did the work.
	r.must(workflow.RecordReview{Dimension: "spec", Pass: true, Human: true}, workflow.RecordReview{Dimension: "quality", Pass: true, Human: true})
	r.to("synthesize")

	// reviewBy: agent still chooses the old rule.
	a := featureToReview(t)
	a.defn, _ = workflow.Builtin("feature")
	a.defn = a.defn.Clone()
	a.defn.ReviewBy = "agent"
	a.env.Caller = workflow.Caller{Session: "s1"}
	a.must(workflow.RecordReview{Dimension: "spec", Pass: true}, workflow.RecordReview{Dimension: "quality", Pass: true})
	a.to("synthesize")
}
