package workflow_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/exarchos/git-exarchos/workflow"
)

func TestDebugThorough(t *testing.T) {
	r := newRun(t, "crash", "debug", workflow.Init{})
	r.must(workflow.Set{Inline: true, Assignments: []workflow.Assignment{{Path: "artifacts.triage", Value: json.RawMessage(`"segfault on empty input"`)}}})
	r.to("investigate")
	rej := r.refuse(workflow.CodeGuardFailed, workflow.TransitionTo{Phase: "rca"})
	if rej.FailedGuards[0].Fix != "git exarchos set crash track=thorough" {
		t.Fatalf("%+v", rej.FailedGuards)
	}
	r.refuse(workflow.CodeBadInput, workflow.Set{Assignments: []workflow.Assignment{{Path: "track", Value: []byte(`"sideways"`)}}})
	r.set("track=hotfix")
	r.refuse(workflow.CodeGuardFailed, workflow.TransitionTo{Phase: "rca"})
	r.set("track=thorough")
	r.to("thorough")
	r.phase("rca")
	r.artifact("rca")
	r.to("design")
	r.artifact("fix-design")
	r.to("debug-implement", "debug-validate")
	// A validation on an older commit does not count.
	r.validate(0)
	r.repo.commit("topic", "fix.go")
	rej = r.refuse(workflow.CodeGuardFailed, workflow.TransitionTo{Phase: "debug-review"})
	if !strings.Contains(rej.FailedGuards[0].Reason, "not on the branch tip") {
		t.Fatalf("%+v", rej.FailedGuards)
	}
	r.validate(1)
	rej = r.refuse(workflow.CodeGuardFailed, workflow.TransitionTo{Phase: "debug-review"})
	if !strings.Contains(rej.FailedGuards[0].Reason, "exited 1") {
		t.Fatalf("%+v", rej.FailedGuards)
	}
	r.validate(0)
	r.to("debug-review")
	// Two fix cycles, then the circuit opens (limit 2 for debug).
	for i := 0; i < 2; i++ {
		r.verdict("review", false)
		r.to("debug-implement", "debug-validate")
		r.validate(0)
		r.to("debug-review")
	}
	r.verdict("review", false)
	r.refuse(workflow.CodeCircuitOpen, workflow.TransitionTo{Phase: "debug-implement"})
	r.must(workflow.Unblock{Reason: "looked at it"})
	r.must(workflow.RecordReview{Dimension: "review", Pass: true})
	r.to("synthesize")
	r.linkPR("https://github.com/acme/app/pull/3")
	r.to("completed")
	r.checkReplay()
}

func TestDebugHotfixAndDirectFix(t *testing.T) {
	r := newRun(t, "crash", "debug", workflow.Init{})
	r.must(workflow.Set{Inline: true, Assignments: []workflow.Assignment{{Path: "artifacts.triage", Value: json.RawMessage(`"segfault on empty input"`)}}})
	r.to("investigate")
	r.set("track=hotfix")
	r.to("hotfix-implement", "hotfix-validate")
	r.validate(0)
	r.to("completed")

	r = newRun(t, "typo", "debug", workflow.Init{})
	r.artifact("triage")
	r.to("investigate")
	r.refuse(workflow.CodeGuardFailed, workflow.TransitionTo{Phase: "completed"})
	r.set("fixCommit=deadbeefdeadbeef")
	rej := r.refuse(workflow.CodeGuardFailed, workflow.TransitionTo{Phase: "completed"})
	if !strings.Contains(rej.FailedGuards[0].Reason, "is not on branch topic") {
		t.Fatalf("%+v", rej.FailedGuards)
	}
	sha := r.repo.commit("topic", "typo.txt")
	r.repo.commit("topic")
	r.set("fixCommit=" + sha)
	r.to("completed")

	// Escalation needs its reason, and ends through the cancel saga (issue 16 item 4).
	r = newRun(t, "big", "debug", workflow.Init{})
	r.artifact("triage")
	r.to("investigate")
	r.refuse(workflow.CodeGuardFailed, workflow.TransitionTo{Phase: "cancelled"})
	r.set(`escalation=needs the storage team`)
	r.to("cancelled")
	r.phase("cancelled")
	if r.state.Cancel == nil || r.state.Cancel.From != "investigate" || r.state.Reason != "escalated: needs the storage team" {
		t.Fatalf("cancel %+v reason %q", r.state.Cancel, r.state.Reason)
	}
	// With a task worktree, the escalation waits in cancelling for the saga's steps.
	r = newRun(t, "wide", "debug", workflow.Init{})
	r.artifact("triage")
	r.to("investigate")
	r.set(`escalation=upstream bug`)
	r.must(workflow.AddTask{ID: "t1"})
	r.must(worktreeOf(r, "t1", true))
	r.to("cancelled")
	r.phase("cancelling")
	if len(workflow.CompensationPlan(r.state)) == 0 {
		t.Fatal("no steps planned")
	}
}

