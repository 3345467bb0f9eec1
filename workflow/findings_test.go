package workflow_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/exarchos/git-exarchos/workflow"
)

func finding(sev, file string, line int, text string) workflow.FindingInput {
	return workflow.FindingInput{Severity: sev, File: file, Line: line, Text: text}
}

// TestFindingsBadInputRefused: every malformed finding is refused as bad input naming the
// finding and the fix, and nothing is recorded.
func TestFindingsBadInputRefused(t *testing.T) {
	many := make([]workflow.FindingInput, workflow.MaxFindings+1)
	for i := range many {
		many[i] = finding("low", "a.go", i+1, "x")
	}
	for _, c := range []struct {
		name     string
		findings []workflow.FindingInput
		pass     bool
		want     string
	}{
		{"unknown severity", []workflow.FindingInput{finding("hgh", "a.go", 1, "x")}, false, `finding 1: unknown severity "hgh": use one of critical, high, medium, low, info (did you mean high?)`},
		{"missing file", []workflow.FindingInput{finding("low", "a.go", 1, "x"), finding("high", "", 3, "x")}, false, "finding 2: no file: name the file"},
		{"absolute file", []workflow.FindingInput{finding("high", "/etc/passwd", 3, "x")}, false, "a clean path relative to the repository's top"},
		{"dotted file", []workflow.FindingInput{finding("high", "a/../../b.go", 3, "x")}, false, "a clean path relative"},
		{"backslash file", []workflow.FindingInput{finding("high", `a\b.go`, 3, "x")}, false, "forward slashes"},
		{"long path", []workflow.FindingInput{finding("high", strings.Repeat("a/", 600)+"b.go", 3, "x")}, false, "over 1024"},
		{"negative line", []workflow.FindingInput{finding("high", "a.go", -1, "x")}, false, "line -1"},
		{"huge line", []workflow.FindingInput{finding("high", "a.go", 1<<30, "x")}, false, "line 1073741824"},
		{"no text", []workflow.FindingInput{finding("high", "a.go", 1, "  ")}, false, "finding 1 (a.go): no text"},
		{"1000x text", []workflow.FindingInput{finding("high", "a.go", 1, strings.Repeat("too long ", 1000))}, false, "over 1000"},
		{"not utf-8", []workflow.FindingInput{finding("high", "a.go", 1, "bad \xff")}, false, "not UTF-8"},
		{"too many", many, false, "101 findings in one review, more than 100"},
		{"repeated", []workflow.FindingInput{finding("low", "a.go", 1, "x"), finding("high", "a.go", 1, "x")}, false, "finding 2 repeats finding 1"},
		{"pass with blocking", []workflow.FindingInput{finding("critical", "a.go", 1, "x")}, true, "a pass with 1 blocking finding(s)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := featureToReview(t)
			before, _ := json.Marshal(r.state)
			rej := r.refuse(workflow.CodeBadInput, workflow.RecordReview{Dimension: "spec", Pass: c.pass, Findings: c.findings})
			if !strings.Contains(rej.Message, c.want) {
				t.Fatalf("message %q lacks %q", rej.Message, c.want)
			}
			if after, _ := json.Marshal(r.state); string(after) != string(before) {
				t.Fatalf("state changed by a refused review")
			}
		})
	}
}

// TestFindingsOpenBound: a workflow holds at most MaxOpenFindings open findings; a review past it
// is refused, one that repeats open findings is not (they are not new), and closing makes room.
func TestFindingsOpenBound(t *testing.T) {
	r := featureToReview(t)
	batch := func(from, n int) []workflow.FindingInput {
		var fs []workflow.FindingInput
		for i := range n {
			fs = append(fs, finding("low", "src/t1.go", from+i, "x"))
		}
		return fs
	}
	for i := 0; i < workflow.MaxOpenFindings; i += workflow.MaxFindings {
		r.must(workflow.RecordReview{Dimension: "quality", Triage: true, Findings: batch(i+1, workflow.MaxFindings)})
	}
	n := len(r.log)
	rej := r.refuse(workflow.CodeBadInput, workflow.RecordReview{Dimension: "quality", Triage: true, Findings: batch(1000, 1)})
	if !strings.Contains(rej.Message, "would have 101 open review findings, more than 100") || len(r.log) != n {
		t.Fatalf("%v (%d events recorded)", rej, len(r.log)-n)
	}
	r.must(workflow.RecordReview{Dimension: "quality", Triage: true, Findings: batch(1, 1)}) // a repeat: nothing new
	r.repo.commit("topic", "src/fix.go")
	r.must(workflow.RecordReview{Dimension: "quality", Triage: true, Findings: batch(1000, 1)}) // the re-review closed the rest
	if b, rest := r.state.OpenFindings(r.def()); len(b)+len(rest) != 1 {
		t.Fatalf("open after the re-review: %d", len(b)+len(rest))
	}
}

