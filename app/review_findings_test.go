package app_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/exarchos/git-exarchos/app"
	"github.com/exarchos/git-exarchos/internal/apptest"
	"github.com/exarchos/git-exarchos/internal/gittest"
	"github.com/exarchos/git-exarchos/project"
	"github.com/exarchos/git-exarchos/verify"
	"github.com/exarchos/git-exarchos/workflow"
)

// TestParseFinding: --finding is SEVERITY:FILE:LINE:TEXT; the text may hold colons, the line is
// the first all-digit field; what does not have that shape is a usage error naming the form. The
// severity and the rest are the core's to judge (workflow.ValidateFindings).
func TestParseFinding(t *testing.T) {
	for in, want := range map[string]workflow.FindingInput{
		"high:app/login.go:42:the error from Close is dropped": {Severity: "high", File: "app/login.go", Line: 42, Text: "the error from Close is dropped"},
		"low:a.go:0:see: the docs, at 3:4":                     {Severity: "low", File: "a.go", Line: 0, Text: "see: the docs, at 3:4"},
		"info:dir:with/colon:x.go:7:t":                         {Severity: "info", File: "dir:with/colon:x.go", Line: 7, Text: "t"},
		"severe:a.go:1:x":                                      {Severity: "severe", File: "a.go", Line: 1, Text: "x"},
		"high::3:x":                                            {Severity: "high", File: "", Line: 3, Text: "x"},
		"high:a.go:99999999999999999999999:x":                  {Severity: "high", File: "a.go", Line: -1, Text: "x"},
	} {
		got, err := app.ParseFinding(in)
		if err != nil || got != want {
			t.Errorf("%q: %+v, %v; want %+v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "high", "high:a.go", "high:a.go:x:text", "high a.go 3 text"} {
		_, err := app.ParseFinding(in)
		var u *project.UsageError
		if !errors.As(err, &u) || !strings.Contains(err.Error(), "write SEVERITY:FILE:LINE:TEXT") {
			t.Errorf("%q: %v, want a usage error naming the form", in, err)
		}
	}
}

// TestVerifyFindingFileAtTheJudgedCommit: a review.recorded built by hand with a finding on a file
// the judged commit does not have is a violation: verify re-checks what review checked.
func TestVerifyFindingFileAtTheJudgedCommit(t *testing.T) {
	_, dir, r := apptest.UnsignedLogin(t)
	head := gittest.Git(t, dir, "", "rev-parse", "HEAD")
	apptest.Forge(t, r, "login", workflow.NewEvent{Type: workflow.EventReviewRecorded, Data: workflow.ReviewData{Dimension: "quality", Verdict: "fail", Commit: head,
		Findings: []workflow.FindingData{{ID: "f12345678", FindingInput: workflow.FindingInput{Severity: "high", File: "nowhere.go", Line: 1, Text: "x"}}}}})
	res, err := verify.Verify(&verify.Repo{Repo: apptest.Reopen(t, dir).Repo}, verify.Options{Feature: "login"})
	apptest.WantViolation(t, res, err, "review", "finding f12345678 names nowhere.go, which is not a file at the judged commit")
}
