package workflow_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/exarchos/git-exarchos/workflow"
)

func TestSetFields(t *testing.T) {
	r := newRun(t, "login", "feature", workflow.Init{})
	r.set(`owner=bob`, `limits.retries=3`, `limits.big=12345678901234567890`, `meta={"b":1,"a":[true,null]}`)
	if got := string(r.state.Fields); got != `{"limits":{"big":12345678901234567890,"retries":3},"meta":{"b":1,"a":[true,null]},"owner":"bob"}` {
		t.Fatalf("fields %s", got)
	}
	if r.state.FieldString("owner") != "bob" {
		t.Fatal("FieldString")
	}
	for _, path := range []string{"phase", "type", "feature", "branch", "tasks", "artifacts", "artifacts.a.b", "pr.number", "fixCycles.x", "events"} {
		r.refuse(workflow.CodeReservedField, workflow.Set{Assignments: []workflow.Assignment{{Path: path, Value: []byte(`"x"`)}}})
	}
	r.refuse(workflow.CodeBadInput, workflow.Set{Assignments: []workflow.Assignment{{Path: "a..b", Value: []byte(`1`)}}})
	r.refuse(workflow.CodeBadInput, workflow.Set{Assignments: []workflow.Assignment{{Path: "a", Value: []byte(`{`)}}})
	r.refuse(workflow.CodeBadInput, workflow.Set{Assignments: []workflow.Assignment{{Path: "owner.name", Value: []byte(`1`)}}}) // owner is a string
	r.refuse(workflow.CodeBadInput, workflow.Set{})
	r.refuse(workflow.CodeBadInput, workflow.Set{Assignments: []workflow.Assignment{{Path: "track", Value: []byte(`"hotfix"`)}}}) // feature has no tracks
	r.refuse(workflow.CodeBadInput, workflow.Set{Assignments: []workflow.Assignment{{Path: "artifacts.design", Value: []byte(`"../etc/passwd"`)}}})
	r.refuse(workflow.CodeBadInput, workflow.Set{Assignments: []workflow.Assignment{{Path: "pr.url", Value: []byte(`"https://example.com/nope"`)}}})
	// A refused assignment writes nothing, even if an earlier one was fine.
	n := len(r.log)
	r.refuse(workflow.CodeReservedField, workflow.Set{Assignments: []workflow.Assignment{{Path: "ok", Value: []byte(`1`)}, {Path: "phase", Value: []byte(`"x"`)}}})
	if len(r.log) != n {
		t.Fatal("a refused set wrote events")
	}
	r.checkReplay()
}

func TestParseAssignment(t *testing.T) {
	for _, tc := range []struct{ in, path, value, err string }{
		{"track=hotfix", "track", `"hotfix"`, ""},
		{"n=42", "n", `42`, ""},
		{"ok=true", "ok", `true`, ""},
		{`s="quoted"`, "s", `"quoted"`, ""},
		{`o={ "a": 1 }`, "o", `{"a":1}`, ""},
		{"e=", "e", `""`, ""},
		{"a.b-c_d=x=y", "a.b-c_d", `"x=y"`, ""},
		{"bad", "", "", "expected path=value"},
		{".a=1", "", "", "malformed path"},
		{"a=[1,", "", "", "malformed JSON"},
	} {
		a, err := workflow.ParseAssignment(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: err %v, want %s", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || a.Path != tc.path || string(a.Value) != tc.value {
			t.Errorf("%s: got %s=%s %v", tc.in, a.Path, a.Value, err)
		}
	}
}

