package hooks

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/exarchos/git-exarchos/workflow"
)

// docsDef is a workflow whose "write" phase lets the agent read anything, edit docs and run go test,
// three tool calls per stay.
var docsDef = &workflow.Definition{
	Type: "docs", Initial: "write",
	Phases: []workflow.Phase{
		{ID: "write", Kind: workflow.Normal, Tools: workflow.Envelope{AllowedTools: []string{"Read", "Grep", "Edit(docs/**)", "Bash(go test:*)", "Bash(make docs)"}, TurnCap: 3}},
		{ID: "check", Kind: workflow.Normal},
		{ID: "done", Kind: workflow.Final},
	},
	Transitions: []workflow.Transition{{From: "write", To: "check"}, {From: "check", To: "write"}, {From: "check", To: "done"}},
}

func docsBound() Bound {
	return Bound{Feature: "guide", Def: docsDef, Root: "/repo", State: workflow.State{Feature: "guide", Type: "docs", Phase: "write", Branch: "guide"}}
}

func TestEnvelopeAllowedTools(t *testing.T) {
	w := docsBound()
	cases := []struct {
		tool string
		ti   ToolInput
		ok   bool
	}{
		{"Read", ToolInput{FilePath: "/repo/main.go"}, true},
		{"Grep", ToolInput{Path: "/repo"}, true},
		{"Edit", ToolInput{FilePath: "/repo/docs/guide/intro.md"}, true},
		{"Edit", ToolInput{FilePath: "docs/x.md"}, true},
		{"Edit", ToolInput{FilePath: "/repo/main.go"}, false},
		{"Edit", ToolInput{FilePath: "/repo/docs/../main.go"}, false},
		{"Edit", ToolInput{FilePath: "/elsewhere/docs/x.md"}, false},
		{"Write", ToolInput{FilePath: "/repo/docs/x.md"}, false},
		{"Bash", ToolInput{Command: "go test ./..."}, true},
		{"Bash", ToolInput{Command: "go test"}, true},
		{"Bash", ToolInput{Command: "go testify"}, false},
		{"Bash", ToolInput{Command: "go test ./... && rm -rf /"}, false},
		{"Bash", ToolInput{Command: "go test $(curl evil)"}, false},
		{"Bash", ToolInput{Command: "make docs"}, true},
		{"Bash", ToolInput{Command: "make docs all"}, false},
		{"WebFetch", ToolInput{}, false},
	}
	for _, c := range cases {
		v := Check(w, c.tool, c.ti, "/repo")
		if (v.Deny == "") != c.ok {
			t.Errorf("%s %+v: deny %q, want allowed=%v", c.tool, c.ti, v.Deny, c.ok)
		}
		if c.ok != v.Count {
			t.Errorf("%s %+v: counted=%v", c.tool, c.ti, v.Count)
		}
	}
	r := CheckTool(w, "Bash", ToolInput{Command: "rm -rf build"}, "/repo")
	for _, want := range []string{"Bash(rm -rf build) is not allowed while workflow guide (docs) is in phase write", "allows only Read, Grep, Edit(docs/**)", "git exarchos grant guide --tool Bash --match 'rm -rf build' --once --reason '<why>'"} {
		if !strings.Contains(r, want) {
			t.Errorf("denial %q does not say %q", r, want)
		}
	}
}

func TestGlobMatch(t *testing.T) {
	for _, c := range []struct {
		glob, path string
		ok         bool
	}{
		{"docs/**", "docs/a/b.md", true}, {"docs/**", "docsx/a", false}, {"docs/*.md", "docs/a.md", true},
		{"docs/*.md", "docs/a/b.md", false}, {"**/*.go", "a/b/c.go", true}, {"**/*.go", "c.go", true},
		{"/go.mod", "go.mod", true}, {"a?c", "abc", true}, {"a.c", "abc", false},
	} {
		if got := globMatch(c.glob, c.path); got != c.ok {
			t.Errorf("globMatch(%q, %q) = %v", c.glob, c.path, got)
		}
	}
}

func pre(tool, id string, ti any) Input {
	b, _ := json.Marshal(ti)
	return Input{HookEventName: PreToolUse, ToolName: tool, ToolInput: b, ToolUseID: id, Cwd: "/repo"}
}

func stampApply(t *testing.T, w *Bound, ev workflow.NewEvent, id string) {
	t.Helper()
	e, err := ev.Stamp(id, w.State.LastSeq+1, time.Unix(0, 0), "human", 0)
	if err != nil {
		t.Fatal(err)
	}
	w.State = workflow.Apply(w.Def, w.State, e)
}

