package views_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/exarchos/git-exarchos/app"
	"github.com/exarchos/git-exarchos/internal/apptest"
	"github.com/exarchos/git-exarchos/internal/gittest"
	"github.com/exarchos/git-exarchos/saga"
	"github.com/exarchos/git-exarchos/views"
)

// TestPipelineView: the row says where the workflow is, that it waits on a human (approve), its
// age from the first event, its tasks and, for a finished one, nothing to do.
func TestPipelineView(t *testing.T) {
	_, r := apptest.InPlanReview(t)
	later := time.Now().Add(50 * time.Hour)
	p, err := views.ShowPipeline(r.Hook(), views.PipelineOptions{Now: later}, r.ViewWorkflows())
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
	r2 := apptest.Reopen(t, gittest.NewRepoOnBranch(t, "x"))
	_, err = app.Init(r2, app.InitOptions{Feature: "x", Type: "feature"})
	require.NoError(t, err)
	p, err = views.ShowPipeline(r2.Hook(), views.PipelineOptions{}, r2.ViewWorkflows())
	require.NoError(t, err)
	assert.False(t, p.Workflows[0].Human)
	assert.Equal(t, "git exarchos set x artifacts.design=<path>", p.Workflows[0].Next)

	// Cancelled: gone from the default view, shown with --all without a next step.
	_, err = saga.Cancel(r2.Saga(), saga.CancelOptions{Feature: "x", Reason: "test"})
	require.NoError(t, err)
	p, err = views.ShowPipeline(r2.Hook(), views.PipelineOptions{}, r2.ViewWorkflows())
	require.NoError(t, err)
	assert.Empty(t, p.Workflows)
	p, err = views.ShowPipeline(r2.Hook(), views.PipelineOptions{All: true}, r2.ViewWorkflows())
	require.NoError(t, err)
	require.Len(t, p.Workflows, 1)
	assert.Equal(t, "cancelled", p.Workflows[0].Phase)
	assert.Empty(t, p.Workflows[0].Next)
}

// TestTaskBoardView: one workflow's tasks, or every active workflow's; an unknown one is an error.
func TestTaskBoardView(t *testing.T) {
	dir, r := apptest.InPlanReview(t)
	b, err := views.ShowTasks(r.Hook(), views.TasksOptions{Feature: "login"}, r.ViewWorkflows())
	require.NoError(t, err)
	require.Len(t, b.Workflows, 1)
	assert.Equal(t, []string{"t1", "t2"}, []string{b.Workflows[0].Tasks[0].ID, b.Workflows[0].Tasks[1].ID})
	assert.Equal(t, "no API", b.Workflows[0].Tasks[1].Reason)
	assert.Equal(t, map[string]int{"pending": 1, "failed": 1}, b.Workflows[0].Counts)
	gittest.Git(t, dir, "", "branch", "other")
	_, err = app.Init(r, app.InitOptions{Feature: "other", Type: "debug", Branch: "other"})
	require.NoError(t, err)
	b, err = views.ShowTasks(r.Hook(), views.TasksOptions{}, r.ViewWorkflows())
	require.NoError(t, err)
	assert.Len(t, b.Workflows, 2)
	assert.NotNil(t, b.Workflows[1].Tasks, "an empty board is [] in JSON, not null")
	_, err = views.ShowTasks(r.Hook(), views.TasksOptions{Feature: "nope"}, r.ViewWorkflows())
	assert.Error(t, err)
}

// TestStatusDiagram: the type's whole diagram, with the visited phases and the current one
// marked, and the path in order.
func TestStatusDiagram(t *testing.T) {
	_, r := apptest.InPlanReview(t)
	d, err := views.ShowStatusDiagram(r.Hook(), views.StatusDiagramOptions{Feature: "login"})
	require.NoError(t, err)
	assert.Equal(t, []string{"ideate", "plan", "plan-review"}, d.Path)
	assert.Contains(t, d.Mermaid, "delegate --> review", "the whole definition is drawn, not only the path")
	assert.Contains(t, d.Mermaid, "class ideate,plan visited")
	assert.Contains(t, d.Mermaid, "class plan_review current")
	assert.Contains(t, d.Mermaid, "%% path taken: ideate → plan → plan-review")
}
