package workflow_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/exarchos/git-exarchos/workflow"
)

func feature(t *testing.T) *workflow.Definition {
	def, ok := workflow.Builtin("feature")
	if !ok {
		t.Fatal("no feature definition")
	}
	return def
}

func mustEvent(t *testing.T, seq int64, typ string, data any) workflow.Event {
	t.Helper()
	e, err := workflow.NewEvent{Type: typ, Data: data}.Stamp("e"+string(rune('a'+seq)), seq, time.Unix(int64(seq), 0), "git-config-name", uint64(seq))
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// The fold gives a decision effect by its verdict: none (unsigned mode) counts as before, a good
// one counts under the signer's principal, a bad one is kept as refused and changes nothing else.
func TestFoldDecidesWhatADecisionIsWorth(t *testing.T) {
	start := mustEvent(t, 1, workflow.EventStarted, workflow.StartedData{Feature: "f", Type: "feature", Branch: "f", Phase: "ideate"})
	toPlan := mustEvent(t, 2, workflow.EventTransitioned, workflow.TransitionedData{From: "ideate", To: "plan"})
	toReview := mustEvent(t, 3, workflow.EventTransitioned, workflow.TransitionedData{From: "plan", To: "plan-review"})
	approve := mustEvent(t, 4, workflow.EventPlanApproved, workflow.DecisionData{Phase: "plan-review", Actor: "Jane Lead"})
	reject := mustEvent(t, 5, workflow.EventPlanRejected, workflow.DecisionData{Phase: "plan-review", Gaps: "x", Actor: "Jane Lead"})
	back := mustEvent(t, 6, workflow.EventTransitioned, workflow.TransitionedData{From: "plan-review", To: "plan", Trigger: workflow.OnReject})
	base := []workflow.Event{start, toPlan, toReview}
	with := func(v *workflow.Verdict, evs ...workflow.Event) workflow.State {
		all := append([]workflow.Event{}, base...)
		for _, e := range evs {
			e.Verdict = v
			all = append(all, e)
		}
		// Non-decisions are untouched by a verdict, refused or not.
		for i := range base {
			all[i].Verdict = v
		}
		return workflow.Fold(feature(t), workflow.State{}, all)
	}

	s := with(nil, approve)
	if len(s.Approvals) != 1 || s.Approvals[0].Actor != "Jane Lead" || len(s.Refused) != 0 {
		t.Fatalf("unsigned mode: %+v %+v", s.Approvals, s.Refused)
	}
	s = with(&workflow.Verdict{OK: true, Principal: "alice@example.com"}, approve)
	if len(s.Approvals) != 1 || s.Approvals[0].Actor != "alice@example.com" {
		t.Fatalf("signed: %+v", s.Approvals)
	}
	bad := &workflow.Verdict{Reason: "unsigned"}
	s = with(bad, approve)
	if len(s.Approvals) != 0 || len(s.Refused) != 1 || s.Refused[0].Kind != workflow.KindApprove || s.Events != 4 {
		t.Fatalf("refused approve: %+v %+v", s.Approvals, s.Refused)
	}
	// A refused reject moves nothing back: its transition is a decision too.
	s = with(bad, reject, back)
	if s.Phase != "plan-review" || s.Revisions != 0 || len(s.Refused) != 2 {
		t.Fatalf("refused reject: phase %s revisions %d refused %+v", s.Phase, s.Revisions, s.Refused)
	}
	// The snapshot round-trips the refusals; Verdict itself is never serialized.
	b, _ := json.Marshal(s)
	if !strings.Contains(string(b), `"refused":[`) {
		t.Fatalf("state JSON %s", b)
	}
	eb, _ := json.Marshal(approve)
	approve.Verdict = bad
	if eb2, _ := json.Marshal(approve); string(eb) != string(eb2) {
		t.Fatalf("verdict serialized: %s", eb2)
	}
}

// A cancel is free while the workflow plans, and a decision once it builds.
func TestCancelNeedsASignaturePastPlanning(t *testing.T) {
	start := mustEvent(t, 1, workflow.EventStarted, workflow.StartedData{Feature: "f", Type: "feature", Branch: "f", Phase: "ideate"})
	cancel := mustEvent(t, 2, workflow.EventCancelled, workflow.CancelledData{From: "ideate", To: "cancelled"})
	cancel.Verdict = &workflow.Verdict{Reason: "unsigned"}
	if s := workflow.Fold(feature(t), workflow.State{}, []workflow.Event{start, cancel}); s.Phase != "cancelled" {
		t.Fatalf("cancel while planning: %s %+v", s.Phase, s.Refused)
	}
	s := workflow.State{}
	s = workflow.Fold(feature(t), s, []workflow.Event{start})
	s.Phase = "delegate"
	cancel.Data = json.RawMessage(`{"from":"delegate","to":"cancelled"}`)
	if s = workflow.Apply(feature(t), s, cancel); s.Phase != "delegate" || len(s.Refused) != 1 {
		t.Fatalf("unsigned cancel while building: %s %+v", s.Phase, s.Refused)
	}
}

// The signed payload binds feature, id, type, data, time and head: change any and it differs.
func TestSigningPayloadBindsEverything(t *testing.T) {
	e := mustEvent(t, 4, workflow.EventPlanApproved, workflow.DecisionData{Phase: "plan-review"})
	p := string(workflow.SigningPayload("f", e, "abc"))
	variants := []string{string(workflow.SigningPayload("g", e, "abc")), string(workflow.SigningPayload("f", e, "abd"))}
	for _, mod := range []func(*workflow.Event){
		func(x *workflow.Event) { x.ID = "other" },
		func(x *workflow.Event) { x.Type = workflow.EventPlanRejected },
		func(x *workflow.Event) { x.Data = json.RawMessage(`{"phase":"plan"}`) },
		func(x *workflow.Event) { x.Time = x.Time.Add(time.Millisecond) },
	} {
		c := e
		mod(&c)
		variants = append(variants, string(workflow.SigningPayload("f", c, "abc")))
	}
	for i, v := range variants {
		if v == p {
			t.Fatalf("variant %d signs the same bytes: %s", i, v)
		}
	}
	// Seq, clock and the header's actor change on merges or are unproven: not signed.
	c := e
	c.Seq, c.Clock, c.Actor = 99, 99, "someone"
	if string(workflow.SigningPayload("f", c, "abc")) != p {
		t.Fatal("payload depends on seq, clock or actor")
	}
}