func TestRefactorPolishAndOverhaul(t *testing.T) {
	r := newRun(t, "tidy", "refactor", workflow.Init{})
	r.artifact("scope")
	r.to("brief")
	r.artifact("brief")
	r.refuse(workflow.CodeGuardFailed, workflow.TransitionTo{Phase: "polish-implement"})
	r.set("track=polish")
	r.to("polish-implement", "polish-validate")
	r.validate(0)
	r.to("polish-update-docs")
	// The brief and the scope are the workflow's own: documentation means another file.
	r.refuse(workflow.CodeGuardFailed, workflow.TransitionTo{Phase: "completed"})
	r.repo.commit("topic", "docs/guide.md")
	r.to("completed")

	r = overhaulPlanned(t)
	r.to("overhaul-plan-review")
	r.must(workflow.Reject{Gaps: "no rollback"})
	r.phase("overhaul-plan")
	r.to("overhaul-plan-review")
	r.must(workflow.Approve{})
	r.to("overhaul-delegate")
	r.completeTasks("a")
	r.to("overhaul-review")
	for i := 0; i < 3; i++ {
		r.verdict("quality", false)
		r.to("overhaul-delegate", "overhaul-review")
	}
	r.verdict("quality", false)
	r.refuse(workflow.CodeCircuitOpen, workflow.TransitionTo{Phase: "overhaul-delegate"})
	r.must(workflow.Unblock{Reason: "looked at it"})
	r.must(workflow.RecordReview{Dimension: "quality", Pass: true})
	r.to("overhaul-update-docs", "synthesize")
	r.linkPR("https://github.com/acme/app/pull/9")
	r.to("completed")
	r.checkReplay()
}

func TestOneshotPolicies(t *testing.T) {
	for _, tc := range []struct {
		policy, request string
		want            string // the open exit of implementing
	}{
		{"always", "", "synthesize"},
		{"never", "", "completed"},
		{"on-request", "", "completed"},
		{"on-request", "please", "synthesize"},
		{"", "please", "synthesize"}, // on-request is the default
	} {
		t.Run(tc.policy+"/"+tc.request, func(t *testing.T) {
			r := newRun(t, "quick", "oneshot", workflow.Init{Synthesis: tc.policy})
			if tc.policy == "" && r.state.Synthesis != "on-request" {
				t.Fatalf("default policy %q", r.state.Synthesis)
			}
			r.refuse(workflow.CodeGuardFailed, workflow.TransitionTo{Phase: "implementing"}) // a plan first
			r.artifact("plan")
			r.to("implementing")
			if tc.request != "" {
				r.must(workflow.RequestSynthesis{Reason: tc.request})
			}
			other := map[string]string{"synthesize": "completed", "completed": "synthesize"}[tc.want]
			r.refuse(workflow.CodeGuardFailed, workflow.TransitionTo{Phase: other})
			open := 0
			for _, o := range workflow.Transitions(r.def(), r.state, r.env) {
				if !o.Universal && o.Allowed {
					open++
				}
			}
			if open != 1 {
				t.Fatalf("exactly one exit must be open, got %d", open)
			}
			r.to(tc.want)
			if tc.want == "synthesize" {
				r.linkPR("https://github.com/acme/app/pull/1")
				r.to("completed")
			}
			r.phase("completed")
			r.checkReplay()
		})
	}
	r := newRun(t, "quick", "oneshot", workflow.Init{Synthesis: "never"})
	r.refuse(workflow.CodeBadInput, workflow.RequestSynthesis{})
	if evs, rej := decide(newRun(t, "q", "oneshot", workflow.Init{Synthesis: "always"}).state, workflow.RequestSynthesis{}, r.env); evs != nil || rej != nil {
		t.Fatal("a request under policy always is a no-op")
	}
	_, rej := decide(workflow.State{}, workflow.Init{Feature: "x", Type: "oneshot", Branch: "b", Synthesis: "sometimes"}, r.env)
	if rej == nil || rej.Code != workflow.CodeBadInput {
		t.Fatalf("bad policy: %v", rej)
	}
}