// TestFindingsVerdict: without a verdict (Triage) the findings decide it: fail when one blocks
// under the definition (high and above by default, findingsBlockAt otherwise), else pass.
func TestFindingsVerdict(t *testing.T) {
	for _, c := range []struct {
		blockAt string
		sev     string
		want    string
	}{
		{"", "critical", workflow.VerdictFail},
		{"", "high", workflow.VerdictFail},
		{"", "medium", workflow.VerdictPass},
		{"", "info", workflow.VerdictPass},
		{"medium", "medium", workflow.VerdictFail},
		{"medium", "low", workflow.VerdictPass},
		{"critical", "high", workflow.VerdictPass},
	} {
		r := featureToReview(t)
		if c.blockAt != "" {
			d := r.def().Clone()
			d.FindingsBlockAt = c.blockAt
			r.defn = d
		}
		r.must(workflow.RecordReview{Dimension: "quality", Triage: true, Findings: []workflow.FindingInput{finding(c.sev, "src/t1.go", 3, "unchecked error")}})
		if got := r.state.Reviews["quality"].Verdict; got != c.want {
			t.Errorf("block at %q, a %s finding: verdict %s, want %s", c.blockAt, c.sev, got, c.want)
		}
		if len(r.state.Findings) != 1 || r.state.Findings[0].ID != workflow.FindingID("quality", finding(c.sev, "src/t1.go", 3, "unchecked error")) {
			t.Errorf("findings %+v", r.state.Findings)
		}
	}
	// An explicit fail with only findings that do not block is the reviewer's call: recorded.
	r := featureToReview(t)
	r.must(workflow.RecordReview{Dimension: "spec", Pass: false, Findings: []workflow.FindingInput{finding("info", "src/t1.go", 0, "naming")}})
	if r.state.Reviews["spec"].Verdict != workflow.VerdictFail {
		t.Fatalf("verdict %+v", r.state.Reviews["spec"])
	}
}

// TestFindingsFixCycle walks review with findings → fix cycle → re-review → passes: blocking
// findings keep reviews-passed shut (its fix names the fix cycle) and open review-failed; a
// re-review of the dimension on the fixed tip that does not repeat a finding closes it.
func TestFindingsFixCycle(t *testing.T) {
	r := featureToReview(t)
	r.must(workflow.RecordReview{Dimension: "spec", Pass: true})
	r.must(workflow.RecordReview{Dimension: "quality", Triage: true, Note: "two issues", Findings: []workflow.FindingInput{
		finding("high", "src/t1.go", 12, "error from Close ignored"),
		finding("low", "src/t2.go", 0, "name says nothing"),
	}})
	if r.state.Reviews["quality"].Verdict != workflow.VerdictFail {
		t.Fatalf("verdict %+v", r.state.Reviews["quality"])
	}
	high := r.state.Findings[0]
	blocking, rest := r.state.OpenFindings(r.def())
	if len(blocking) != 1 || blocking[0].ID != high.ID || len(rest) != 1 || high.Commit == "" || high.Dimension != "quality" {
		t.Fatalf("open %+v / %+v", blocking, rest)
	}
	// The way out to synthesize is shut while it is open, and says why and what to run.
	rej := r.refuse(workflow.CodeGuardFailed, workflow.TransitionTo{Phase: "synthesize"})
	f := rej.FailedGuards[0]
	if f.Guard != "reviews-passed" || f.Fix != "git exarchos transition login delegate" ||
		!strings.Contains(f.Reason, "1 blocking review finding(s) open: "+high.ID+" high src/t1.go:12 (quality)") {
		t.Fatalf("failure %+v", f)
	}
	r.to("delegate") // the fix cycle
	if r.state.FixCycles["implementation"] != 1 {
		t.Fatalf("fix cycles %v", r.state.FixCycles)
	}
	r.completeTasks("fix-close") // a new commit
	r.to("review")
	// Still open until a review judges the new tip.
	if b, _ := r.state.OpenFindings(r.def()); len(b) != 1 {
		t.Fatalf("open before the re-review: %+v", b)
	}
	r.must(workflow.RecordReview{Dimension: "spec", Pass: true}, workflow.RecordReview{Dimension: "quality", Triage: true})
	for _, f := range r.state.Findings {
		if f.Closed == nil || f.Closed.By != workflow.ClosedByReReview || f.Closed.Commit == f.Commit {
			t.Fatalf("finding not closed by the re-review: %+v (%+v)", f, f.Closed)
		}
	}
	r.to("synthesize")
	r.checkReplay()
}

