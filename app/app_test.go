package app

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/exarchos/git-exarchos/internal/gittest"
	"github.com/exarchos/git-exarchos/project"
	"github.com/exarchos/git-exarchos/views"
	"github.com/exarchos/git-exarchos/workflow"
)

// newRepo is a repository on branch with one empty commit (gittest.NewRepoOnBranch), opened.
func newRepo(t *testing.T, branch string) (string, *Repo) {
	t.Helper()
	dir := gittest.NewRepoOnBranch(t, branch)
	r, err := Open(dir)
	require.NoError(t, err)
	return dir, r
}

func mustRun(t *testing.T, r *Repo, feature string, cmd workflow.Command) *project.Result {
	t.Helper()
	res, err := Run(r, feature, cmd)
	require.NoError(t, err, "%T", cmd)
	return res
}

// TestFeatureToCompleted drives a feature workflow through every phase to completed. GitHub is
// stood in for by recording the observations ghclient would make (pr.observed), through the
// same engine command.
func TestFeatureToCompleted(t *testing.T) {
	dir, r := newRepo(t, "login")
	res, err := Init(r, InitOptions{Feature: "login", Type: "feature"})
	require.NoError(t, err)
	assert.Equal(t, "ideate", res.State.Phase)
	assert.Equal(t, "login", res.State.Branch)

	gittest.CommitFile(t, dir, "docs/design.md", "# design\n")
	gittest.CommitFile(t, dir, "docs/plan.md", "# plan\n")
	_, err = Set(r, SetOptions{Feature: "login", Assignments: []string{"artifacts.design=docs/design.md", "artifacts.plan=docs/plan.md"}})
	require.NoError(t, err)
	mustRun(t, r, "login", workflow.TransitionTo{Phase: "plan"})
	mustRun(t, r, "login", workflow.TransitionTo{Phase: "plan-review"})
	mustRun(t, r, "login", workflow.Approve{Note: "ok"})
	mustRun(t, r, "login", workflow.TransitionTo{Phase: "delegate"})
	mustRun(t, r, "login", workflow.AddTask{ID: "t1", Title: "store"})
	gittest.CommitFile(t, dir, "store.go", "package login\n")
	mustRun(t, r, "login", workflow.CompleteTask{ID: "t1"})
	mustRun(t, r, "login", workflow.TransitionTo{Phase: "review"})
	mustRun(t, r, "login", workflow.RecordReview{Dimension: "spec", Pass: true, Human: true})
	mustRun(t, r, "login", workflow.RecordReview{Dimension: "quality", Pass: true, Human: true})
	mustRun(t, r, "login", workflow.TransitionTo{Phase: "synthesize"})

	// Cleanup fails closed until a merge is observed.
	_, err = Run(r, "login", workflow.Cleanup{})
	var rej *workflow.Rejection
	require.True(t, errors.As(err, &rej), "got %v", err)
	assert.Equal(t, workflow.CodeGuardFailed, rej.Code)
	assert.Equal(t, "merge-verified", rej.FailedGuards[0].Guard)

	tip := gittest.Git(t, dir, "", "rev-parse", "HEAD")
	url := "https://github.com/acme/app/pull/7"
	mustRun(t, r, "login", workflow.LinkPR{URL: url, Number: 7})
	mustRun(t, r, "login", workflow.ObservePR{PRObservation: workflow.PRObservation{Number: 7, URL: url, Head: "login", Base: "main",
		HeadSHA: tip, State: "closed", Merged: true, MergeCommitSHA: tip, Checks: "success", ObservedAt: "2026-11-23T06:00:00Z"}})
	done := mustRun(t, r, "login", workflow.Cleanup{})
	assert.Equal(t, "completed", done.State.Phase)

	// The whole history is on the ref; the snapshot equals the fold.
	fsck, err := Fsck(r, views.FsckOptions{Feature: "login"})
	require.NoError(t, err)
	assert.True(t, fsck.OK(), "%v", fsck.Problems)
	log, err := Log(r, views.LogOptions{Feature: "login", Types: []string{workflow.EventTransitioned}})
	require.NoError(t, err)
	var path []string
	for _, e := range log.Events {
		var d workflow.TransitionedData
		require.NoError(t, e.DecodeData(&d))
		path = append(path, d.To)
	}
	assert.Equal(t, []string{"plan", "plan-review", "delegate", "review", "synthesize", "completed"}, path)

	// Completed workflows drop out of the active list and reject further changes.
	active, err := ListWorkflows(r, ListOptions{})
	require.NoError(t, err)
	assert.Empty(t, active.Workflows)
	assert.Equal(t, "no active workflows (1 ended: git exarchos list --all)", active.EmptyHint, "an empty list says where the ended ones are")
	_, err = Run(r, "login", workflow.TransitionTo{Phase: "plan"})
	require.True(t, errors.As(err, &rej))
	assert.Equal(t, workflow.CodeFinalPhase, rej.Code)
}

