package verify_test

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/exarchos/git-exarchos/app"
	"github.com/exarchos/git-exarchos/ghclient/fakegithub"
	"github.com/exarchos/git-exarchos/ghevidence"
	"github.com/exarchos/git-exarchos/internal/apptest"
	"github.com/exarchos/git-exarchos/internal/gittest"
	"github.com/exarchos/git-exarchos/verify"
	"github.com/exarchos/git-exarchos/workflow"
)

// Issue 37, item 3: merge evidence is derived again, never read. A recorded merge.verified counts
// only when the branch's tip as the log recorded it at each transition is a commit of the branch
// contained in the recorded merge commit, which is on --base; GitHub's evidence names a pull
// request GitHub confirms.

// baseCommit commits on origin/main (as a teammate's merged work) and fetches it; dir stays on
// login. It returns the new base tip.
func baseCommit(t *testing.T, dir, name string) string {
	t.Helper()
	gittest.Git(t, dir, "", "checkout", "-q", "main")
	gittest.Git(t, dir, "", "pull", "-q", "origin", "main")
	apptest.WriteCommit(t, dir, name, "package other\n")
	gittest.Git(t, dir, "", "push", "-q", "origin", "main")
	gittest.Git(t, dir, "", "fetch", "-q", "origin")
	gittest.Git(t, dir, "", "checkout", "-q", "login")
	return gittest.Git(t, dir, "", "rev-parse", "origin/main")
}

// forgeCleanup appends the evidence and the cleanup transition that rests on it, at head.
func forgeCleanup(t *testing.T, dir string, evidence workflow.MergeVerifiedData, head string) {
	t.Helper()
	apptest.Forge(t, apptest.Reopen(t, dir), "login", workflow.NewEvent{Type: workflow.EventMergeVerified, Data: evidence})
	apptest.Forge(t, apptest.Reopen(t, dir), "login", workflow.NewEvent{Type: workflow.EventTransitioned, Data: workflow.TransitionedData{From: "plan-review", To: "completed", Trigger: workflow.OnCleanup, Guards: []string{"merge-verified"}, Head: head}})
}

// The evidence's head is a base commit (after the fork point, so the guard's "own commits" holds),
// the cleanup transition records it as the branch's tip, the "merge" is the base's tip: every
// recorded fact agrees with every other, and none is the branch's.
func TestVerifyMergeHeadIsABaseCommit(t *testing.T) {
	st := apptest.NewSignedTeam(t)
	dir := st.Dirs[0]
	b := baseCommit(t, dir, "theirs.go")
	forgeCleanup(t, dir, workflow.MergeVerifiedData{Method: "ancestry", Commit: b, Base: "refs/remotes/origin/main", HeadSHA: b}, b)
	apptest.PushAll(t, dir)
	res, err := ciVerify(t, st)
	apptest.WantViolation(t, res, err, "merge", "is not a commit of branch login")
	apptest.WantViolation(t, res, err, "merge", "(plan → plan-review), "+gittest.Git(t, dir, "", "rev-parse", "--short=12", "login")+", is not contained in the merge commit")
}

// method github with no pull request recorded: GitHub is never asked, so --require-github had
// nothing to require.
func TestVerifyMergeGitHubWithoutAPullRequest(t *testing.T) {
	st := apptest.NewSignedTeam(t)
	dir := st.Dirs[0]
	verifyFake(t)
	b := baseCommit(t, dir, "theirs.go")
	tip := gittest.Git(t, dir, "", "rev-parse", "login")
	forgeCleanup(t, dir, workflow.MergeVerifiedData{Method: "github", Commit: b, Base: "main", HeadSHA: tip}, tip)
	apptest.PushAll(t, dir)
	res, err := app.Verify(apptest.Reopen(t, apptest.CIClone(t, st.Remote)), verify.Options{Branch: "login", Base: "origin/main", Require: true, RequireGitHub: true})
	apptest.WantViolation(t, res, err, "merge", "verified by github but names no pull request")
	apptest.WantViolation(t, res, err, "merge", "is not contained in the merge commit "+b[:12])
}

// An early version of the branch was merged into the base; the branch went on with code after
// it. The evidence names the early head (contained in the merge), the cleanup records it as the
// tip: the pull request's head, with the later code, is in no merge.
func TestVerifyMergeDoesNotContainTheBranchTip(t *testing.T) {
	st := apptest.NewSignedTeam(t)
	dir := st.Dirs[0]
	early := gittest.Git(t, dir, "", "rev-parse", "login")
	gittest.Git(t, dir, "", "push", "-q", "origin", "login:main")
	gittest.Git(t, dir, "", "fetch", "-q", "origin")
	apptest.WriteCommit(t, dir, "store.go", "package login\n")
	forgeCleanup(t, dir, workflow.MergeVerifiedData{Method: "ancestry", Commit: early, Base: "refs/remotes/origin/main", HeadSHA: early}, early)
	apptest.PushAll(t, dir)
	res, err := ciVerify(t, st)
	apptest.WantViolation(t, res, err, "merge", "branch login's tip "+gittest.Git(t, dir, "", "rev-parse", "--short=12", "login")+" is not in the merge "+early[:12])
}

