package app_test

import (
	"strings"
	"testing"

	"github.com/exarchos/git-exarchos/app"
	"github.com/exarchos/git-exarchos/internal/apptest"
	"github.com/exarchos/git-exarchos/internal/gittest"
	"github.com/exarchos/git-exarchos/verify"
	"github.com/exarchos/git-exarchos/workflow"
)

// A stage with a completion schema completes with a payload the schema accepts, recorded with the
// completion. A stage.completed appended past the CLI, with no payload or with one the schema
// refuses, is found by verify (rule stage): the join would otherwise count a stage that handed in
// nothing.

// schemaStagedYAML is stagedYAML whose stage test hands in a completion.
var schemaStagedYAML = strings.Replace(stagedYAML, "  - id: test\n",
	"  - id: test\n    completion: {type: object, required: [passed], properties: {passed: {type: integer}}}\n", 1)

// inChecks is a repository whose main defines the staged type of def, on branch topic, with
// workflow rel in the fan-out phase checks and its stage lint completed.
func inChecks(t *testing.T, def string) string {
	t.Helper()
	dir := t.TempDir()
	gittest.Git(t, dir, "", "init", "-q", "-b", "main")
	gittest.Git(t, dir, "", "config", "user.name", "Stage Test")
	gittest.Git(t, dir, "", "config", "user.email", "stage@example.com")
	apptest.WriteCommit(t, dir, ".exarchos/workflows/staged.yaml", def)
	gittest.Git(t, dir, "", "checkout", "-q", "-b", "topic")
	r := apptest.Reopen(t, dir)
	if _, err := app.Init(r, app.InitOptions{Feature: "rel", Type: "staged"}); err != nil {
		t.Fatal(err)
	}
	if _, err := app.Run(r, "rel", workflow.TransitionTo{Phase: "checks"}); err != nil {
		t.Fatal(err)
	}
	if _, err := app.StageDone(apptest.Reopen(t, dir), app.StageDoneOptions{Feature: "rel", Stage: "lint"}); err != nil {
		t.Fatal(err)
	}
	return dir
}

func stageViolations(t *testing.T, dir string) []string {
	t.Helper()
	res, _ := verify.Verify(&verify.Repo{Repo: apptest.Reopen(t, dir).Repo}, verify.Options{Feature: "rel"})
	var out []string
	for _, w := range res.Workflows {
		for _, v := range w.Violations {
			if v.Rule == "stage" {
				out = append(out, v.Message)
			}
		}
	}
	return out
}

func TestVerifyStageCompletionCarriesItsPayload(t *testing.T) {
	t.Run("stage done", func(t *testing.T) {
		dir := inChecks(t, schemaStagedYAML)
		if _, err := app.StageDone(apptest.Reopen(t, dir), app.StageDoneOptions{Feature: "rel", Stage: "test", Stdin: strings.NewReader(`{"passed": 12}`)}); err != nil {
			t.Fatal(err)
		}
		if _, err := app.Run(apptest.Reopen(t, dir), "rel", workflow.TransitionTo{Phase: "review"}); err != nil {
			t.Fatal(err)
		}
		if v := stageViolations(t, dir); len(v) != 0 {
			t.Fatalf("a completion through the CLI: %v", v)
		}
	})
	forge := func(t *testing.T, dir string, evs ...workflow.NewEvent) {
		t.Helper()
		r := apptest.Reopen(t, dir)
		if _, err := r.Store.Append("rel", rulesFold{r.Rules().Defs}, evs...); err != nil {
			t.Fatal(err)
		}
		if _, err := app.Run(apptest.Reopen(t, dir), "rel", workflow.TransitionTo{Phase: "review"}); err != nil {
			t.Fatalf("the forged completion opens the join: %v", err)
		}
	}
	completed := workflow.NewEvent{Type: workflow.EventStageCompleted, Data: workflow.StageData{Phase: "checks", Stage: "test"}}
	t.Run("no payload", func(t *testing.T) {
		dir := inChecks(t, schemaStagedYAML)
		forge(t, dir, completed)
		if v := stageViolations(t, dir); len(v) != 1 || !strings.Contains(v[0], "stage test is recorded completed without its completion") {
			t.Fatalf("violations %v", v)
		}
	})
	t.Run("a payload the schema refuses", func(t *testing.T) {
		dir := inChecks(t, schemaStagedYAML)
		forge(t, dir, completed, workflow.NewEvent{Type: workflow.EventArtifactRecorded,
			Data: workflow.ArtifactData{Name: workflow.StageArtifact("test"), Text: `{"passed": "all of them"}`, Inline: true}})
		if v := stageViolations(t, dir); len(v) != 1 || !strings.Contains(v[0], "a completion its schema refuses: /passed") {
			t.Fatalf("violations %v", v)
		}
	})
}
