package app_test

import (
	"fmt"
	"testing"

	"github.com/exarchos/git-exarchos/app"
	"github.com/exarchos/git-exarchos/internal/apptest"
	"github.com/exarchos/git-exarchos/internal/gittest"
	"github.com/exarchos/git-exarchos/teamsync"
	"github.com/exarchos/git-exarchos/workflow"
)

// Issue 30, review triage across clones: two teammates review the same commit, report overlapping
// findings (the same finding twice, re-graded on one side), and each resolves one; each clone
// then pulls the other's log and merges it on its own. Finding ids are derived from what a finding
// says, so the two merges must fold to the same findings, byte for byte, whichever side merged,
// and pulling again changes nothing.
const triagedType = `type: triaged
initial: review
reviewBy: agent
reviews: [quality]
phases:
  - id: review
  - id: fix
  - id: done
    kind: final
  - id: cancelling
  - id: cancelled
    kind: final
transitions:
  - {from: review, to: done, guards: [reviews-passed]}
  - {from: review, to: fix, guards: [review-failed]}
  - {from: fix, to: review}
  - {from: "*", to: cancelling, on: [cancel]}
  - {from: cancelling, to: cancelled, on: [cancel]}
`

func TestFindingsConvergeAcrossClones(t *testing.T) {
	tm := apptest.NewTeam(t, 2)
	a, b := tm.Dirs[0], tm.Dirs[1]
	apptest.WriteCommit(t, a, ".exarchos/workflows/triaged.yaml", triagedType)
	apptest.WriteCommit(t, a, "src/one.go", "package src\n")
	gittest.Git(t, a, "", "push", "-q", "origin", "main")
	gittest.Git(t, b, "", "pull", "-q", "origin", "main")
	if _, err := app.Init(apptest.Reopen(t, a), app.InitOptions{Feature: "login", Type: "triaged", Branch: "main"}); err != nil {
		t.Fatal(err)
	}
	if _, err := teamsync.Push(apptest.Reopen(t, a).Repo, teamsync.PushOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := teamsync.Pull(apptest.Reopen(t, b).Repo, teamsync.PullOptions{}); err != nil {
		t.Fatal(err)
	}
	tip := gittest.Git(t, a, "", "rev-parse", "HEAD")
	f := func(sev string, line int, text string) workflow.FindingInput {
		return workflow.FindingInput{Severity: sev, File: "src/one.go", Line: line, Text: text}
	}
	shared := f("low", 1, "the package says nothing")
	run := func(dir string, cmds ...workflow.Command) {
		t.Helper()
		for _, c := range cmds {
			if _, err := apptest.Reopen(t, dir).Execute("login", c); err != nil {
				t.Fatalf("%s: %T: %v", dir, c, err)
			}
		}
	}
	run(a, workflow.RecordReview{Dimension: "quality", Commit: tip, Triage: true, Findings: []workflow.FindingInput{f("high", 1, "a dropped error"), shared}},
		workflow.ResolveFinding{ID: workflow.FindingID("quality", f("high", 1, "a dropped error")), Note: "the caller checks it", Commit: tip})
	run(b, workflow.RecordReview{Dimension: "quality", Commit: tip, Triage: true, Findings: []workflow.FindingInput{f("medium", 1, "the package says nothing"), f("critical", 0, "no tests")}},
		workflow.ResolveFinding{ID: workflow.FindingID("quality", shared), Note: "a doc comment is coming", Commit: tip})
	// Each clone merges the other's log itself.
	gittest.Git(t, a, "", "remote", "add", "peer", b)
	gittest.Git(t, b, "", "remote", "add", "peer", a)
	for _, dir := range []string{a, b} {
		if res, err := teamsync.Pull(apptest.Reopen(t, dir).Repo, teamsync.PullOptions{Remote: "peer"}); err != nil || len(res.Workflows) != 1 {
			t.Fatalf("pull into %s: %+v %v", dir, res, err)
		}
	}
	sa, sb := gittest.StateBlobs(t, a)["login"], gittest.StateBlobs(t, b)["login"]
	if sa != sb {
		t.Fatalf("the two merges fold to different states:\n%s\n%s", sa, sb)
	}
	st, _, err := apptest.Reopen(t, a).State("login")
	if err != nil {
		t.Fatal(err)
	}
	var open []string
	for _, fd := range st.Findings {
		open = append(open, fmt.Sprintf("%s:%s:%v", fd.ID, fd.Severity, fd.Closed != nil))
	}
	if len(st.Findings) != 3 {
		t.Fatalf("three distinct findings after the merge (the shared one once), got %v", open)
	}
	// A second round changes nothing on either side.
	for _, dir := range []string{a, b} {
		if _, err := teamsync.Pull(apptest.Reopen(t, dir).Repo, teamsync.PullOptions{Remote: "peer"}); err != nil {
			t.Fatal(err)
		}
	}
	if sa2, sb2 := gittest.StateBlobs(t, a)["login"], gittest.StateBlobs(t, b)["login"]; sa2 != sb2 || sa2 != sa {
		t.Fatalf("pulling again moved the states:\n%s\n%s", sa2, sb2)
	}
	t.Logf("findings after the merge: %v", open)
}