// TestFindingsSameCommitStayOpen: a pass on the commit a finding was reported on does not close
// it (nothing was fixed): reviews-passed stays shut, review-failed opens the fix cycle; only a
// reviewer's resolve (not the agent that did the work) closes it without a fix.
func TestFindingsSameCommitStayOpen(t *testing.T) {
	r := featureToReview(t)
	r.must(workflow.RecordReview{Dimension: "spec", Pass: true})
	r.must(workflow.RecordReview{Dimension: "quality", Pass: false, Findings: []workflow.FindingInput{finding("critical", "src/t1.go", 1, "SQL built from input")}})
	id := r.state.Findings[0].ID
	r.must(workflow.RecordReview{Dimension: "quality", Pass: true}) // same tip, no findings
	if r.state.Findings[0].Closed != nil {
		t.Fatalf("closed by a pass on the same commit: %+v", r.state.Findings[0].Closed)
	}
	rej := r.refuse(workflow.CodeGuardFailed, workflow.TransitionTo{Phase: "synthesize"})
	if !strings.Contains(rej.FailedGuards[0].Reason, id+" critical") {
		t.Fatalf("failure %+v", rej.FailedGuards)
	}
	// review-failed passes on the open finding although every verdict now passes.
	opts := workflow.Transitions(r.def(), r.state, r.envFor(workflow.TransitionTo{}))
	for _, o := range opts {
		if o.To == "delegate" && !o.Allowed {
			t.Fatalf("fix cycle shut with a blocking finding open: %+v", o)
		}
	}

	// Resolve: bad input first, nothing recorded.
	n := len(r.log)
	if rej := r.refuse(workflow.CodeBadInput, workflow.ResolveFinding{ID: "f00000000", Note: "x"}); !strings.Contains(rej.Message, "has no finding") {
		t.Fatalf("%v", rej)
	}
	r.env.Caller = workflow.Caller{Session: "s1", Agent: "a-reviewer"}
	if rej := r.refuse(workflow.CodeBadInput, workflow.ResolveFinding{ID: id}); !strings.Contains(rej.Message, "--note") {
		t.Fatalf("%v", rej)
	}
	// The agent that did the work may not close it.
	r.env.Caller = workflow.Caller{Session: "s1"}
	if rej := r.refuse(workflow.CodeHumanDecision, workflow.ResolveFinding{ID: id, Note: "fine"}); !strings.Contains(rej.Message, "not the agent that did it") {
		t.Fatalf("%v", rej)
	}
	if len(r.log) != n {
		t.Fatalf("a refused resolve recorded %d event(s)", len(r.log)-n)
	}
	// A reviewer subagent may.
	r.env.Caller = workflow.Caller{Session: "s1", Agent: "a-reviewer"}
	r.must(workflow.ResolveFinding{ID: id, Note: "parameterised two lines up"})
	if c := r.state.Findings[0].Closed; c == nil || c.By != workflow.ClosedByResolve || c.Note != "parameterised two lines up" {
		t.Fatalf("closed %+v", c)
	}
	// Resolving it again records nothing.
	if evs, rej := workflow.Decide(r.def(), r.state, workflow.ResolveFinding{ID: id, Note: "again"}, r.env); rej != nil || len(evs) != 0 {
		t.Fatalf("resolve twice: %v %v", evs, rej)
	}
	r.env.Caller = workflow.Caller{}
	r.to("synthesize")
	r.checkReplay()
}

