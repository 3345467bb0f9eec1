package workflow_test

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/exarchos/git-exarchos/guards"
	"github.com/exarchos/git-exarchos/workflow"
)

// fanoutDef: checks runs test and lint in parallel and joins into review; fix is the other way
// out of checks (and back into it).
func fanoutDef() *workflow.Definition {
	return &workflow.Definition{Type: "staged", Initial: "build",
		Phases: []workflow.Phase{
			{ID: "build", Kind: workflow.Normal},
			{ID: "checks", Kind: workflow.Normal, Tools: workflow.Envelope{Deny: []string{"WebFetch"}}},
			{ID: "fix", Kind: workflow.Normal},
			{ID: "review", Kind: workflow.Normal},
			{ID: "done", Kind: workflow.Final},
		},
		Stages: []workflow.Stage{
			{ID: "test", Tools: workflow.Envelope{AllowedTools: []string{"Read", "Bash(go test:*)"}, Completion: json.RawMessage(`{"type":"object","required":["passed"]}`)}},
			{ID: "lint", Tools: workflow.Envelope{AllowedTools: []string{"Read", "Bash(golangci-lint:*)"}}},
		},
		Fanouts: []workflow.Fanout{{Phase: "checks", Stages: []string{"test", "lint"}, Join: "review"}},
		Transitions: []workflow.Transition{
			{From: "build", To: "checks"},
			{From: "checks", To: "review"},
			{From: "checks", To: "fix"},
			{From: "fix", To: "checks"},
			{From: "review", To: "done"},
		},
	}
}

func newFanoutRun(t *testing.T) *run {
	t.Helper()
	r := &run{t: t, repo: newFakeRepo("topic"), defn: fanoutDef()}
	if err := r.defn.Validate(); err != nil {
		t.Fatal(err)
	}
	r.env = workflow.Env{Actor: "alice", Guards: &guards.Evaluator{Facts: r.repo}}
	r.must(workflow.Init{Feature: "f", Type: "staged", Branch: "topic", ForkPoint: r.repo.tips["topic"]})
	r.to("checks")
	return r
}

// replayFanout: folding the log at once, in chunks, and through Apply give the same bytes.
func replayFanout(r *run) {
	r.t.Helper()
	ds, err := workflow.NewDefinitions(r.defn)
	if err != nil {
		r.t.Fatal(err)
	}
	want, _ := json.Marshal(r.state)
	all, err := workflow.Project(ds, nil, r.log)
	if err != nil || !bytes.Equal(all, want) {
		r.t.Fatalf("fold all differs from incremental Apply (%v):\n%s\n%s", err, all, want)
	}
	var snap json.RawMessage
	for i := range r.log {
		if snap, err = workflow.Project(ds, snap, r.log[i:i+1]); err != nil {
			r.t.Fatal(err)
		}
	}
	if !bytes.Equal(snap, all) {
		r.t.Fatalf("fold one by one differs:\n%s\n%s", snap, all)
	}
}

func statuses(r *run) string {
	var parts []string
	for _, st := range r.state.StageStatuses(r.defn) {
		parts = append(parts, st.Stage+"="+st.Status)
	}
	return strings.Join(parts, " ")
}

func TestFanoutStagesJoin(t *testing.T) {
	payload := json.RawMessage(`{"passed":true}`)
	for _, tc := range []struct {
		name string
		cmds []workflow.Command
		// want: the stages' statuses after cmds; join: whether checks → review then passes
		want string
		join bool
	}{
		{"entered: every stage running", nil, "test=running lint=running", false},
		{"one completed", []workflow.Command{workflow.CompleteStage{Stage: "lint"}}, "test=running lint=completed", false},
		{"both completed, in any order", []workflow.Command{workflow.CompleteStage{Stage: "lint"}, workflow.CompleteStage{Stage: "test", Payload: payload, SHA256: "x"}}, "test=completed lint=completed", true},
		{"a failure cancels the running sibling", []workflow.Command{workflow.FailStage{Stage: "test", Reason: "TestX fails"}}, "test=failed lint=cancelled", false},
		{"a failure after a sibling completed leaves it completed", []workflow.Command{workflow.CompleteStage{Stage: "lint"}, workflow.FailStage{Stage: "test", Reason: "red"}}, "test=failed lint=completed", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newFanoutRun(t)
			r.must(tc.cmds...)
			if got := statuses(r); got != tc.want {
				t.Fatalf("stages: %s, want %s", got, tc.want)
			}
			rej := r.do(workflow.TransitionTo{Phase: "review"})
			if tc.join != (rej == nil) {
				t.Fatalf("join passed = %v, want %v (%v)", rej == nil, tc.join, rej)
			}
			if rej != nil && (rej.Code != workflow.CodeGuardFailed || len(rej.FailedGuards) == 0 || rej.FailedGuards[0].Guard != workflow.GuardStagesCompleted) {
				t.Fatalf("refusal: %+v", rej)
			}
			replayFanout(r)
		})
	}
}