// A merge commit that contains the branch but is not on the base (a merge made on a side
// branch), by ancestry and by GitHub's word alike.
func TestVerifyMergeCommitNotOnTheBase(t *testing.T) {
	st := apptest.NewSignedTeam(t)
	dir := st.Dirs[0]
	tip := gittest.Git(t, dir, "", "rev-parse", "login")
	gittest.Git(t, dir, "", "checkout", "-q", "-b", "side", "origin/main")
	apptest.WriteCommit(t, dir, "side.go", "package side\n")
	gittest.Git(t, dir, "", "merge", "-q", "--no-edit", "login")
	side := gittest.Git(t, dir, "", "rev-parse", "HEAD")
	gittest.Git(t, dir, "", "push", "-q", "origin", "side")
	gittest.Git(t, dir, "", "checkout", "-q", "login")
	forgeCleanup(t, dir, workflow.MergeVerifiedData{Method: "ancestry", Commit: side, Base: "refs/remotes/origin/main", HeadSHA: tip}, tip)
	apptest.PushAll(t, dir)
	res, err := ciVerify(t, st)
	apptest.WantViolation(t, res, err, "merge", "the recorded merge "+side[:12]+" is not on the base refs/remotes/origin/main")
}

// mergeLogin merges branch login into main the way given ("--squash" or "--no-ff"), pushes
// main and fetches it; dir is back on login. It returns the commit the merge made on main.
func mergeLogin(t *testing.T, dir, how string) string {
	t.Helper()
	gittest.Git(t, dir, "", "checkout", "-q", "main")
	if how == "--squash" {
		gittest.Git(t, dir, "", "merge", "-q", "--squash", "login")
		gittest.Git(t, dir, "", "commit", "-q", "-m", "login (#7)")
	} else {
		gittest.Git(t, dir, "", "merge", "-q", how, "--no-edit", "login")
	}
	merge := gittest.Git(t, dir, "", "rev-parse", "HEAD")
	gittest.Git(t, dir, "", "push", "-q", "origin", "main")
	gittest.Git(t, dir, "", "fetch", "-q", "origin")
	gittest.Git(t, dir, "", "checkout", "-q", "login")
	return merge
}

// cleanupOnGitHub makes the fake's pull request #7 merged as merge at head, links it and runs
// cleanup, which asks GitHub.
func cleanupOnGitHub(t *testing.T, f *fakegithub.Server, dir, head, merge string) {
	t.Helper()
	f.SetPR(fakegithub.PR{Number: 7, Head: "login", Base: "main", HeadSHA: head, State: "closed", Merged: true, MergeCommitSHA: merge})
	_, err := app.LinkPR(apptest.Reopen(t, dir), ghevidence.PRLinkOptions{Feature: "login", Target: verifyPRURL})
	require.NoError(t, err)
	_, err = app.Cleanup(apptest.Reopen(t, dir), ghevidence.CleanupOptions{Feature: "login"})
	require.NoError(t, err)
}

// The honest road by GitHub: the pull request squash-merged (its merge commit contains the work,
// not the commits), cleanup asks GitHub and records it. CI, asking GitHub too, passes; without
// GitHub's word the squash cannot be derived, and verify says so.
func TestVerifyMergeSquashCountsOnGitHubsWord(t *testing.T) {
	tm, dir, head := prWorkflow(t)
	f := verifyFake(t)
	cleanupOnGitHub(t, f, dir, head, mergeLogin(t, dir, "--squash"))
	res, err := ciVerifyPR(t, tm, true)
	wantPasses(t, res, err, verify.GitHubAgrees)

	t.Setenv("GITHUB_TOKEN", "")
	res, err = ciVerifyPR(t, tm, false)
	apptest.WantViolation(t, res, err, "merge", "a squash or rebase merge")
}

// The honest road by ancestry: merged with a merge commit on the base, cleanup asking GitHub (CI
// passes with GitHub's word and without it), and cleanup --offline in another clone, verified in
// CI with --require.
func TestVerifyMergeHonestMergeCommit(t *testing.T) {
	tm, dir, head := prWorkflow(t)
	f := verifyFake(t)
	cleanupOnGitHub(t, f, dir, head, mergeLogin(t, dir, "--no-ff"))
	res, err := ciVerifyPR(t, tm, true)
	wantPasses(t, res, err, verify.GitHubAgrees)
	t.Setenv("GITHUB_TOKEN", "")
	res, err = ciVerifyPR(t, tm, false)
	wantPasses(t, res, err, verify.GitHubNoToken)

	tm2, dir2, _ := prWorkflow(t)
	mergeLogin(t, dir2, "--no-ff")
	_, err = app.Cleanup(apptest.Reopen(t, dir2), ghevidence.CleanupOptions{Feature: "login", Offline: true})
	require.NoError(t, err)
	apptest.PushAll(t, dir2)
	ci := filepath.Join(t.TempDir(), "ci")
	gittest.Git(t, filepath.Dir(ci), "", "clone", "-q", "file://"+tm2.Remote, ci)
	gittest.Git(t, ci, "", "fetch", "-q", "--no-tags", "--force", "origin", "+refs/exarchos/*:refs/exarchos/*")
	_, err = app.Verify(apptest.Reopen(t, ci), verify.Options{Branch: "login", Base: "origin/main", Require: true})
	require.NoError(t, err, "an honest offline cleanup in CI")
}
