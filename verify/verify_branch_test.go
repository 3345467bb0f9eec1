package verify_test

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/exarchos/git-exarchos/app"
	"github.com/exarchos/git-exarchos/ghevidence"
	"github.com/exarchos/git-exarchos/internal/apptest"
	"github.com/exarchos/git-exarchos/internal/gittest"
	"github.com/exarchos/git-exarchos/teamsync"
	"github.com/exarchos/git-exarchos/trust"
	"github.com/exarchos/git-exarchos/verify"
	"github.com/exarchos/git-exarchos/workflow"
)

// Issue 37, item 2: verify derives which workflows a branch has from their events (the folded
// workflow.started), never from the Exarchos-Branch trailer of the ref's head commit, which any
// process can write with plumbing.

// completedElsewhere walks a oneshot workflow "old" on its own branch to completion the honest
// way (merged into origin/main, cleanup --offline) in dir, and returns to branch back.
func completedElsewhere(t *testing.T, dir, back string) {
	t.Helper()
	gittest.Git(t, dir, "", "checkout", "-q", "-b", "old", "origin/main")
	_, err := app.Init(apptest.Reopen(t, dir), app.InitOptions{Feature: "old", Type: "oneshot"})
	require.NoError(t, err)
	apptest.WriteCommit(t, dir, "old.go", "package old\n")
	gittest.Git(t, dir, "", "push", "-q", "origin", "old", "old:main")
	gittest.Git(t, dir, "", "fetch", "-q", "origin")
	_, err = ghevidence.Cleanup(apptest.Reopen(t, dir).GitHub(), ghevidence.CleanupOptions{Feature: "old", Offline: true})
	require.NoError(t, err)
	gittest.Git(t, dir, "", "checkout", "-q", back)
}

// relabel appends a commit to refs/exarchos/<feature> with git commit-tree and update-ref: the same
// tree (so the same events and state.json), a message whose trailers name another branch.
func relabel(t *testing.T, dir, feature, branch string) {
	t.Helper()
	ref := "refs/exarchos/" + feature
	head := gittest.Git(t, dir, "", "rev-parse", ref)
	msg := "relabel\n\nExarchos-Phase: completed\nExarchos-Type: oneshot\nExarchos-Branch: " + branch + "\nExarchos-Events: 1\n"
	c := gittest.Git(t, dir, msg, "commit-tree", head+"^{tree}", "-p", head)
	gittest.Git(t, dir, "", "update-ref", ref, c, head)
}

// A complete workflow of another branch re-labelled (its head's trailer says login), and the
// login workflow, still waiting on the human's approval, re-labelled away: the trailers now say
// login has one complete workflow. CI selects by the events: login is still in plan-review.
func TestVerifyBranchRelabelledWorkflowDoesNotCount(t *testing.T) {
	st := apptest.NewSignedTeam(t)
	dir := st.Dirs[0]
	completedElsewhere(t, dir, "login")
	relabel(t, dir, "old", "login")
	relabel(t, dir, "login", "elsewhere")
	list, err := apptest.Reopen(t, dir).Store.List()
	require.NoError(t, err)
	for _, s := range list {
		if s.Feature == "old" && s.Branch != "login" {
			t.Fatalf("the re-label did not take: %+v", list)
		}
	}
	apptest.PushAll(t, dir)
	res, err := ciVerify(t, st)
	apptest.WantViolation(t, res, err, "phase", "login is in plan-review")
	for _, w := range res.Workflows {
		if w.Feature == "old" {
			t.Fatalf("a workflow started for branch old counts for login: %+v", res.Workflows)
		}
	}
	// The workflow of branch old still verifies for old.
	_, err = verify.Verify(&verify.Repo{Repo: apptest.Reopen(t, apptest.CIClone(t, st.Remote)).Repo}, verify.Options{Branch: "old", Base: "origin/main", Require: true})
	require.NoError(t, err, "old on its own branch")
}