func TestFanoutGuardFixes(t *testing.T) {
	r := newFanoutRun(t)
	rej := r.refuse(workflow.CodeGuardFailed, workflow.TransitionTo{Phase: "review"})
	if f := rej.FailedGuards[0]; f.Fix != "git exarchos stage done f test" || !strings.Contains(f.Reason, "test, lint still running") {
		t.Fatalf("running: %+v", f)
	}
	r.must(workflow.FailStage{Stage: "lint", Reason: "vet"})
	rej = r.refuse(workflow.CodeGuardFailed, workflow.TransitionTo{Phase: "review"})
	if f := rej.FailedGuards[0]; f.Fix != "git exarchos transitions f" || !strings.Contains(f.Reason, "stage lint failed (vet)") {
		t.Fatalf("failed: %+v", f)
	}
}

// The siblings a failure cancelled refuse what they hand in later, and so does a closed stage.
func TestFanoutRefusals(t *testing.T) {
	payload := json.RawMessage(`{"passed":true}`)
	for _, tc := range []struct {
		name   string
		before []workflow.Command
		cmd    workflow.Command
		code   string
		msg    string
	}{
		{"cancelled sibling's completion", []workflow.Command{workflow.FailStage{Stage: "lint", Reason: "vet"}}, workflow.CompleteStage{Stage: "test", Payload: payload}, workflow.CodeStageCancelled, "stage test of f was cancelled when stage lint failed (vet)"},
		{"cancelled sibling's failure", []workflow.Command{workflow.FailStage{Stage: "lint", Reason: "vet"}}, workflow.FailStage{Stage: "test", Reason: "late"}, workflow.CodeStageCancelled, "nothing test hands in counts"},
		{"completed again with another completion", []workflow.Command{workflow.CompleteStage{Stage: "test", Payload: payload, SHA256: "a"}}, workflow.CompleteStage{Stage: "test", Payload: payload, SHA256: "b"}, workflow.CodeStageClosed, "already completed"},
		{"failed after it completed", []workflow.Command{workflow.CompleteStage{Stage: "lint"}}, workflow.FailStage{Stage: "lint", Reason: "late"}, workflow.CodeStageClosed, "already completed"},
		{"failed then completed", []workflow.Command{workflow.FailStage{Stage: "lint", Reason: "vet"}}, workflow.CompleteStage{Stage: "lint"}, workflow.CodeStageClosed, "already failed"},
		{"unknown stage", nil, workflow.CompleteStage{Stage: "tset"}, workflow.CodeBadInput, `runs the stages test, lint, not "tset" (did you mean test?)`},
		{"completion missing", nil, workflow.CompleteStage{Stage: "test"}, workflow.CodeBadInput, "git exarchos stage done f test --file <payload.json>"},
		{"completion where there is no schema", nil, workflow.CompleteStage{Stage: "lint", Payload: payload}, workflow.CodeBadInput, "no completion schema"},
		{"failure without a reason", nil, workflow.FailStage{Stage: "test", Reason: " "}, workflow.CodeBadInput, "--reason"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newFanoutRun(t)
			r.must(tc.before...)
			n := len(r.log)
			rej := r.refuse(tc.code, tc.cmd)
			if !strings.Contains(rej.Message, tc.msg) {
				t.Fatalf("message %q lacks %q", rej.Message, tc.msg)
			}
			if len(r.log) != n {
				t.Fatalf("a refusal recorded %d event(s)", len(r.log)-n)
			}
		})
	}
	// Outside the fan-out phase: the stage's phase is named.
	r := newFanoutRun(t)
	r.to("fix")
	if rej := r.refuse(workflow.CodeWrongPhase, workflow.CompleteStage{Stage: "lint"}); !strings.Contains(rej.Message, "stage lint runs in phase checks") {
		t.Fatal(rej.Message)
	}
}

