package app

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/exarchos/git-exarchos/githubsync"
	"github.com/exarchos/git-exarchos/internal/gittest"
	"github.com/exarchos/git-exarchos/saga"
	"github.com/exarchos/git-exarchos/views"
	"github.com/exarchos/git-exarchos/workflow"
)

// inPlanReview is a feature workflow waiting for a human's approval.
func inPlanReview(t *testing.T) (string, *Repo) {
	dir, r := newRepo(t, "login")
	_, err := Init(r, InitOptions{Feature: "login", Type: "feature"})
	require.NoError(t, err)
	gittest.CommitFile(t, dir, "docs/design.md", "# design\n")
	gittest.CommitFile(t, dir, "docs/plan.md", "# plan\n")
	_, err = Set(r, SetOptions{Feature: "login", Assignments: []string{"artifacts.design=docs/design.md", "artifacts.plan=docs/plan.md"}})
	require.NoError(t, err)
	mustRun(t, r, "login", workflow.TransitionTo{Phase: "plan"})
	mustRun(t, r, "login", workflow.TransitionTo{Phase: "plan-review"})
	mustRun(t, r, "login", workflow.AddTask{ID: "t1", Title: "store"})
	mustRun(t, r, "login", workflow.AddTask{ID: "t2"})
	mustRun(t, r, "login", workflow.FailTask{ID: "t2", Reason: "no API"})
	return dir, r
}

// TestPipelineView: the row says where the workflow is, that it waits on a human (approve), its
// age from the first event, its tasks and, for a finished one, nothing to do.
func TestPipelineView(t *testing.T) {
	_, r := inPlanReview(t)
	later := time.Now().Add(50 * time.Hour)
	p, err := ShowPipeline(r, views.PipelineOptions{Now: later})
	require.NoError(t, err)
	require.Len(t, p.Workflows, 1)
	row := p.Workflows[0]
	assert.Equal(t, "plan-review", row.Phase)
	assert.Equal(t, "login", row.Branch)
	assert.True(t, row.Human, "plan-review waits on approve: %+v", row)
	assert.True(t, strings.HasPrefix(row.Next, "ask the user to run: git exarchos approve login"), row.Next)
	assert.Contains(t, row.Blocked, "approv")
	assert.GreaterOrEqual(t, row.AgeSeconds, int64(50*3600-60))
	assert.Equal(t, map[string]int{"pending": 1, "failed": 1}, row.Tasks)

	// An agent's own next step is not a human's.
	_, r2 := newRepo(t, "x")
	_, err = Init(r2, InitOptions{Feature: "x", Type: "feature"})
	require.NoError(t, err)
	p, err = ShowPipeline(r2, views.PipelineOptions{})
	require.NoError(t, err)
	assert.False(t, p.Workflows[0].Human)
	assert.Equal(t, "git exarchos set x artifacts.design=<path>", p.Workflows[0].Next)

	// Cancelled: gone from the default view, shown with --all without a next step.
	_, err = Cancel(r2, saga.CancelOptions{Feature: "x", Reason: "test"})
	require.NoError(t, err)
	p, err = ShowPipeline(r2, views.PipelineOptions{})
	require.NoError(t, err)
	assert.Empty(t, p.Workflows)
	p, err = ShowPipeline(r2, views.PipelineOptions{All: true})
	require.NoError(t, err)
	require.Len(t, p.Workflows, 1)
	assert.Equal(t, "cancelled", p.Workflows[0].Phase)
	assert.Empty(t, p.Workflows[0].Next)
}

// TestTaskBoardView: one workflow's tasks, or every active workflow's; an unknown one is an error.
func TestTaskBoardView(t *testing.T) {
	dir, r := inPlanReview(t)
	b, err := ShowTasks(r, views.TasksOptions{Feature: "login"})
	require.NoError(t, err)
	require.Len(t, b.Workflows, 1)
	assert.Equal(t, []string{"t1", "t2"}, []string{b.Workflows[0].Tasks[0].ID, b.Workflows[0].Tasks[1].ID})
	assert.Equal(t, "no API", b.Workflows[0].Tasks[1].Reason)
	assert.Equal(t, map[string]int{"pending": 1, "failed": 1}, b.Workflows[0].Counts)
	gittest.Git(t, dir, "", "branch", "other")
	_, err = Init(r, InitOptions{Feature: "other", Type: "debug", Branch: "other"})
	require.NoError(t, err)
	b, err = ShowTasks(r, views.TasksOptions{})
	require.NoError(t, err)
	assert.Len(t, b.Workflows, 2)
	assert.NotNil(t, b.Workflows[1].Tasks, "an empty board is [] in JSON, not null")
	_, err = ShowTasks(r, views.TasksOptions{Feature: "nope"})
	assert.Error(t, err)
}