// Issue 40 item 6: a synthesis request in synthesize is refused, as Exarchos refuses it, where it
// was a silent no-op: oneshot under each policy that reaches synthesize, and debug's hotfix.
func TestRequestSynthesisInSynthesizeRefused(t *testing.T) {
	for _, policy := range []string{"always", "on-request"} {
		r := newRun(t, "quick", "oneshot", workflow.Init{Synthesis: policy})
		r.artifact("plan")
		r.to("implementing")
		if policy == "on-request" {
			r.must(workflow.RequestSynthesis{Reason: "wants review"})
			r.must(workflow.RequestSynthesis{Reason: "asked twice before synthesize: still a no-op"})
		}
		r.to("synthesize")
		rej := r.refuse(workflow.CodeWrongPhase, workflow.RequestSynthesis{Reason: "again"})
		if !strings.Contains(rej.Message, "quick is already in synthesize") || !strings.Contains(rej.Message, "git exarchos pr link quick <url>") {
			t.Errorf("%s: %s", policy, rej.Message)
		}
	}
	r := newRun(t, "bug", "debug", workflow.Init{})
	r.artifact("triage")
	r.to("investigate")
	r.set("track=hotfix")
	r.to("hotfix-implement", "hotfix-validate")
	r.validate(0)
	r.must(workflow.RequestSynthesis{Reason: "ship it through a pull request"})
	r.to("synthesize")
	r.refuse(workflow.CodeWrongPhase, workflow.RequestSynthesis{Reason: "again"})
}

func TestDiscovery(t *testing.T) {
	r := newRun(t, "survey", "discovery", workflow.Init{})
	rej := r.refuse(workflow.CodeGuardFailed, workflow.TransitionTo{Phase: "synthesizing"})
	if !strings.Contains(rej.FailedGuards[0].Fix, "sources=") {
		t.Fatalf("%+v", rej.FailedGuards)
	}
	r.set(`sources=[]`)
	r.refuse(workflow.CodeGuardFailed, workflow.TransitionTo{Phase: "synthesizing"})
	r.set(`sources=["https://example.com/paper"]`)
	r.to("synthesizing")
	r.refuse(workflow.CodeGuardFailed, workflow.TransitionTo{Phase: "completed"})
	r.artifact("report")
	r.to("completed")
	r.checkReplay()
}

func loopRun(t *testing.T, policy string, max int) *run {
	r := newRun(t, "grind", "loop", workflow.Init{Completion: policy, MaxIterations: max})
	r.refuse(workflow.CodeWrongPhase, workflow.Signal{Signal: "done"})
	r.to("working")
	return r
}

