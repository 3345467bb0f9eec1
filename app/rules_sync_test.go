package app_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/exarchos/git-exarchos/app"
	"github.com/exarchos/git-exarchos/internal/apptest"
	"github.com/exarchos/git-exarchos/internal/gittest"
	"github.com/exarchos/git-exarchos/teamsync"
	"github.com/exarchos/git-exarchos/workflow"
)

const docsType = "type: docs\ninitial: write\nphases:\n  - {id: write}\n  - {id: check}\n  - {id: done, kind: final}\ntransitions:\n  - {from: write, to: check}\n  - {from: check, to: done}\n"

// TestPulledRepositoryWorkflowKeepsItsPhaseOnAnyCheckout: the definition of a repository-defined
// type comes from the base branch (origin/main as fetched), so a clone that has checked out a
// commit without .exarchos/workflows merges a diverged workflow into a valid phase with no
// conflicts (the fold used to find no definition at HEAD: phase "" and 3 conflicts).
func TestPulledRepositoryWorkflowKeepsItsPhaseOnAnyCheckout(t *testing.T) {
	tm := apptest.NewTeam(t, 2)
	initial := gittest.Git(t, tm.Dirs[0], "", "rev-parse", "HEAD")
	p := filepath.Join(tm.Dirs[0], ".exarchos", "workflows", "docs.yaml")
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, []byte(docsType), 0o644))
	gittest.Git(t, tm.Dirs[0], "", "add", ".exarchos")
	gittest.Git(t, tm.Dirs[0], "", "commit", "-q", "-m", "docs workflow")
	gittest.Git(t, tm.Dirs[0], "", "push", "-q", "origin", "main")
	gittest.Git(t, tm.Dirs[1], "", "pull", "-q", "origin", "main")

	a := apptest.Reopen(t, tm.Dirs[0])
	_, err := a.CreateWorkflow(workflow.Init{Feature: "guide", Type: "docs", Branch: "main"})
	require.NoError(t, err)
	_, err = teamsync.Sync(a.Repo, teamsync.SyncOptions{})
	require.NoError(t, err)
	b := apptest.Reopen(t, tm.Dirs[1])
	_, err = teamsync.Pull(b.Repo, teamsync.PullOptions{})
	require.NoError(t, err)
	// Diverge: a moves the workflow, b records a field.
	_, err = a.Execute("guide", workflow.TransitionTo{Phase: "check"})
	require.NoError(t, err)
	_, err = teamsync.Sync(a.Repo, teamsync.SyncOptions{})
	require.NoError(t, err)
	_, err = b.Execute("guide", workflow.Set{Assignments: []workflow.Assignment{{Path: "owner", Value: []byte(`"bo"`)}}})
	require.NoError(t, err)
	// Rules read from a base without the definition: the merge is refused, the local ref is kept,
	// and the message says what is missing and where to get it.
	gittest.Git(t, tm.Dirs[1], "", "branch", "rules-old", initial)
	t.Setenv("HOME", t.TempDir()) // the user's own config names the base (never the repository's)
	t.Setenv("XDG_CONFIG_HOME", "")
	gittest.Git(t, tm.Dirs[1], "", "config", "--global", "exarchos.definitionsRef", "rules-old")
	local := gittest.Git(t, tm.Dirs[1], "", "rev-parse", "refs/exarchos/guide")
	pr, err := teamsync.Pull(apptest.Reopen(t, tm.Dirs[1]).Repo, teamsync.PullOptions{})
	require.NoError(t, err)
	if len(pr.Workflows) != 1 || pr.Workflows[0].Action != teamsync.Failed || !strings.Contains(pr.Workflows[0].Message, `"docs" is not defined on the base branch refs/heads/rules-old`) {
		t.Fatalf("pull without the definition: %+v", pr.Workflows)
	}
	if got := gittest.Git(t, tm.Dirs[1], "", "rev-parse", "refs/exarchos/guide"); got != local {
		t.Fatalf("the refused merge moved the ref: %s → %s", local, got)
	}
	gittest.Git(t, tm.Dirs[1], "", "config", "--global", "--unset", "exarchos.definitionsRef")

	// b works on a commit from before the definition existed.
	gittest.Git(t, tm.Dirs[1], "", "checkout", "-q", "-b", "old", initial)
	b = apptest.Reopen(t, tm.Dirs[1])
	pr, err = teamsync.Pull(b.Repo, teamsync.PullOptions{})
	require.NoError(t, err)
	if len(pr.Workflows) != 1 || pr.Workflows[0].Action == teamsync.Failed {
		t.Fatalf("pull: %+v", pr.Workflows)
	}
	st, _, err := b.State("guide")
	require.NoError(t, err)
	if st.Phase != "check" || len(st.Conflicts) != 0 || st.FieldString("owner") != "bo" {
		t.Fatalf("merged state: phase %q, conflicts %+v, owner %q", st.Phase, st.Conflicts, st.FieldString("owner"))
	}
	tr, err := app.ListTransitions(b, app.TransitionsOptions{Feature: "guide"})
	if err != nil || len(tr.Transitions) == 0 || tr.Transitions[0].To != "done" {
		t.Fatalf("transitions on the old checkout: %+v %v", tr, err)
	}
	// Back on main the same state, and the workflow moves on.
	gittest.Git(t, tm.Dirs[1], "", "checkout", "-q", "main")
	if res, err := apptest.Reopen(t, tm.Dirs[1]).Execute("guide", workflow.TransitionTo{Phase: "done"}); err != nil || res.State.Phase != "done" {
		t.Fatalf("move on after the merge: %+v %v", res, err)
	}
}