// The same completion again (a retry whose answer was lost) records nothing and is no error.
func TestFanoutCompletionRetried(t *testing.T) {
	r := newFanoutRun(t)
	done := workflow.CompleteStage{Stage: "test", Payload: json.RawMessage(`{"passed":true}`), SHA256: "a"}
	r.must(done)
	n := len(r.log)
	r.must(done, workflow.CompleteStage{Stage: "lint"}, workflow.CompleteStage{Stage: "lint"})
	if len(r.log) != n+1 {
		t.Fatalf("%d event(s) recorded, want 1 (lint's)", len(r.log)-n)
	}
}

// The failure and the cancellations are one write, recorded as events; a completion merged in
// after them (another clone) is a conflict, not a completed stage.
func TestFanoutCancellationRecordedAndStrictInTheFold(t *testing.T) {
	r := newFanoutRun(t)
	r.must(workflow.FailStage{Stage: "test", Reason: "red"})
	var types []string
	for _, e := range r.log[len(r.log)-2:] {
		types = append(types, e.Type)
	}
	if !slices.Equal(types, []string{workflow.EventStageFailed, workflow.EventStageCancelled}) {
		t.Fatalf("events %v", types)
	}
	var d workflow.StageData
	if err := r.log[len(r.log)-1].DecodeData(&d); err != nil || d.Stage != "lint" || d.Cause != "test" {
		t.Fatalf("cancellation %+v %v", d, err)
	}
	// A completion of lint decided on a clone that had not seen the failure, merged in after it.
	r.append([]workflow.NewEvent{{Type: workflow.EventStageCompleted, Data: workflow.StageData{Phase: "checks", Stage: "lint"}}})
	if got := statuses(r); got != "test=failed lint=cancelled" {
		t.Fatalf("stages %s", got)
	}
	if n := len(r.state.Conflicts); n != 1 || !strings.Contains(r.state.Conflicts[0].Reason, "stage lint is cancelled") {
		t.Fatalf("conflicts %+v", r.state.Conflicts)
	}
	replayFanout(r)
}

// Leaving the fan-out and coming back runs every stage afresh; a stage event for another phase
// is a conflict.
func TestFanoutReentryRunsAfresh(t *testing.T) {
	r := newFanoutRun(t)
	r.must(workflow.FailStage{Stage: "test", Reason: "red"})
	r.to("fix")
	if r.state.Fanout != nil {
		t.Fatalf("run kept outside the fan-out: %+v", r.state.Fanout)
	}
	r.append([]workflow.NewEvent{{Type: workflow.EventStageCompleted, Data: workflow.StageData{Phase: "checks", Stage: "test"}}})
	if len(r.state.Conflicts) != 1 {
		t.Fatalf("conflicts %+v", r.state.Conflicts)
	}
	r.to("checks")
	if got := statuses(r); got != "test=running lint=running" {
		t.Fatalf("stages %s", got)
	}
	r.must(workflow.CompleteStage{Stage: "test", Payload: json.RawMessage(`{"passed":true}`)}, workflow.CompleteStage{Stage: "lint"})
	r.to("review")
	if a := r.state.Artifacts[workflow.StageArtifact("test")]; a.Text != `{"passed":true}` || !a.Inline {
		t.Fatalf("completion artifact %+v", a)
	}
	replayFanout(r)
}

// The hook's envelope while stages run: the union of the running stages' envelopes, the phase's
// own refusals on top; a finished stage's tools drop out; none running: the phase's own.
func TestFanoutPolicyIn(t *testing.T) {
	r := newFanoutRun(t)
	def := r.defn
	pol := def.EnvelopeIn(r.state)
	if !slices.Equal(pol.AllowedTools, []string{"Read", "Bash(go test:*)", "Bash(golangci-lint:*)"}) || !slices.Equal(pol.Deny, []string{"WebFetch"}) {
		t.Fatalf("both running: %+v", pol)
	}
	r.must(workflow.CompleteStage{Stage: "test", Payload: json.RawMessage(`{"passed":true}`)})
	if pol := def.EnvelopeIn(r.state); !slices.Equal(pol.AllowedTools, []string{"Read", "Bash(golangci-lint:*)"}) {
		t.Fatalf("lint running: %+v", pol)
	}
	r.must(workflow.CompleteStage{Stage: "lint"})
	if pol := def.EnvelopeIn(r.state); pol.AllowedTools != nil || !slices.Equal(pol.Deny, []string{"WebFetch"}) {
		t.Fatalf("none running: %+v", pol)
	}
	// Outside a fan-out phase: the phase's own policy.
	r.to("review")
	if pol := def.EnvelopeIn(r.state); !pol.Empty() {
		t.Fatalf("review: %+v", pol)
	}
}