func TestLoopCompletionPolicies(t *testing.T) {
	t.Run("reviewer-pass", func(t *testing.T) {
		r := loopRun(t, "", 0)
		if r.state.Completion != "reviewer-pass" || r.state.MaxIterations != 20 {
			t.Fatalf("defaults %q %d", r.state.Completion, r.state.MaxIterations)
		}
		r.refuse(workflow.CodeWrongPhase, workflow.Signal{Signal: "pass"})
		r.must(workflow.Signal{Signal: "done"})
		r.phase("reviewing")
		r.must(workflow.Signal{Signal: "fail"})
		r.phase("working")
		if r.state.Iterations != 2 {
			t.Fatalf("iterations %d", r.state.Iterations)
		}
		r.to("reviewing") // a hand-over without a done claim
		r.must(workflow.Signal{Signal: "pass"})
		r.phase("complete")
		r.checkReplay()
	})
	t.Run("worker-done", func(t *testing.T) {
		r := loopRun(t, "worker-done", 0)
		r.to("reviewing")
		r.must(workflow.Signal{Signal: "pass"}) // a pass alone does not complete
		r.phase("working")
		r.must(workflow.Signal{Signal: "done"})
		r.phase("complete")
	})
	t.Run("both", func(t *testing.T) {
		r := loopRun(t, "both", 0)
		r.to("reviewing")
		r.must(workflow.Signal{Signal: "pass"}) // no done in this iteration
		r.phase("working")
		r.must(workflow.Signal{Signal: "done"})
		r.phase("reviewing")
		r.must(workflow.Signal{Signal: "pass"})
		r.phase("complete")
		r.checkReplay()
	})
	r := newRun(t, "x", "feature", workflow.Init{})
	r.refuse(workflow.CodeBadInput, workflow.Signal{Signal: "done"})
	r.refuse(workflow.CodeBadInput, workflow.Signal{Signal: "maybe"})
}

func TestLoopIterationLimitFails(t *testing.T) {
	r := loopRun(t, "reviewer-pass", 3)
	for i := 1; i <= 3; i++ {
		if r.state.Iterations != i {
			t.Fatalf("iterations %d, want %d", r.state.Iterations, i)
		}
		r.must(workflow.Signal{Signal: "done"}, workflow.Signal{Signal: "fail"})
	}
	r.phase("failed")
	if !strings.Contains(r.state.Reason, "iterations limit reached (3 of 3)") {
		t.Fatalf("reason %q", r.state.Reason)
	}
	r.refuse(workflow.CodeFinalPhase, workflow.Signal{Signal: "done"})
	r.checkReplay()
}

func TestInitValidation(t *testing.T) {
	env := workflow.Env{Actor: "a"}
	for _, tc := range []struct {
		init workflow.Init
		code string
	}{
		{workflow.Init{Feature: "x", Type: "nope", Branch: "b"}, workflow.CodeUnknownType},
		{workflow.Init{Feature: "Bad Name", Type: "feature", Branch: "b"}, workflow.CodeBadInput},
		{workflow.Init{Feature: "x.lock", Type: "feature", Branch: "b"}, workflow.CodeBadInput},
		{workflow.Init{Feature: "x", Type: "feature"}, workflow.CodeBadInput},
		{workflow.Init{Feature: "x", Type: "feature", Branch: "b", MaxIterations: 3}, workflow.CodeBadInput},
		{workflow.Init{Feature: "x", Type: "feature", Branch: "b", Completion: "both"}, workflow.CodeBadInput},
		{workflow.Init{Feature: "x", Type: "loop", Branch: "b", MaxIterations: -1}, workflow.CodeBadInput},
	} {
		if _, rej := decide(workflow.State{}, tc.init, env); rej == nil || rej.Code != tc.code {
			t.Errorf("%+v: got %v, want %s", tc.init, rej, tc.code)
		}
	}
	r := newRun(t, "x", "feature", workflow.Init{})
	r.refuse(workflow.CodeAlreadyStarted, workflow.Init{Feature: "x", Type: "feature", Branch: "b"})
	if _, rej := decide(workflow.State{}, workflow.TransitionTo{Phase: "plan"}, env); rej == nil || rej.Code != workflow.CodeNotStarted {
		t.Fatalf("not started: %v", rej)
	}
}

