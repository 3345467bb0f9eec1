package saga_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/exarchos/git-exarchos/internal/apptest"
	"github.com/exarchos/git-exarchos/internal/gittest"
	"github.com/exarchos/git-exarchos/saga"
	"github.com/exarchos/git-exarchos/teamsync"
	"github.com/exarchos/git-exarchos/workflow"
)

// TestCancelCompensatesResourcesAMergeBrings: one clone cancels while another starts a task
// worktree; once the second pulls, its workflow is cancelled with a worktree nobody compensated.
// Running cancel there again compensates it (the work kept under refs/exarchos-rescue/), and a
// further cancel is a no-op that succeeds.
func TestCancelCompensatesResourcesAMergeBrings(t *testing.T) {
	tm := apptest.NewTeam(t, 2)
	a, b := tm.Clones[0], tm.Clones[1]
	_, err := a.CreateWorkflow(workflow.Init{Feature: "login", Type: "feature", Branch: "main"})
	require.NoError(t, err)
	_, err = a.Execute("login", workflow.AddTask{ID: "t1"})
	require.NoError(t, err)
	_, err = teamsync.Push(a.Repo, teamsync.PushOptions{})
	require.NoError(t, err)
	_, err = teamsync.Pull(b.Repo, teamsync.PullOptions{})
	require.NoError(t, err)
	if res, err := saga.Cancel(a.Saga(), saga.CancelOptions{Feature: "login", Reason: "dropped"}); err != nil || !res.Cancelled() {
		t.Fatalf("%+v %v", res, err)
	}
	_, err = teamsync.Push(a.Repo, teamsync.PushOptions{})
	require.NoError(t, err)
	started, err := saga.StartTask(b.Saga(), saga.TaskStartOptions{Feature: "login", Task: "t1", Worktree: true})
	require.NoError(t, err)
	wt := started.Worktree.Path
	require.NoError(t, os.WriteFile(filepath.Join(wt, "work.txt"), []byte("started on b\n"), 0o644))
	_, err = teamsync.Pull(b.Repo, teamsync.PullOptions{})
	require.NoError(t, err)
	st, _, err := b.State("login")
	if err != nil || st.Phase != "cancelled" || len(workflow.CompensationPlan(st)) == 0 {
		t.Fatalf("after the merge: phase %s, plan %v, %v", st.Phase, workflow.CompensationPlan(st), err)
	}
	res, err := saga.Cancel(b.Saga(), saga.CancelOptions{Feature: "login"})
	if err != nil || !res.Cancelled() || len(res.Steps) == 0 {
		t.Fatalf("cancel again: %+v %v", res, err)
	}
	if _, err := os.Stat(wt); !os.IsNotExist(err) {
		t.Fatalf("the worktree is still there: %v", err)
	}
	if st, _, _ = b.State("login"); len(workflow.CompensationPlan(st)) != 0 {
		t.Fatalf("left: %v", workflow.CompensationPlan(st))
	}
	list, err := saga.RescueList(b.Saga(), saga.RescueListOptions{Feature: "login"})
	if err != nil || len(list.Rescues) != 1 || len(list.Rescues[0].Changed) != 1 || list.Rescues[0].Changed[0] != "A work.txt" {
		t.Fatalf("rescues %+v %v", list, err)
	}
	head := gittest.Git(t, tm.Dirs[1], "", "rev-parse", "refs/exarchos/login")
	if res, err := saga.Cancel(b.Saga(), saga.CancelOptions{Feature: "login"}); err != nil || len(res.Steps) != 0 || gittest.Git(t, tm.Dirs[1], "", "rev-parse", "refs/exarchos/login") != head {
		t.Fatalf("a finished cancel again: %+v %v", res, err)
	}
}