// TestStatusDiagram: the type's whole diagram, with the visited phases and the current one
// marked, and the path in order.
func TestStatusDiagram(t *testing.T) {
	_, r := inPlanReview(t)
	d, err := ShowStatusDiagram(r, views.StatusDiagramOptions{Feature: "login"})
	require.NoError(t, err)
	assert.Equal(t, []string{"ideate", "plan", "plan-review"}, d.Path)
	assert.Contains(t, d.Mermaid, "delegate --> review", "the whole definition is drawn, not only the path")
	assert.Contains(t, d.Mermaid, "class ideate,plan visited")
	assert.Contains(t, d.Mermaid, "class plan_review current")
	assert.Contains(t, d.Mermaid, "%% path taken: ideate → plan → plan-review")
}

// TestDoctorFindsWhatIsWrong: a stale lock and a snapshot that disagrees with its events are
// failures with a runnable fix; a workflow waiting on a human for days is a warning; fixing the
// lock clears it.
func TestDoctorFindsWhatIsWrong(t *testing.T) {
	dir, _ := inPlanReview(t)
	t.Setenv("GH_TOKEN", "")
	t.Setenv("GITHUB_TOKEN", "")
	noGh := func(string) (string, error) { return "", os.ErrNotExist }
	env := func(k string) string { return os.Getenv(k) }
	bin := t.TempDir() // the handler on PATH, as an install puts it
	require.NoError(t, os.WriteFile(filepath.Join(bin, "git-exarchos"), []byte("#!/bin/sh\n"), 0o755))
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))

	res, err := Doctor(DoctorOptions{Dir: dir, Env: envOf(env, noGh)})
	require.NoError(t, err)
	assert.Zero(t, res.Failures, "%+v", res.Checks)
	assert.Equal(t, CheckOK, find(res, "store").Status)

	// Four days later, still waiting for approval.
	res, err = Doctor(DoctorOptions{Dir: dir, Env: envOf(env, noGh), Now: time.Now().Add(96 * time.Hour)})
	require.NoError(t, err)
	st := find(res, "stuck")
	assert.Equal(t, CheckWarn, st.Status)
	assert.Contains(t, st.Message, "waited on a human in plan-review")
	assert.Equal(t, "ask the user to run: git exarchos approve login --note \"…\"", st.Fix)

	// A lock left by a crashed git, an hour old.
	lock := filepath.Join(dir, ".git", "refs", "exarchos", "login.lock")
	require.NoError(t, os.WriteFile(lock, nil, 0o644))
	old := time.Now().Add(-time.Hour)
	require.NoError(t, os.Chtimes(lock, old, old))
	res, err = Doctor(DoctorOptions{Dir: dir, Env: envOf(env, noGh)})
	require.NoError(t, err)
	assert.Equal(t, 1, res.Failures, "%+v", res.Checks)
	l := find(res, "store")
	assert.Equal(t, CheckFail, l.Status)
	assert.Equal(t, "rm -f -- '"+lock+"'", l.Fix)
	require.NoError(t, os.Remove(lock))

	// A snapshot that disagrees with the events (state.json rewritten by hand).
	head := gittest.Git(t, dir, "", "rev-parse", "refs/exarchos/login")
	blob := gittest.Git(t, dir, "", "hash-object", "-w", "/dev/null")
	tree := gittest.Git(t, dir, "", "rev-parse", head+"^{tree}")
	ls := gittest.Git(t, dir, "", "ls-tree", tree)
	var lines []string
	for _, l := range strings.Split(ls, "\n") {
		if strings.HasSuffix(l, "\tstate.json") {
			l = "100644 blob " + blob + "\tstate.json"
		}
		lines = append(lines, l)
	}
	tree = gittest.Git(t, dir, strings.Join(lines, "\n")+"\n", "mktree")
	msg := gittest.Git(t, dir, "", "log", "-1", "--format=%B", head)
	forged := gittest.Git(t, dir, "", "commit-tree", tree, "-p", head, "-m", msg)
	gittest.Git(t, dir, "", "update-ref", "refs/exarchos/login", forged, head)
	res, err = Doctor(DoctorOptions{Dir: dir, Env: envOf(env, noGh)})
	require.NoError(t, err)
	s := find(res, "store")
	assert.Equal(t, CheckFail, s.Status, "%+v", res.Checks)
	assert.Equal(t, "git exarchos fsck login", s.Fix)
}

func find(res *DoctorResult, id string) DoctorCheck {
	for _, c := range res.Checks {
		if c.ID == id {
			return c
		}
	}
	return DoctorCheck{}
}

func envOf(getenv func(string) string, gh func(string) (string, error)) githubsync.Env {
	return githubsync.Env{Getenv: getenv, GhToken: gh}
}