func TestFanoutUnionOfEnvelopes(t *testing.T) {
	def := fanoutDef()
	s := workflow.State{Phase: "checks"}
	for _, tc := range []struct {
		name       string
		test, lint workflow.Envelope
		want       workflow.Envelope
	}{
		{"one stage without an allow-list allows every tool", workflow.Envelope{AllowedTools: []string{"Read"}}, workflow.Envelope{}, workflow.Envelope{Deny: []string{"WebFetch"}}},
		{"no tools in both: none", workflow.Envelope{NoTools: true}, workflow.Envelope{NoTools: true}, workflow.Envelope{NoTools: true, Deny: []string{"WebFetch"}}},
		{"no tools in one: the other's", workflow.Envelope{NoTools: true}, workflow.Envelope{AllowedTools: []string{"Grep"}}, workflow.Envelope{AllowedTools: []string{"Grep"}, Deny: []string{"WebFetch"}}},
		{"denied only where every stage denies", workflow.Envelope{Deny: []string{"Edit", "Write"}}, workflow.Envelope{Deny: []string{"Write"}}, workflow.Envelope{Deny: []string{"Write", "WebFetch"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			def.Stages[0].Tools, def.Stages[1].Tools = tc.test, tc.lint
			got := def.EnvelopeIn(s)
			if !slices.Equal(got.AllowedTools, tc.want.AllowedTools) || !slices.Equal(got.Deny, tc.want.Deny) || got.NoTools != tc.want.NoTools {
				t.Fatalf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestFanoutProblems(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(d *workflow.Definition)
		want string
	}{
		{"fan-out names an unknown stage", func(d *workflow.Definition) { d.Fanouts[0].Stages = []string{"test", "lnt"} }, `runs stage "lnt", which is not declared under stages: (did you mean lint?)`},
		{"empty parallel set", func(d *workflow.Definition) { d.Fanouts[0].Stages = nil }, "fan-out checks runs no stages"},
		{"stage in two fan-outs", func(d *workflow.Definition) {
			d.Fanouts = append(d.Fanouts, workflow.Fanout{Phase: "fix", Stages: []string{"lint"}, Join: "checks"})
		}, "stage lint is in two fan-outs (checks and fix)"},
		{"stage named twice in one", func(d *workflow.Definition) { d.Fanouts[0].Stages = []string{"test", "lint", "test"} }, "names stage test twice"},
		{"join names an unknown phase", func(d *workflow.Definition) { d.Fanouts[0].Join = "reveiw" }, `joins into unknown phase "reveiw" (did you mean review?)`},
		{"join is a stage", func(d *workflow.Definition) { d.Fanouts[0].Join = "lint" }, "joins into lint, which is a stage"},
		{"join into itself", func(d *workflow.Definition) { d.Fanouts[0].Join = "checks" }, "joins into itself"},
		{"no join", func(d *workflow.Definition) { d.Fanouts[0].Join = "" }, "joins nowhere"},
		{"fan-out phase unknown", func(d *workflow.Definition) { d.Fanouts[0].Phase = "chekcs" }, `fan-out phase "chekcs" is not defined (did you mean checks?)`},
		{"fan-out phase final", func(d *workflow.Definition) { d.Fanouts[0].Phase = "done" }, "fan-out phase done is a final phase"},
		{"two fan-outs on one phase", func(d *workflow.Definition) {
			d.Stages = append(d.Stages, workflow.Stage{ID: "vet"})
			d.Fanouts = append(d.Fanouts, workflow.Fanout{Phase: "checks", Stages: []string{"vet"}, Join: "review"})
		}, "phase checks has two fan-outs"},
		{"joins in a cycle", func(d *workflow.Definition) {
			d.Stages = append(d.Stages, workflow.Stage{ID: "vet"})
			d.Fanouts[0].Join = "fix"
			d.Fanouts = append(d.Fanouts, workflow.Fanout{Phase: "fix", Stages: []string{"vet"}, Join: "checks"})
		}, "the fan-outs join in a cycle (checks → fix → checks)"},
		{"stage in no fan-out", func(d *workflow.Definition) { d.Stages = append(d.Stages, workflow.Stage{ID: "vet"}) }, "stage vet is in no fan-out"},
		{"stage with a phase's id", func(d *workflow.Definition) { d.Stages[1].ID, d.Fanouts[0].Stages[1] = "fix", "fix" }, "stage fix has the id of a phase"},
		{"stage declared twice", func(d *workflow.Definition) { d.Stages = append(d.Stages, workflow.Stage{ID: "lint"}) }, "stage lint is declared twice"},
		{"stage with a turn cap", func(d *workflow.Definition) { d.Stages[0].Tools.TurnCap = 5 }, "stage test: a stage has no turn cap of its own"},
		{"stage with exceptions from nothing", func(d *workflow.Definition) { d.Stages[1].Tools = workflow.Envelope{ExceptArtifacts: []string{"plan"}} }, "stage lint: exceptArtifacts without deny"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := fanoutDef()
			tc.edit(d)
			var msgs []string
			for _, p := range d.FanoutProblems() {
				msgs = append(msgs, p.Message)
			}
			if !slices.ContainsFunc(msgs, func(m string) bool { return strings.Contains(m, tc.want) }) {
				t.Fatalf("problems %q lack %q", msgs, tc.want)
			}
			if err := d.Validate(); err == nil {
				t.Fatal("Validate accepted it")
			}
		})
	}
	if ps := fanoutDef().FanoutProblems(); len(ps) != 0 {
		t.Fatalf("the good definition: %+v", ps)
	}
}

// describe's text and the Mermaid diagram show the fan-out and its join.
func TestFanoutRendered(t *testing.T) {
	d := fanoutDef()
	m := d.Mermaid()
	for _, want := range []string{"state checks_fork <<fork>>", "checks --> checks_fork", "checks_fork --> test", "checks_fork --> lint",
		"state checks_join <<join>>", "test --> checks_join", "lint --> checks_join", "checks_join --> review : [stages-completed]"} {
		if !strings.Contains(m, want) {
			t.Fatalf("mermaid lacks %q:\n%s", want, m)
		}
	}
	if strings.Contains(m, "checks --> review") {
		t.Fatalf("the join drawn as a plain edge too:\n%s", m)
	}
	txt := d.Text()
	for _, want := range []string{"fan-outs:", "  checks (refuses WebFetch; runs the stages test, lint in parallel, joins into review)\n", "checks runs test, lint in parallel (a failure cancels the others), then joins into review [stages-completed]",
		"stage test (allows only Read, Bash(go test:*); completion schema (git exarchos stage done))"} {
		if !strings.Contains(txt, want) {
			t.Fatalf("text lacks %q:\n%s", want, txt)
		}
	}
}

// A cancel ends the run: no stage is running in the cancelling phase, nor is one kept.
func TestFanoutCancelEndsTheRun(t *testing.T) {
	def := fanoutDef()
	def.Phases = append(def.Phases, workflow.Phase{ID: "cancelling", Kind: workflow.Normal}, workflow.Phase{ID: "cancelled", Kind: workflow.Final})
	def.Transitions = append(def.Transitions, workflow.Transition{From: workflow.AnyPhase, To: "cancelling", On: []workflow.Trigger{workflow.OnCancel}},
		workflow.Transition{From: "cancelling", To: "cancelled", On: []workflow.Trigger{workflow.OnCancel}})
	r := &run{t: t, repo: newFakeRepo("topic"), defn: def}
	r.env = workflow.Env{Actor: "alice", Guards: &guards.Evaluator{Facts: r.repo}}
	r.must(workflow.Init{Feature: "f", Type: "staged", Branch: "topic", ForkPoint: r.repo.tips["topic"]})
	r.to("checks")
	r.must(workflow.Cancel{Reason: "no longer needed", Human: true})
	if r.state.Phase != "cancelling" && r.state.Phase != "cancelled" {
		t.Fatalf("phase %s", r.state.Phase)
	}
	if r.state.Fanout != nil || len(r.state.RunningStages(def)) != 0 {
		t.Fatalf("run kept after cancel: %+v", r.state.Fanout)
	}
	replayFanout(r)
}