// TestFindingsRepeatedReopen: a finding reported again after it closed is open again, under the
// same id; re-graded, it takes the new severity.
func TestFindingsRepeatedReopen(t *testing.T) {
	r := featureToReview(t)
	in := finding("medium", "src/t1.go", 4, "no test for the timeout")
	r.must(workflow.RecordReview{Dimension: "quality", Triage: true, Findings: []workflow.FindingInput{in}})
	r.repo.commit("topic", "src/t1_test.go")
	r.must(workflow.RecordReview{Dimension: "quality", Triage: true})
	if r.state.Findings[0].Closed == nil {
		t.Fatal("not closed by the re-review on a new commit")
	}
	in.Severity = "high"
	r.must(workflow.RecordReview{Dimension: "quality", Triage: true, Findings: []workflow.FindingInput{in}})
	if len(r.state.Findings) != 1 || r.state.Findings[0].Closed != nil || r.state.Findings[0].Severity != "high" {
		t.Fatalf("findings %+v", r.state.Findings)
	}
	// A closed finding keeps the first ClosedTextBytes of its text (the event keeps it whole);
	// reported again, it has all of it again.
	long := finding("low", "src/t2.go", 1, strings.Repeat("ü", 400))
	r.must(workflow.RecordReview{Dimension: "spec", Triage: true, Findings: []workflow.FindingInput{long}})
	r.repo.commit("topic", "src/t2.go")
	r.must(workflow.RecordReview{Dimension: "spec", Triage: true})
	if f := r.state.Findings[1]; f.Closed == nil || f.Text != strings.Repeat("ü", workflow.ClosedTextBytes/2)+"…" {
		t.Fatalf("closed finding's text %q", f.Text)
	}
	r.must(workflow.RecordReview{Dimension: "spec", Triage: true, Findings: []workflow.FindingInput{long}})
	if f := r.state.Findings[1]; f.Closed != nil || f.Text != long.Text {
		t.Fatalf("reopened finding %+v", f)
	}
	// Another dimension's review does not close it.
	r.repo.commit("topic", "src/t3.go")
	r.must(workflow.RecordReview{Dimension: "spec", Pass: true})
	if r.state.Findings[0].Closed != nil {
		t.Fatal("closed by another dimension's review")
	}
	r.checkReplay()
}

// TestFindingResolvedByTheWorkerHasNoEffect: a finding.resolved Decide would refuse (from the
// agent that completed the tasks), written into the log by hand, is a conflict: the finding stays
// open and the way out stays shut.
func TestFindingResolvedByTheWorkerHasNoEffect(t *testing.T) {
	r := featureToReview(t)
	r.must(workflow.RecordReview{Dimension: "quality", Triage: true, Findings: []workflow.FindingInput{finding("high", "src/t1.go", 1, "x")}})
	id := r.state.Findings[0].ID
	r.append([]workflow.NewEvent{{Type: workflow.EventFindingResolved, Data: workflow.FindingResolvedData{ID: id, Note: "trust me", Session: "s1"}}})
	if r.state.Findings[0].Closed != nil || len(r.state.Conflicts) != 1 || !strings.Contains(r.state.Conflicts[0].Reason, "the agent that did the work") {
		t.Fatalf("finding %+v, conflicts %+v", r.state.Findings[0], r.state.Conflicts)
	}
	if rej := r.refuse(workflow.CodeGuardFailed, workflow.TransitionTo{Phase: "synthesize"}); !strings.Contains(rej.FailedGuards[0].Reason, id+" high") {
		t.Fatalf("failure %+v", rej.FailedGuards)
	}
	r.checkReplay()
}

// TestFindingResolvedHumanIsADecision: a human's resolve is a decision (signed in signed mode);
// an agent's is not.
func TestFindingResolvedHumanIsADecision(t *testing.T) {
	for human, want := range map[bool]string{true: workflow.KindReview, false: ""} {
		data, _ := json.Marshal(workflow.FindingResolvedData{ID: "f1", Note: "x", Human: human})
		if got := workflow.DecisionKind(workflow.Event{Type: workflow.EventFindingResolved, Data: data}); got != want {
			t.Errorf("human %v: kind %q, want %q", human, got, want)
		}
	}
	if !workflow.IsReservedEventType(workflow.EventFindingResolved) {
		t.Error("finding.resolved may be appended with git exarchos event")
	}
}