func TestResolveFeature(t *testing.T) {
	dir, r := newRepo(t, "main")
	_, err := r.ResolveFeature("")
	require.ErrorIs(t, err, project.ErrAmbiguous)
	assert.Contains(t, err.Error(), "git exarchos init")

	_, err = Init(r, InitOptions{Feature: "a", Type: "oneshot", Branch: "other"})
	require.NoError(t, err)
	_, err = r.ResolveFeature("")
	require.ErrorIs(t, err, project.ErrAmbiguous, "never a workflow bound to another branch")
	assert.Contains(t, err.Error(), "a (branch other)")
	gittest.Git(t, dir, "", "switch", "-q", "--detach")
	got, err := r.ResolveFeature("")
	require.NoError(t, err)
	assert.Equal(t, "a", got, "detached HEAD: the only active workflow")
	gittest.Git(t, dir, "", "switch", "-q", "main")

	_, err = Init(r, InitOptions{Feature: "b", Type: "oneshot"})
	require.NoError(t, err)
	got, err = r.ResolveFeature("")
	require.NoError(t, err)
	assert.Equal(t, "b", got, "bound to the current branch wins")

	gittest.Git(t, dir, "", "switch", "-q", "-c", "third")
	_, err = r.ResolveFeature("")
	require.ErrorIs(t, err, project.ErrAmbiguous)
	assert.Contains(t, err.Error(), "a (branch other), b (branch main)")

	_, err = r.ResolveFeature("Bad Name")
	var usage *project.UsageError
	require.True(t, errors.As(err, &usage))
}

func TestStatusFields(t *testing.T) {
	_, r := newRepo(t, "main")
	_, err := Init(r, InitOptions{Feature: "s", Type: "debug"})
	require.NoError(t, err)
	res, err := ShowStatus(r, StatusOptions{Feature: "s", Fields: []string{"phase", "track", "head"}})
	require.NoError(t, err)
	assert.JSONEq(t, `"triage"`, string(res.Selected["phase"]))
	assert.Contains(t, string(res.Selected["head"]), `"`)
	assert.Len(t, res.Selected, 3)
	_, err = ShowStatus(r, StatusOptions{Feature: "s", Fields: []string{"nope"}})
	var usage *project.UsageError
	require.True(t, errors.As(err, &usage))
}

func TestAppendEventRefusesEngineTypes(t *testing.T) {
	_, r := newRepo(t, "main")
	_, err := Init(r, InitOptions{Feature: "e", Type: "feature"})
	require.NoError(t, err)
	for _, typ := range []string{workflow.EventTransitioned, "workflow.anything", workflow.EventPlanApproved} {
		_, err := AppendEvent(r, EventOptions{Feature: "e", Type: typ})
		var usage *project.UsageError
		require.True(t, errors.As(err, &usage), typ)
	}
	res, err := AppendEvent(r, EventOptions{Feature: "e", Type: "team.note", Data: `{"x":1}`, IdempotencyKey: "k1"})
	require.NoError(t, err)
	require.Len(t, res.Appended, 1)
	again, err := AppendEvent(r, EventOptions{Feature: "e", Type: "team.note", Data: `{ "x": 1 }`, IdempotencyKey: "k1"})
	require.NoError(t, err)
	assert.Empty(t, again.Appended)
	assert.Len(t, again.Duplicates, 1)
	// Another payload under the key is a conflict naming both (issue 30), and writes nothing.
	_, err = AppendEvent(r, EventOptions{Feature: "e", Type: "team.note", Data: `{"x":2}`, IdempotencyKey: "k1"})
	var conflict *IdempotencyConflict
	require.True(t, errors.As(err, &conflict), "%v", err)
	assert.Equal(t, `{"x":1}`, string(conflict.Recorded.Data))
	assert.Equal(t, `{"x":2}`, string(conflict.Asked.Data))
}