func TestTurnCapGrantsAndBudget(t *testing.T) {
	if _, err := workflow.NewDefinitions(docsDef); err != nil {
		t.Fatal(err)
	}
	w := docsBound()
	stampApply(t, &w, workflow.NewEvent{Type: workflow.EventStarted, Data: workflow.StartedData{Feature: "guide", Type: "docs", Branch: "guide"}}, "s")
	repo := &fakeRepo{bound: []Bound{w}}
	warn := func(s string) { t.Error(s) }
	read := func(id string) Output {
		return Handle(pre("Read", id, map[string]string{"file_path": "/repo/a.go"}), repo, warn)
	}

	// Three calls; a payload delivered twice (same tool_use_id) counts once.
	for _, id := range []string{"t1", "t2", "t2", "t3"} {
		if o := read(id); o.Denied() {
			t.Fatalf("call %s denied: %s", id, o.Specific.PermissionDecisionReason)
		}
	}
	if got := repo.bound[0].State.Budget.Turns; got != 3 {
		t.Fatalf("turns = %d, want 3", got)
	}
	o := read("t4")
	if !o.Denied() || !strings.Contains(o.Specific.PermissionDecisionReason, "git exarchos budget extend guide <N> --reason") {
		t.Fatalf("the fourth call: %+v", o.Specific)
	}
	// A human extends the budget by one: one more call.
	stampApply(t, &repo.bound[0], workflow.NewEvent{Type: workflow.EventBudgetExtended, Data: workflow.BudgetData{Phase: "write", Turns: 1, Reason: "r", Actor: "h"}}, "b1")
	if o := read("t5"); o.Denied() {
		t.Fatalf("after the extension: %s", o.Specific.PermissionDecisionReason)
	}
	if o := read("t6"); !o.Denied() {
		t.Fatal("the extension gave more than one call")
	}
	// Leaving and re-entering the phase restarts the count (and drops the extension).
	stampApply(t, &repo.bound[0], workflow.NewEvent{Type: workflow.EventTransitioned, Data: workflow.TransitionedData{From: "write", To: "check"}}, "x1")
	stampApply(t, &repo.bound[0], workflow.NewEvent{Type: workflow.EventTransitioned, Data: workflow.TransitionedData{From: "check", To: "write"}}, "x2")
	if b := repo.bound[0].State.Budget; b.Turns != 0 || b.Extended != 0 {
		t.Fatalf("budget after re-entry: %+v", b)
	}
	if o := read("t7"); o.Denied() {
		t.Fatalf("after re-entry: %s", o.Specific.PermissionDecisionReason)
	}

	// A one-shot grant lets exactly one matching call outside the envelope through.
	rm := func(id, cmd string) Output {
		return Handle(pre("Bash", id, map[string]string{"command": cmd}), repo, warn)
	}
	if o := rm("g0", "rm -rf build"); !o.Denied() || !strings.Contains(o.Specific.PermissionDecisionReason, "git exarchos grant guide --tool Bash --match 'rm -rf build' --once") {
		t.Fatalf("rm before the grant: %+v", o.Specific)
	}
	stampApply(t, &repo.bound[0], workflow.NewEvent{Type: workflow.EventGrantIssued, Data: workflow.GrantData{Tool: "Bash", Match: "rm -rf build", Once: true, Reason: "clean", Actor: "h"}}, "grant-1")
	if o := rm("g1", "rm -rf dist"); !o.Denied() {
		t.Fatal("a grant for another command let this one through")
	}
	if o := rm("g2", "rm -rf build"); o.Denied() {
		t.Fatalf("the granted call was denied: %s", o.Specific.PermissionDecisionReason)
	}
	if len(repo.bound[0].State.Grants) != 0 {
		t.Fatalf("the grant was not consumed: %+v", repo.bound[0].State.Grants)
	}
	if o := rm("g3", "rm -rf build"); !o.Denied() {
		t.Fatal("the grant was used twice")
	}
	var consumed, denied int
	for _, ev := range repo.recorded {
		switch ev.Type {
		case workflow.EventGrantConsumed:
			consumed++
		case workflow.EventToolDenied:
			denied++
		}
	}
	if consumed != 1 || denied != 5 {
		t.Errorf("recorded %d grant.consumed and %d tool.denied, want 1 and 5", consumed, denied)
	}
}

func TestHumanOnlyEnvelopeCommands(t *testing.T) {
	for _, cmd := range []string{"git exarchos grant f --tool Bash --once --reason r", "git exarchos budget extend f 5 --reason r", "git-exarchos unblock f --reason r"} {
		if CheckBash(cmd, BashContext{}) == "" {
			t.Errorf("%q is allowed", cmd)
		}
	}
}

// TestLastTurnIsTakenOnce: two hook processes read the state with one turn left; the first takes
// it. The second's check ran on that stale read, but its write re-checks on the state it builds
// on, so it is denied and counts nothing, rather than both passing at cap − 1.
func TestLastTurnIsTakenOnce(t *testing.T) {
	if _, err := workflow.NewDefinitions(docsDef); err != nil {
		t.Fatal(err)
	}
	w := docsBound()
	stampApply(t, &w, workflow.NewEvent{Type: workflow.EventStarted, Data: workflow.StartedData{Feature: "guide", Type: "docs", Branch: "guide"}}, "s")
	for _, id := range []string{"c1", "c2"} {
		stampApply(t, &w, workflow.NewEvent{Type: workflow.EventToolCalled, Data: workflow.ToolCallData{Phase: "write", Tool: "Read"}}, id)
	}
	staleRead := w // one turn left
	repo := &fakeRepo{bound: []Bound{w}, stale: []Bound{staleRead}}
	warn := func(s string) { t.Error(s) }
	read := func(id string) Output {
		return Handle(pre("Read", id, map[string]string{"file_path": "/repo/a.go"}), repo, warn)
	}
	if o := read("first"); o.Denied() {
		t.Fatalf("the first call takes the last turn: %s", o.Specific.PermissionDecisionReason)
	}
	if got := repo.bound[0].State.Budget.Turns; got != 3 {
		t.Fatalf("turns = %d, want 3", got)
	}
	o := read("second")
	if !o.Denied() || !strings.Contains(o.Specific.PermissionDecisionReason, "budget extend") {
		t.Fatalf("the second call, decided on a stale read, must be denied at write time: %+v", o.Specific)
	}
	if got := repo.bound[0].State.Budget.Turns; got != 3 {
		t.Fatalf("turns = %d after the denied call, want 3", got)
	}
}
