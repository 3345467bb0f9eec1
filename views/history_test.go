package views_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/exarchos/git-exarchos/app"
	"github.com/exarchos/git-exarchos/internal/apptest"
	"github.com/exarchos/git-exarchos/internal/gittest"
	"github.com/exarchos/git-exarchos/views"
	"github.com/exarchos/git-exarchos/workflow"
)

// TestTimelineNamesWhoDidEachStep: a subagent's task and review are its own in the timeline (the
// caller the hook saw), the main agent's steps are "main", a human decision is "human"; each task
// has its span and who finished it.
func TestTimelineNamesWhoDidEachStep(t *testing.T) {
	dir, r := apptest.InPlanReview(t)
	apptest.MustRun(t, r, "login", workflow.Approve{Note: "ok"})
	apptest.MustRun(t, r, "login", workflow.TransitionTo{Phase: "delegate"})
	apptest.ActAsAgent(t, dir, "s-1", "a-impl")
	apptest.MustRun(t, r, "login", workflow.StartTask{ID: "t1"})
	gittest.CommitFile(t, dir, "src/store.go", "package store\n\nfunc Open() {}\n")
	_, err := app.Run(apptest.Reopen(t, dir), "login", workflow.CompleteTask{ID: "t1"})
	require.NoError(t, err)

	tl, err := views.ShowTimeline(apptest.Reopen(t, dir).Hook(), views.TimelineOptions{Feature: "login"})
	require.NoError(t, err)
	byKind := map[string]views.TimelineEntry{}
	for _, e := range tl.Entries {
		byKind[e.Kind+" "+e.Task] = e
	}
	assert.Equal(t, "human", byKind[workflow.EventPlanApproved+" "].Who)
	assert.Equal(t, "main", byKind[workflow.EventTaskAdded+" t1"].Who, "added before any subagent")
	assert.Equal(t, "code-reviewer (a-impl)", byKind[workflow.EventTaskCompleted+" t1"].Who)
	assert.Equal(t, "delegate", byKind[workflow.EventTaskCompleted+" t1"].Phase)
	assert.Equal(t, "s-1", byKind[workflow.EventTaskCompleted+" t1"].Session)
	require.Len(t, tl.Tasks, 2)
	assert.Equal(t, views.TimelineTask{ID: "t1", Title: "store", Status: workflow.TaskCompleted, Who: "code-reviewer (a-impl)"},
		views.TimelineTask{ID: tl.Tasks[0].ID, Title: tl.Tasks[0].Title, Status: tl.Tasks[0].Status, Who: tl.Tasks[0].Who})
	assert.False(t, tl.Tasks[0].Started.IsZero())
	assert.False(t, tl.Tasks[0].Finished.Before(tl.Tasks[0].Started))
	assert.Equal(t, workflow.TaskFailed, tl.Tasks[1].Status)
	assert.Positive(t, tl.ByWho["code-reviewer (a-impl)"])
	assert.Positive(t, tl.ByWho["human"])
	assert.Contains(t, tl.Markdown(), "| t1 store | completed |")
	assert.Contains(t, tl.Mermaid(), "    t1 store :done, ")
	assert.Contains(t, tl.Mermaid(), "    t2  :crit, ")
}

// TestStackFollowsTheBranches: b started from a's branch is on a even after both moved on (a's tip
// is no longer in b's history: the one that started first is below); c on b is two up and waits
// for both; a workflow on the base alone is counted, not stacked; once a is merged into the base,
// b is on the base and the stack is b and c.
func TestStackFollowsTheBranches(t *testing.T) {
	dir := gittest.NewRepo(t, "sha1")
	gittest.Git(t, dir, "", "switch", "-q", "-c", "a")
	r := apptest.Reopen(t, dir)
	start := func(branch, from, feature string) {
		gittest.Git(t, dir, "", "switch", "-q", "-c", branch, from)
		_, err := app.Init(apptest.Reopen(t, dir), app.InitOptions{Feature: feature, Type: "feature"})
		require.NoError(t, err)
		gittest.CommitFile(t, dir, feature+".txt", feature+"\n")
	}
	_, err := app.Init(r, app.InitOptions{Feature: "a", Type: "feature"})
	require.NoError(t, err)
	gittest.CommitFile(t, dir, "a1.txt", "a1\n")
	start("b", "a", "b")
	start("c", "b", "c")
	gittest.Git(t, dir, "", "switch", "-q", "a")
	gittest.CommitFile(t, dir, "a2.txt", "a2\n") // a moves on: its tip is not in b's history
	start("solo", "main", "solo")

	st, err := views.ShowStack(apptest.Reopen(t, dir).Hook(), views.StackOptions{}, apptest.Reopen(t, dir).ViewWorkflows())
	require.NoError(t, err)
	require.Len(t, st.Stacks, 1, "%+v", st)
	var got []string
	for _, e := range st.Stacks[0] {
		got = append(got, e.Feature+" on "+e.On+" waits "+strings.Join(e.WaitsFor, ","))
	}
	assert.Equal(t, []string{"a on  waits ", "b on a waits a", "c on b waits a,b"}, got)
	assert.Equal(t, 1, st.Alone)
	assert.Contains(t, st.Markdown(), "    - **c** (`c`, ideate) — merges after a, b")
	assert.Contains(t, st.Mermaid(), "    w_b --> w_c[\"c: ideate\"]")

	// a merges into the base: b and c are the stack now, on the base.
	gittest.Git(t, dir, "", "switch", "-q", "main")
	gittest.Git(t, dir, "", "merge", "-q", "--no-edit", "a")
	st, err = views.ShowStack(apptest.Reopen(t, dir).Hook(), views.StackOptions{}, apptest.Reopen(t, dir).ViewWorkflows())
	require.NoError(t, err)
	require.Len(t, st.Stacks, 1, "%+v", st)
	got = nil
	for _, e := range st.Stacks[0] {
		got = append(got, e.Feature+" on "+e.On)
	}
	assert.Equal(t, []string{"b on ", "c on b"}, got)
}