// A field.set of "branch" is a field, not a binding: it moves no workflow to another branch.
func TestVerifyBranchFieldIsNoBinding(t *testing.T) {
	st := apptest.NewSignedTeam(t)
	dir := st.Dirs[0]
	completedElsewhere(t, dir, "login")
	apptest.Forge(t, apptest.Reopen(t, dir), "old", workflow.NewEvent{Type: workflow.EventFieldSet, Data: workflow.FieldSetData{Path: "branch", Value: json.RawMessage(`"login"`)}})
	relabel(t, dir, "login", "elsewhere")
	apptest.PushAll(t, dir)
	res, err := ciVerify(t, st)
	apptest.WantViolation(t, res, err, "phase", "login is in plan-review")
	if len(res.Workflows) != 1 {
		t.Fatalf("workflows for login: %+v", res.Workflows)
	}
}

// The login workflow re-labelled away and no other: --require still finds it by its events.
func TestVerifyBranchRelabelledAwayIsStillFound(t *testing.T) {
	st := apptest.NewSignedTeam(t)
	dir := st.Dirs[0]
	relabel(t, dir, "login", "elsewhere")
	apptest.PushAll(t, dir)
	res, err := ciVerify(t, st)
	apptest.WantViolation(t, res, err, "phase", "login is in plan-review")
}

// A branch renamed after its workflow started is not the workflow's branch: a pull request from
// the new name has no workflow, and --require says so.
func TestVerifyBranchRenamedHasNoWorkflow(t *testing.T) {
	tm, dir, _ := apptest.UnsignedLogin(t)
	apptest.WriteCommit(t, dir, "design.md", "# d\n")
	gittest.Git(t, dir, "", "branch", "-m", "login", "login2")
	gittest.Git(t, dir, "", "push", "-q", "origin", "login2")
	_, err := teamsync.Push(apptest.Reopen(t, dir).Repo, teamsync.PushOptions{})
	require.NoError(t, err)
	ci := filepath.Join(t.TempDir(), "ci")
	gittest.Git(t, filepath.Dir(ci), "", "clone", "-q", "file://"+tm.Remote, ci)
	gittest.Git(t, ci, "", "fetch", "-q", "--no-tags", "--force", "origin", "+refs/exarchos/*:refs/exarchos/*")
	gittest.Git(t, ci, "", "checkout", "-q", "--detach", "origin/login2")
	_, err = verify.Verify(&verify.Repo{Repo: apptest.Reopen(t, ci).Repo}, verify.Options{Branch: "login2", Base: "origin/main", Require: true})
	if err == nil || !strings.Contains(err.Error(), "no workflow is bound to branch login2") {
		t.Fatalf("verify of a renamed branch: %v", err)
	}
}

// A second workflow on a branch whose workflow is active is the user's decision, whatever its
// type: init refuses it without --human, and refuses --human in the agent's environment.
func TestInitSecondWorkflowOnABranchIsTheUsersDecision(t *testing.T) {
	_, dir, r := apptest.UnsignedLogin(t)
	for _, typ := range []string{"feature", "oneshot"} {
		_, err := app.Init(r, app.InitOptions{Feature: "other-" + typ, Type: typ})
		var rej *workflow.Rejection
		if !errors.As(err, &rej) || rej.Code != workflow.CodeHumanDecision || !strings.Contains(rej.Message, "--human") {
			t.Fatalf("init of a second %s workflow on login: %v", typ, err)
		}
	}
	apptest.ActAsAgent(t, dir, "s1", "")
	_, err := app.Init(apptest.Reopen(t, dir), app.InitOptions{Feature: "other", Type: "feature", Human: true})
	var refusal *trust.AgentRefusal
	require.ErrorAs(t, err, &refusal, "init --human in the agent's environment")
	apptest.ActAsHuman(t)
	_, err = app.Init(apptest.Reopen(t, dir), app.InitOptions{Feature: "other", Type: "feature", Human: true})
	require.NoError(t, err, "the user's own init --human")
	// Once the first completed, another workflow on the branch needs no decision.
}