// Issue 16 item 7: a target reached by two alternatives (synthesize → completed by its PR, or by
// the universal cleanup) is one row of `transitions`, open when either is.
func TestTransitionsListEachTargetOnce(t *testing.T) {
	r := newRun(t, "quick", "oneshot", workflow.Init{Synthesis: "always"})
	r.artifact("plan")
	r.to("implementing", "synthesize")
	rows := func() map[string]workflow.TransitionOption {
		seen := map[string]workflow.TransitionOption{}
		for _, o := range workflow.Transitions(r.def(), r.state, r.env) {
			if _, dup := seen[o.To+" "+o.Command]; dup {
				t.Fatalf("%s listed twice", o.To)
			}
			seen[o.To+" "+o.Command] = o
		}
		return seen
	}
	done := rows()["completed git exarchos transition quick completed"]
	if done.Allowed || len(done.Guards) == 0 || done.Guards[0].Guard != "pr-url-exists" {
		t.Fatalf("before the PR: %+v", done)
	}
	r.linkPR("https://github.com/acme/app/pull/1")
	if done := rows()["completed git exarchos transition quick completed"]; !done.Allowed {
		t.Fatalf("with the PR: %+v", done)
	}
}

// The loop's failed row is taken by `loop fail` (the send-back past the limit), not `loop pass`.
func TestLoopFailedRowNamesLoopFail(t *testing.T) {
	r := loopRun(t, "reviewer-pass", 1)
	r.must(workflow.Signal{Signal: "done"})
	var rows []string
	for _, o := range workflow.Transitions(r.def(), r.state, r.env) {
		if o.To == "failed" {
			rows = append(rows, o.Command)
		}
	}
	if want := []string{"git exarchos loop fail-now grind --reason \"…\"", "git exarchos loop fail grind"}; !slices.Equal(rows, want) {
		t.Fatalf("failed rows: %q", rows)
	}
}

// Issue 16 item 4: synthesis retries in debug (back to the track's implement phase) and refactor
// (back to overhaul-delegate), within the limit.
func TestSynthesisRetriesDebugAndRefactor(t *testing.T) {
	r := newRun(t, "hot", "debug", workflow.Init{})
	r.artifact("triage")
	r.to("investigate")
	r.set("track=hotfix")
	hotfixToSynthesize(r)
	r.refuse(workflow.CodeGuardFailed, workflow.TransitionTo{Phase: "debug-implement"}) // not this track
	for i := 0; i < 3; i++ {
		hotfixToSynthesize(r)
	}
	rej := r.refuse(workflow.CodeLimitReached, workflow.TransitionTo{Phase: "hotfix-implement"})
	if !strings.Contains(rej.Message, "workflows.debug.synthesisRetries") {
		t.Fatal(rej.Message)
	}
	r.checkReplay()

	r = newRun(t, "deep", "debug", workflow.Init{})
	r.artifact("triage")
	r.to("investigate")
	r.set("track=thorough")
	r.to("rca")
	r.artifact("rca")
	r.to("design")
	r.artifact("fix-design")
	r.to("debug-implement", "debug-validate")
	r.validate(0)
	r.to("debug-review")
	r.must(workflow.RecordReview{Dimension: "review", Pass: true})
	r.to("synthesize")
	r.synthesisFails()
	r.to("debug-implement")
	if r.state.Retries != 1 {
		t.Fatalf("retries %d", r.state.Retries)
	}

	r = overhaulPlanned(t)
	r.to("overhaul-plan-review")
	r.must(workflow.Approve{})
	r.to("overhaul-delegate")
	r.completeTasks("a")
	r.to("overhaul-review")
	r.must(workflow.RecordReview{Dimension: "quality", Pass: true})
	r.to("overhaul-update-docs", "synthesize")
	r.synthesisFails()
	r.to("overhaul-delegate")
	if r.state.Retries != 1 {
		t.Fatalf("retries %d", r.state.Retries)
	}
	r.checkReplay()
}

