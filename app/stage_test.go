package app_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/exarchos/git-exarchos/internal/apptest"
	"github.com/exarchos/git-exarchos/internal/gittest"
	"github.com/exarchos/git-exarchos/verify"
	"github.com/exarchos/git-exarchos/workflow"
)

const stagedYAML = `type: staged
initial: build
phases:
  - id: build
  - id: checks
  - id: review
  - id: done
    kind: final
stages:
  - id: test
  - id: lint
fanouts:
  - {phase: checks, stages: [test, lint], join: review}
transitions:
  - {from: build, to: checks}
  - {from: review, to: done}
`

// rulesFold folds with the repository's definitions, as apptest.Forge's apptest.PlainFold does with the built-ins.
type rulesFold struct{ defs workflow.Definitions }

func (rulesFold) Version() string { return workflow.ProjectorVersion }
func (f rulesFold) Project(prev json.RawMessage, events []workflow.Event) (json.RawMessage, error) {
	return workflow.Project(f.defs, prev, events)
}

// A join into review recorded while the stages still ran (an event appended past the CLI) is
// caught by verify, which derives stages-completed again from the stages the log records.
func TestVerifyFindsAForgedJoin(t *testing.T) {
	dir := inChecks(t, stagedYAML)
	head := gittest.Git(t, dir, "", "rev-parse", "HEAD")
	r := apptest.Reopen(t, dir)
	if _, err := r.Store.Append("rel", rulesFold{r.Rules().Defs}, workflow.NewEvent{Type: workflow.EventTransitioned, Data: workflow.TransitionedData{From: "checks", To: "review",
		Trigger: workflow.OnTransition, Guards: []string{workflow.GuardStagesCompleted}, Head: head}}); err != nil {
		t.Fatal(err)
	}
	if st := apptest.Status(t, apptest.Reopen(t, dir), "rel"); st.Phase != "review" {
		t.Fatalf("the forged join did not land: %s", st.Phase)
	}
	res, err := verify.Verify(&verify.Repo{Repo: apptest.Reopen(t, dir).Repo}, verify.Options{Feature: "rel"})
	apptest.WantViolation(t, res, err, "guard", "recorded guard stages-completed as passed, but verify finds: stage(s) test still running")
	if !strings.Contains(err.Error(), "stages-completed") {
		t.Fatalf("verify's error: %v", err)
	}
}
