package verify_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/exarchos/git-exarchos/app"
	"github.com/exarchos/git-exarchos/ghclient/fakegithub"
	"github.com/exarchos/git-exarchos/internal/apptest"
	"github.com/exarchos/git-exarchos/internal/gittest"
	"github.com/exarchos/git-exarchos/verify"
)

// Issue 37 item 7 (kind 6): a rewind force-pushed to an origin that does not protect
// refs/exarchos/* is invisible to a fresh clone. CI's verify --remember leaves the tips it
// verified in check runs (which a user's token cannot create) and fails a later tip that does
// not descend from one.

// ciRemember verifies branch login in CI's clone against origin/main, with --remember.
func ciRemember(t *testing.T, tm *apptest.Team) (*verify.Result, error) {
	t.Helper()
	return app.Verify(apptest.Reopen(t, ciGitHubClone(t, tm, "main")), verify.Options{Branch: "login", Base: "origin/main", Remember: true})
}

// note appends a harmless event (a recorded artifact) to the workflow and pushes it.
func note(t *testing.T, tm *apptest.Team, dir string) string {
	t.Helper()
	_, err := app.Set(apptest.Reopen(t, dir), app.SetOptions{Feature: "login", Assignments: []string{"artifacts.design=design.md"}})
	require.NoError(t, err)
	apptest.PushAll(t, dir)
	return gittest.Git(t, dir, "", "rev-parse", "refs/exarchos/login")
}

func TestVerifyRemembersAndFailsARewind(t *testing.T) {
	tm, dir, _ := prWorkflow(t)
	f := verifyFake(t)
	f.App = "github-actions" // Actions' token
	apptest.PushAll(t, dir)
	before := gittest.Git(t, dir, "", "rev-parse", "refs/exarchos/login")
	after := note(t, tm, dir)
	res, err := ciRemember(t, tm)
	require.NoError(t, err, "%+v", res)
	by, _ := f.Requests()
	require.Equal(t, 1, by["create-check-run"], "the verified tip was not recorded")

	// The rewind: refs/exarchos/login force-pushed back to before the verified tip.
	gittest.Git(t, dir, "", "push", "-q", "--force", "origin", before+":refs/exarchos/login")
	res, err = ciRemember(t, tm)
	apptest.WantViolation(t, res, err, "memory", "which CI verified")
	require.Contains(t, err.Error(), "[memory]")
	require.Contains(t, err.Error(), after[:12])

	// Restored (or moved on from the verified tip), it passes and the new tip is remembered.
	gittest.Git(t, dir, "", "push", "-q", "--force", "origin", after+":refs/exarchos/login")
	gittest.Git(t, dir, "", "update-ref", "refs/exarchos/login", after)
	note(t, tm, dir)
	res, err = ciRemember(t, tm)
	require.NoError(t, err, "%+v", res)
}

// Neighbours: a rewrite onto another history; a memory another app made (a user cannot make
// one; another app's does not count); no token; a token that cannot create check runs.
func TestVerifyMemoryNeighbours(t *testing.T) {
	tm, dir, _ := prWorkflow(t)
	f := verifyFake(t)
	f.App = "github-actions"
	apptest.PushAll(t, dir)
	verified := gittest.Git(t, dir, "", "rev-parse", "refs/exarchos/login")
	_, err := ciRemember(t, tm)
	require.NoError(t, err)

	// Another history: the workflow started again under the same name, force-pushed.
	gittest.Git(t, dir, "", "update-ref", "-d", "refs/exarchos/login")
	_, err = app.Init(apptest.Reopen(t, dir), app.InitOptions{Feature: "login", Type: "feature"})
	require.NoError(t, err)
	gittest.Git(t, dir, "", "push", "-q", "--force", "origin", "refs/exarchos/login:refs/exarchos/login")
	res, err := ciRemember(t, tm)
	apptest.WantViolation(t, res, err, "memory", "cannot descend from")
	gittest.Git(t, dir, "", "update-ref", "refs/exarchos/login", verified)
	gittest.Git(t, dir, "", "push", "-q", "--force", "origin", verified+":refs/exarchos/login")

	// A memory another app left (naming a commit that is no ancestor) does not count.
	anchor := gittest.Git(t, dir, "", "rev-list", "--max-parents=0", "main")
	f.AddCheckRun(anchor, fakegithub.CheckRun{Name: "exarchos memory: login", Status: "completed", Conclusion: "success", App: "octoapp",
		Text: "refs/exarchos/login " + gittest.Git(t, dir, "", "rev-parse", "main") + "\n"})
	_, err = ciRemember(t, tm)
	require.NoError(t, err)

	// A token that cannot create check runs (a user's): recording fails, naming the permission.
	f.App = ""
	res, err = ciRemember(t, tm)
	apptest.WantViolation(t, res, err, "memory", "checks: write")

	// No token: nothing could be read, and --remember fails.
	t.Setenv("GITHUB_TOKEN", "")
	res, err = ciRemember(t, tm)
	apptest.WantViolation(t, res, err, "memory", "not checked: no token")
}
