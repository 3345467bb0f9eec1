package workflow_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/exarchos/git-exarchos/workflow"
)

func thread(key, sev, file string, line int, text string) workflow.ImportedFinding {
	return workflow.ImportedFinding{Key: key, Author: "coderabbitai[bot]", FindingInput: finding(sev, file, line, text)}
}

// TestImportFindings: the pull request's threads become findings of dimension github, with ids
// from their keys; importing the same threads again records nothing; an edited thread is
// recorded again; a resolved thread closes its finding and only its finding (never a reviewer's);
// an open blocking one keeps review shut and, in synthesize, is a synthesis failure (the fix cycle).
func TestImportFindings(t *testing.T) {
	r := toSynthesize(t)
	head := r.repo.tips["topic"]
	imp := workflow.ImportFindings{PR: 12, Commit: head, Open: []workflow.ImportedFinding{
		thread("comment 1", "high", "src/t1.go", 3, "the error from Close is dropped"),
		thread("comment 2", "low", "src/t2.go", 0, "the name says nothing"),
	}}
	r.must(imp)
	n := len(r.log)
	if n == 0 || r.log[n-1].Type != workflow.EventFindingsImported {
		t.Fatalf("no findings.imported recorded")
	}
	blocking, rest := r.state.OpenFindings(r.def())
	if len(blocking) != 1 || len(rest) != 1 || blocking[0].ID != workflow.ImportedFindingID("comment 1") || blocking[0].Dimension != workflow.DimensionGitHub {
		t.Fatalf("open findings %+v %+v", blocking, rest)
	}

	// The same threads again: nothing to record.
	r.must(imp)
	if len(r.log) != n {
		t.Fatalf("a second import recorded %d event(s)", len(r.log)-n)
	}

	// In synthesize, the open blocking finding is a synthesis failure: back to the fix cycle.
	r.to("delegate")

	// A reviewer's own finding is never closed by an import naming its id.
	r.completeTasks("t3")
	r.to("review")
	r.must(workflow.RecordReview{Dimension: "quality", Triage: true, Findings: []workflow.FindingInput{finding("high", "src/t1.go", 1, "no test for Close")}})
	mine := r.state.Findings[len(r.state.Findings)-1].ID

	// The thread is resolved on GitHub (and the other edited): the imported one closes, the
	// edited one is recorded again with its new text, the reviewer's stays open.
	r.must(workflow.ImportFindings{PR: 12, Commit: head, Open: []workflow.ImportedFinding{thread("comment 2", "low", "src/t2.go", 0, "the name still says nothing")},
		Resolved: []string{workflow.ImportedFindingID("comment 1"), mine, workflow.ImportedFindingID("comment 99")}})
	var d workflow.FindingsImportedData
	if err := json.Unmarshal(r.log[len(r.log)-1].Data, &d); err != nil || len(d.Findings) != 1 || len(d.Closed) != 1 {
		t.Fatalf("recorded %+v %v", d, err)
	}
	got := map[string]workflow.Finding{}
	for _, f := range r.state.Findings {
		got[f.ID] = f
	}
	if c := got[workflow.ImportedFindingID("comment 1")].Closed; c == nil || c.By != workflow.ClosedByGitHub || !strings.Contains(c.Note, "#12") {
		t.Fatalf("resolved thread: %+v", c)
	}
	if f := got[workflow.ImportedFindingID("comment 2")]; f.Closed != nil || f.Text != "the name still says nothing" {
		t.Fatalf("edited thread: %+v", f)
	}
	if got[mine].Closed != nil {
		t.Fatalf("an import closed the reviewer's finding %s", mine)
	}
	r.checkReplay()
}

// TestImportFindingsBadInput: a malformed thread, one given twice, an import without its pull
// request: refused as bad input, nothing recorded.
func TestImportFindingsBadInput(t *testing.T) {
	r := toSynthesize(t)
	head := r.repo.tips["topic"]
	for _, c := range []struct {
		name string
		imp  workflow.ImportFindings
		want string
	}{
		{"no pull request", workflow.ImportFindings{Commit: head}, "names the pull request"},
		{"no head", workflow.ImportFindings{PR: 12}, "names the pull request and the head"},
		{"bad severity", workflow.ImportFindings{PR: 12, Commit: head, Open: []workflow.ImportedFinding{thread("c1", "severe", "a.go", 1, "x")}}, "unknown severity"},
		{"absolute path", workflow.ImportFindings{PR: 12, Commit: head, Open: []workflow.ImportedFinding{thread("c1", "low", "/etc/passwd", 1, "x")}}, "relative to the repository's top"},
		{"twice", workflow.ImportFindings{PR: 12, Commit: head, Open: []workflow.ImportedFinding{thread("c1", "low", "a.go", 1, "x"), thread("c1", "low", "a.go", 2, "y")}}, `thread "c1" given twice`},
	} {
		t.Run(c.name, func(t *testing.T) {
			n := len(r.log)
			if rej := r.refuse(workflow.CodeBadInput, c.imp); !strings.Contains(rej.Message, c.want) || len(r.log) != n {
				t.Fatalf("%v (%d recorded)", rej, len(r.log)-n)
			}
		})
	}
}