// Issue 16 item 4: refactor's plan review blocks after the revision limit; a human unblocks it
// into overhaul-delegate.
func TestRefactorPlanReviewBlocksAfterRevisionLimit(t *testing.T) {
	r := overhaulPlanned(t)
	for i := 0; i < 3; i++ {
		r.to("overhaul-plan-review")
		r.must(workflow.Reject{Gaps: "still vague"})
		r.phase("overhaul-plan")
	}
	r.to("overhaul-plan-review")
	r.must(workflow.Reject{Gaps: "still vague"})
	r.phase("blocked")
	r.refuse(workflow.CodeInvalidTransition, workflow.TransitionTo{Phase: "overhaul-delegate"})
	r.must(workflow.Unblock{Reason: "good enough; I take the risk"})
	r.phase("overhaul-delegate")
	r.checkReplay()
}

// overhaulPlanned is a refactor on the overhaul track with its plan recorded.
func overhaulPlanned(t *testing.T) *run {
	r := newRun(t, "rewrite", "refactor", workflow.Init{})
	r.artifact("scope")
	r.to("brief")
	r.artifact("brief")
	r.set("track=overhaul")
	r.to("overhaul-plan")
	r.artifact("plan")
	return r
}

// hotfixToSynthesize takes a debug workflow on the hotfix track to synthesize.
func hotfixToSynthesize(r *run) {
	r.to("hotfix-implement", "hotfix-validate")
	r.validate(0)
	r.must(workflow.RequestSynthesis{Reason: "ship it through a pull request"})
	r.to("synthesize")
	r.synthesisFails()
}

// Issue 16 item 5: agentpair's loop -- the any policy, fail-now, and failure from init and working.
func TestLoopAnyFailNowAndErrors(t *testing.T) {
	r := loopRun(t, "any", 0)
	r.must(workflow.Signal{Signal: "done"}) // the worker's done completes under any
	r.phase("complete")

	r = loopRun(t, "any", 0)
	r.to("reviewing")
	r.must(workflow.Signal{Signal: "pass"}) // so does the reviewer's pass
	r.phase("complete")

	r = loopRun(t, "reviewer-pass", 0)
	r.refuse(workflow.CodeBadInput, workflow.Signal{Signal: "fail-now"}) // a reason is required
	r.must(workflow.Signal{Signal: "done"})
	r.must(workflow.Signal{Signal: "fail-now", Reason: "the approach cannot work"})
	r.phase("failed")
	if r.state.Reason != "loop fail-now (iteration 1): the approach cannot work" {
		t.Fatalf("reason %q", r.state.Reason)
	}
	r.checkReplay()

	r = newRun(t, "grind", "loop", workflow.Init{})
	r.refuse(workflow.CodeWrongPhase, workflow.Signal{Signal: "fail-now", Reason: "x"}) // nothing runs yet
	r.must(workflow.Signal{Signal: "error", Reason: "the worker did not start"})
	r.phase("failed")
	if !strings.Contains(r.state.Reason, "the worker did not start") {
		t.Fatalf("reason %q", r.state.Reason)
	}

	r = loopRun(t, "", 0)
	r.must(workflow.Signal{Signal: "error", Reason: "agent crashed"})
	r.phase("failed")
	r = loopRun(t, "", 0)
	r.to("reviewing")
	r.refuse(workflow.CodeWrongPhase, workflow.Signal{Signal: "error", Reason: "x"})
	r.refuse(workflow.CodeBadInput, workflow.Signal{Signal: "maybe"})

	r = loopRun(t, "", 5)
	if got := workflow.Summary(r.def(), r.state, r.env); !strings.Contains(got, "iteration 1 of 5") {
		t.Fatalf("summary %q", got)
	}
}