func stamp(t *testing.T, seq int64, typ string, data any) workflow.Event {
	t.Helper()
	e, err := workflow.NewEvent{Type: typ, Data: data}.Stamp("id-"+strings.Repeat("0", 3)+string(rune('a'+seq)), seq, time.Unix(seq, 0), "bob", uint64(seq+1))
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func TestApplyRecordsConflictsAfterMerge(t *testing.T) {
	// Two teammates both moved ideate → plan, then one moved plan → plan-review; merged in canonical
	// order the second ideate → plan no longer fits.
	log := []workflow.Event{
		stamp(t, 0, workflow.EventStarted, workflow.StartedData{Feature: "f", Type: "feature", Branch: "b"}),
		stamp(t, 1, workflow.EventTransitioned, workflow.TransitionedData{From: "ideate", To: "plan"}),
		stamp(t, 2, workflow.EventTransitioned, workflow.TransitionedData{From: "ideate", To: "plan"}),
		stamp(t, 3, workflow.EventTransitioned, workflow.TransitionedData{From: "plan", To: "completed"}), // the universal cleanup
		stamp(t, 4, workflow.EventTransitioned, workflow.TransitionedData{From: "plan", To: "synthesize"}),
		stamp(t, 5, workflow.EventTaskStarted, workflow.TaskData{ID: "ghost"}),
		stamp(t, 6, workflow.EventStarted, workflow.StartedData{Feature: "f", Type: "debug", Branch: "b"}),
		stamp(t, 7, "my.custom", map[string]int{"x": 1}),
		stamp(t, 8, "workflow.future", nil),
		{ID: "bad", Seq: 9, Type: workflow.EventFieldSet, Data: json.RawMessage(`{"path":"a..b","value":1}`)},
		{ID: "bad2", Seq: 10, Type: workflow.EventReviewRecorded, Data: json.RawMessage(`[1,2]`)},
	}
	s := workflow.Definitions{}.Fold(workflow.State{}, log)
	if s.Phase != "completed" {
		// plan → completed is the universal cleanup transition: it fits (the guard was judged at
		// decision time), so the workflow is completed and the later plan → synthesize conflicts.
		t.Fatalf("phase %s", s.Phase)
	}
	var seqs []int64
	for _, c := range s.Conflicts {
		seqs = append(seqs, c.Seq)
	}
	if got, _ := json.Marshal(seqs); string(got) != `[2,4,5,6,9,10]` {
		t.Fatalf("conflicts %+v", s.Conflicts)
	}
	if s.Events != int64(len(log)) || s.Ignored != 2 || s.LastSeq != 10 || s.LastClock != 9 {
		t.Fatalf("counts events=%d ignored=%d lastSeq=%d lastClock=%d", s.Events, s.Ignored, s.LastSeq, s.LastClock)
	}
	checkReplay(t, log, s)

	// Events before workflow.started are conflicts, not crashes.
	s = workflow.Definitions{}.Apply(workflow.State{}, stamp(t, 0, workflow.EventTransitioned, workflow.TransitionedData{From: "a", To: "b"}))
	if len(s.Conflicts) != 1 || s.Phase != "" {
		t.Fatalf("%+v", s)
	}
}

func TestApplyDoesNotAlias(t *testing.T) {
	r := featureToReview(t)
	base := r.state
	before, _ := json.Marshal(base)
	a := workflow.Definitions{}.Apply(base, stamp(t, 100, workflow.EventTaskAdded, workflow.TaskData{ID: "x"}))
	b := workflow.Definitions{}.Apply(base, stamp(t, 100, workflow.EventTaskAdded, workflow.TaskData{ID: "y"}))
	workflow.Definitions{}.Apply(base, stamp(t, 100, workflow.EventTaskCompleted, workflow.TaskData{ID: "t1"}))
	workflow.Definitions{}.Apply(base, stamp(t, 100, workflow.EventFieldSet, workflow.FieldSetData{Path: "k", Value: []byte(`1`)}))
	workflow.Definitions{}.Apply(base, stamp(t, 100, workflow.EventArtifactRecorded, workflow.ArtifactData{Name: "zz", Path: "p"}))
	workflow.Definitions{}.Apply(base, stamp(t, 100, workflow.EventTransitioned, workflow.TransitionedData{From: "review", To: "delegate"}))
	after, _ := json.Marshal(base)
	if !bytes.Equal(before, after) {
		t.Fatalf("Apply mutated its input:\n%s\n%s", before, after)
	}
	if a.Tasks[len(a.Tasks)-1].ID != "x" || b.Tasks[len(b.Tasks)-1].ID != "y" {
		t.Fatal("two folds from one state share a backing array")
	}
}

func TestProjectSnapshots(t *testing.T) {
	empty, err := workflow.Project(workflow.Definitions{}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	again, _ := workflow.Project(workflow.Definitions{}, empty, nil)
	if !bytes.Equal(empty, again) {
		t.Fatalf("%s\n%s", empty, again)
	}
	for _, k := range []string{`"artifacts":{}`, `"tasks":[]`, `"fields":{}`, `"conflicts":[]`, `"events":0`} {
		if !bytes.Contains(empty, []byte(k)) {
			t.Errorf("empty state lacks %s: %s", k, empty)
		}
	}
	if _, err := workflow.Project(workflow.Definitions{}, json.RawMessage(`{"phase":`), nil); err == nil {
		t.Fatal("a corrupt snapshot must be an error")
	}
	if workflow.ProjectorVersion == "" {
		t.Fatal("ProjectorVersion")
	}
}

func TestReservedEventTypes(t *testing.T) {
	for _, typ := range workflow.EventTypes() {
		if typ != workflow.EventSynthesisRequested && !workflow.IsReservedEventType(typ) {
			t.Errorf("%s must be reserved", typ)
		}
	}
	for typ, want := range map[string]bool{"workflow.anything": true, "task.added": true, "pr.observed": true, "deploy.done": false, "synthesize.requested": false, "workflowish": false} {
		if workflow.IsReservedEventType(typ) != want {
			t.Errorf("IsReservedEventType(%s) != %v", typ, want)
		}
	}
}

func TestStateJSONKeysAreReservedForSet(t *testing.T) {
	var m map[string]json.RawMessage
	b, _ := json.Marshal(workflow.State{Circuit: &workflow.Circuit{}, PR: &workflow.PR{}, Track: "x", Synthesis: "x", Completion: "x", MaxIterations: 1, Reason: "x"})
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	for k := range m {
		if k != "track" && !workflow.IsReservedField(k) {
			t.Errorf("state key %s is not reserved for set", k)
		}
	}
}

func TestDefinitions(t *testing.T) {
	if got := strings.Join(workflow.BuiltinTypes(), ","); got != "debug,discovery,feature,loop,oneshot,refactor" {
		t.Fatalf("types %s", got)
	}
	for _, typ := range workflow.BuiltinTypes() {
		d, _ := workflow.Builtin(typ)
		if err := d.Validate(); err != nil {
			t.Errorf("%s: %v", typ, err)
		}
		if d.CancelTarget() != "cancelled" {
			t.Errorf("%s: cancel target %q", typ, d.CancelTarget())
		}
		b, err := json.MarshalIndent(d, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		var back workflow.Definition
		if err := json.Unmarshal(b, &back); err != nil || back.Type != typ || len(back.Transitions) != len(d.Transitions) {
			t.Errorf("%s: JSON round trip: %v", typ, err)
		}
		m := d.Mermaid()
		if !strings.HasPrefix(m, "stateDiagram-v2\n") || !strings.Contains(m, "[*] --> ") {
			t.Errorf("%s: mermaid %s", typ, m)
		}
		txt := d.Text()
		for _, p := range d.Phases {
			if !strings.Contains(txt, p.ID) {
				t.Errorf("%s: text lacks phase %s", typ, p.ID)
			}
		}
		// Every phase is reachable from the initial one.
		seen := map[string]bool{d.Initial: true}
		for changed := true; changed; {
			changed = false
			for _, tr := range d.Transitions {
				if (tr.From == workflow.AnyPhase || seen[tr.From]) && !seen[tr.To] {
					seen[tr.To], changed = true, true
				}
			}
		}
		for _, p := range d.Phases {
			if p.Kind != workflow.Compound && !seen[p.ID] {
				t.Errorf("%s: phase %s unreachable", typ, p.ID)
			}
		}
	}
	d, _ := workflow.Builtin("feature")
	m := d.Mermaid()
	for _, want := range []string{"state implementation {", "review --> delegate", "plan_review --> blocked", "state \"plan-review\" as plan_review"} {
		if !strings.Contains(m, want) {
			t.Errorf("feature mermaid lacks %q:\n%s", want, m)
		}
	}
	if _, ok := workflow.Builtin("nope"); ok {
		t.Fatal("unknown type found")
	}
}

func TestTransitionsListing(t *testing.T) {
	r := newRun(t, "login", "feature", workflow.Init{})
	opts := workflow.Transitions(r.def(), r.state, r.env)
	if len(opts) != 3 || opts[0].To != "plan" || opts[0].Allowed || opts[0].Guards[0].Failure == nil {
		t.Fatalf("%+v", opts)
	}
	if opts[0].Command != "git exarchos transition login plan" || opts[1].Command != `git exarchos cancel login --reason "…"` || !opts[1].Allowed {
		t.Fatalf("%+v", opts)
	}
	s := workflow.Summary(r.def(), r.state, r.env)
	if !strings.Contains(s, "login (feature) is in ideate") || !strings.Contains(s, "fix: git exarchos set login artifacts.design=<path>") {
		t.Fatalf("summary %q", s)
	}
	r.artifact("design")
	if s := workflow.Summary(r.def(), r.state, r.env); !strings.Contains(s, "ready: git exarchos transition login plan") {
		t.Fatalf("summary %q", s)
	}
	r.must(workflow.Cancel{Reason: "dropped"})
	if workflow.Transitions(r.def(), r.state, r.env) != nil {
		t.Fatal("a final phase has no transitions")
	}
	if s := workflow.Summary(r.def(), r.state, r.env); !strings.Contains(s, "cancelled: dropped; nothing left to do") {
		t.Fatalf("summary %q", s)
	}
}

func TestNoEvaluatorFailsClosed(t *testing.T) {
	r := newRun(t, "login", "feature", workflow.Init{})
	r.artifact("design")
	r.env.Guards = nil
	r.refuse(workflow.CodeGuardFailed, workflow.TransitionTo{Phase: "plan"})
}

func TestPRFacts(t *testing.T) {
	for u, ok := range map[string]bool{
		"https://github.com/acme/app/pull/12":    true,
		"https://ghe.corp/acme/app/pull/3/files": true,
		"https://github.com/acme/app/issues/12":  false,
		"https://github.com/acme/app/pull/0":     false,
		"ftp://github.com/acme/app/pull/1":       false,
		"github.com/acme/app/pull/1":             false,
	} {
		if _, got := workflow.ParsePRURL(u); got != ok {
			t.Errorf("ParsePRURL(%s) = %v", u, got)
		}
	}
	r := newRun(t, "login", "feature", workflow.Init{})
	r.must(workflow.LinkPR{URL: "https://github.com/acme/app/pull/12"})
	r.must(workflow.ObservePR{PRObservation: workflow.PRObservation{Number: 12, Checks: "success", State: "open", ObservedAt: "2026-01-02T03:04:05Z"}})
	if pr := r.state.PR; pr.URL != "https://github.com/acme/app/pull/12" || !pr.Observed || pr.Checks != "success" || pr.MergeVerified {
		t.Fatalf("%+v", pr)
	}
	r.refuse(workflow.CodeBadInput, workflow.VerifyMerge{})
	r.refuse(workflow.CodeBadInput, workflow.ObservePR{})
	r.checkReplay()
}
