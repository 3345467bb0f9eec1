package app_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/exarchos/git-exarchos/app"
	"github.com/exarchos/git-exarchos/internal/gittest"
	"github.com/exarchos/git-exarchos/teamsync"
	"github.com/exarchos/git-exarchos/workflow"
)

const docsType = "type: docs\ninitial: write\nphases:\n  - {id: write}\n  - {id: check}\n  - {id: done, kind: final}\ntransitions:\n  - {from: write, to: check}\n  - {from: check, to: done}\n"

func open(t *testing.T, dir string) *app.Repo {
	t.Helper()
	r, err := app.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestPulledRepositoryWorkflowKeepsItsPhaseOnAnyCheckout: the definition of a repository-defined
// type comes from the base branch (origin/main as fetched), so a clone that has checked out a
// commit without .exarchos/workflows merges a diverged workflow into a valid phase with no
// conflicts (the fold used to find no definition at HEAD: phase "" and 3 conflicts).
func TestPulledRepositoryWorkflowKeepsItsPhaseOnAnyCheckout(t *testing.T) {
	tm := newTeam(t, 2)
	initial := gittest.Git(t, tm.dirs[0], "", "rev-parse", "HEAD")
	p := filepath.Join(tm.dirs[0], ".exarchos", "workflows", "docs.yaml")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(docsType), 0o644); err != nil {
		t.Fatal(err)
	}
	gittest.Git(t, tm.dirs[0], "", "add", ".exarchos")
	gittest.Git(t, tm.dirs[0], "", "commit", "-q", "-m", "docs workflow")
	gittest.Git(t, tm.dirs[0], "", "push", "-q", "origin", "main")
	gittest.Git(t, tm.dirs[1], "", "pull", "-q", "origin", "main")

	a := open(t, tm.dirs[0])
	if _, err := a.CreateWorkflow(workflow.Init{Feature: "guide", Type: "docs", Branch: "main"}); err != nil {
		t.Fatal(err)
	}
	if _, err := teamsync.Sync(a.Repo, teamsync.SyncOptions{}); err != nil {
		t.Fatal(err)
	}
	b := open(t, tm.dirs[1])
	if _, err := teamsync.Pull(b.Repo, teamsync.PullOptions{}); err != nil {
		t.Fatal(err)
	}
	// Diverge: a moves the workflow, b records a field.
	if _, err := a.Execute("guide", workflow.TransitionTo{Phase: "check"}); err != nil {
		t.Fatal(err)
	}
	if _, err := teamsync.Sync(a.Repo, teamsync.SyncOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Execute("guide", workflow.Set{Assignments: []workflow.Assignment{{Path: "owner", Value: []byte(`"bo"`)}}}); err != nil {
		t.Fatal(err)
	}
	// Rules read from a base without the definition: the merge is refused, the local ref is kept,
	// and the message says what is missing and where to get it.
	gittest.Git(t, tm.dirs[1], "", "branch", "rules-old", initial)
	t.Setenv("HOME", t.TempDir()) // the user's own config names the base (never the repository's)
	t.Setenv("XDG_CONFIG_HOME", "")
	gittest.Git(t, tm.dirs[1], "", "config", "--global", "exarchos.definitionsRef", "rules-old")
	local := gittest.Git(t, tm.dirs[1], "", "rev-parse", "refs/exarchos/guide")
	pr, err := teamsync.Pull(open(t, tm.dirs[1]).Repo, teamsync.PullOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(pr.Workflows) != 1 || pr.Workflows[0].Action != teamsync.Failed || !strings.Contains(pr.Workflows[0].Message, `"docs" is not defined on the base branch refs/heads/rules-old`) {
		t.Fatalf("pull without the definition: %+v", pr.Workflows)
	}
	if got := gittest.Git(t, tm.dirs[1], "", "rev-parse", "refs/exarchos/guide"); got != local {
		t.Fatalf("the refused merge moved the ref: %s → %s", local, got)
	}
	gittest.Git(t, tm.dirs[1], "", "config", "--global", "--unset", "exarchos.definitionsRef")

	// b works on a commit from before the definition existed.
	gittest.Git(t, tm.dirs[1], "", "checkout", "-q", "-b", "old", initial)
	b = open(t, tm.dirs[1])
	pr, err = teamsync.Pull(b.Repo, teamsync.PullOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(pr.Workflows) != 1 || pr.Workflows[0].Action == teamsync.Failed {
		t.Fatalf("pull: %+v", pr.Workflows)
	}
	st, _, err := b.State("guide")
	if err != nil {
		t.Fatal(err)
	}
	if st.Phase != "check" || len(st.Conflicts) != 0 || st.FieldString("owner") != "bo" {
		t.Fatalf("merged state: phase %q, conflicts %+v, owner %q", st.Phase, st.Conflicts, st.FieldString("owner"))
	}
	tr, err := app.ListTransitions(b, app.TransitionsOptions{Feature: "guide"})
	if err != nil || len(tr.Transitions) == 0 || tr.Transitions[0].To != "done" {
		t.Fatalf("transitions on the old checkout: %+v %v", tr, err)
	}
	// Back on main the same state, and the workflow moves on.
	gittest.Git(t, tm.dirs[1], "", "checkout", "-q", "main")
	if res, err := open(t, tm.dirs[1]).Execute("guide", workflow.TransitionTo{Phase: "done"}); err != nil || res.State.Phase != "done" {
		t.Fatalf("move on after the merge: %+v %v", res, err)
	}
}