// startForged writes a workflow.started for feature on branch straight into the store, as a
// process past init could: no replacement named, nothing signed.
func startForged(t *testing.T, dir, feature, typ, branch string, replaces ...string) {
	t.Helper()
	r := apptest.Reopen(t, dir)
	_, err := r.Store.Create(feature, apptest.PlainFold{}, []workflow.NewEvent{{Type: workflow.EventStarted,
		Data: workflow.StartedData{Feature: feature, Type: typ, Branch: branch, Phase: "plan", Replaces: replaces, Human: len(replaces) > 0}}})
	require.NoError(t, err)
}

// Two active workflows on one branch, the second started past init with no decision: verify
// fails both under `branch`, --require or not.
func TestVerifyBranchTwoActiveWorkflowsWithoutDecision(t *testing.T) {
	tm, dir, _ := apptest.UnsignedLogin(t)
	startForged(t, dir, "other", "oneshot", "login")
	apptest.PushAll(t, dir)
	res, err := verify.Verify(&verify.Repo{Repo: apptest.Reopen(t, apptest.CIClone(t, tm.Remote)).Repo}, verify.Options{Branch: "login", Base: "origin/main"})
	apptest.WantViolation(t, res, err, "branch", "branch login also has the active workflow(s) other (oneshot, in plan)")
	apptest.WantViolation(t, res, err, "branch", "branch login also has the active workflow(s) login (feature, in ideate)")
}

// Signed mode: a replacement no allowed key signed starts nothing (a `decision` violation) and
// replaces nothing (login must still reach a merging phase); alice's signed replacement takes
// login off the branch's duties.
func TestVerifyBranchReplacementMustBeSigned(t *testing.T) {
	st := apptest.NewSignedTeam(t)
	dir := st.Dirs[0]
	startForged(t, dir, "quick", "oneshot", "login", "login")
	apptest.PushAll(t, dir)
	res, err := ciVerify(t, st)
	apptest.WantViolation(t, res, err, "decision", "replace decision without effect")
	apptest.WantViolation(t, res, err, "phase", "login is in plan-review")

	st2 := apptest.NewSignedTeam(t)
	dir = st2.Dirs[0]
	apptest.UseKey(t, dir, st2.Alice)
	apptest.ActAsHuman(t)
	_, err = app.Init(apptest.Reopen(t, dir), app.InitOptions{Feature: "quick", Type: "oneshot", Human: true})
	require.NoError(t, err)
	apptest.PushAll(t, dir)
	res, err = ciVerify(t, st2)
	apptest.WantViolation(t, res, err, "phase", "quick is in plan")
	for _, w := range res.Workflows {
		if w.Feature == "login" {
			if w.ReplacedBy != "quick" || len(w.Violations) != 0 {
				t.Fatalf("login after alice's replacement: %+v", w)
			}
			return
		}
	}
	t.Fatalf("login is not verified with its branch: %+v", res.Workflows)
}

// A second workflow started on login past init (no replacement), walked to completion through
// the commands, while login waits on the human: the completed one does not stand in for it.
func TestVerifyBranchCompletedSecondDoesNotStandIn(t *testing.T) {
	st := apptest.NewSignedTeam(t)
	dir := st.Dirs[0]
	startForged(t, dir, "other", "oneshot", "login")
	_, err := app.Set(apptest.Reopen(t, dir), app.SetOptions{Feature: "other", Assignments: []string{"artifacts.plan=plan.md"}})
	require.NoError(t, err)
	apptest.MustRun(t, apptest.Reopen(t, dir), "other", workflow.TransitionTo{Phase: "implementing"})
	apptest.WriteCommit(t, dir, "store.go", "package login\n")
	apptest.MustRun(t, apptest.Reopen(t, dir), "other", workflow.TransitionTo{Phase: "completed"})
	relabel(t, dir, "login", "elsewhere")
	apptest.PushAll(t, dir)
	res, err := ciVerify(t, st)
	apptest.WantViolation(t, res, err, "phase", "login is in plan-review")
}
