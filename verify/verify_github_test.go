package verify_test

import (
	"path/filepath"
	"strings"
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

// Issue 29: CI's verify asks GitHub about the pull request the log records, and fails the
// workflow when GitHub disagrees; a log forged in the agent's clone cannot make GitHub agree.

const verifyToken = "ghp_verifyTestToken0123456789"

const verifyPRURL = "https://github.com/acme/app/pull/7"

// prWorkflow is a apptest.Team remote whose base names the fake's API host as trusted, and a clone on
// branch login with workflow login (ideate) and one document committed; it returns the clone and
// the branch's head.
func prWorkflow(t *testing.T) (*apptest.Team, string, string) {
	t.Helper()
	tm := apptest.NewTeam(t, 1)
	dir := tm.Dirs[0]
	apptest.WriteCommit(t, dir, ghevidence.APIHostsFile, "127.0.0.1\n")
	gittest.Git(t, dir, "", "push", "-q", "origin", "main")
	gittest.Git(t, dir, "", "checkout", "-q", "-b", "login")
	_, err := app.Init(apptest.Reopen(t, dir), app.InitOptions{Feature: "login", Type: "feature"})
	require.NoError(t, err)
	apptest.WriteCommit(t, dir, "design.md", "# design\n")
	return tm, dir, gittest.Git(t, dir, "", "rev-parse", "HEAD")
}

// recordPR appends what pr link and pr refresh record, as the agent's clone could write them.
func recordPR(t *testing.T, dir string, obs workflow.PRObservation) {
	t.Helper()
	head := gittest.Git(t, dir, "", "rev-parse", "HEAD")
	apptest.Forge(t, apptest.Reopen(t, dir), "login", workflow.NewEvent{Type: workflow.EventPRLinked, Data: workflow.PRLinkData{URL: verifyPRURL, Number: 7, Head: "login", Base: "main", HeadSHA: head, Confirmed: true}})
	if obs.Number == 0 {
		obs.Number, obs.URL, obs.Head, obs.Base, obs.HeadSHA = 7, verifyPRURL, "login", "main", head
	}
	if obs.State == "" {
		obs.State = "open"
	}
	apptest.Forge(t, apptest.Reopen(t, dir), "login", workflow.NewEvent{Type: workflow.EventPRObserved, Data: obs})
}

// verifyFake starts a fake github.com/acme/app reached through GITHUB_API_URL with a token.
func verifyFake(t *testing.T) *fakegithub.Server {
	t.Helper()
	f := fakegithub.New("github.com", "acme", "app", verifyToken)
	t.Cleanup(f.Close)
	t.Setenv("GITHUB_API_URL", f.URL)
	t.Setenv("GH_TOKEN", "")
	t.Setenv("GITHUB_TOKEN", verifyToken) // what CI's step passes
	t.Setenv("GH_CONFIG_DIR", t.TempDir())
	t.Setenv("EXARCHOS_GITHUB_RETRY_BUDGET", "300ms")
	return f
}

// ciVerifyPR pushes the clone's branch and workflow and verifies it in a fresh clone, as CI does.
func ciVerifyPR(t *testing.T, tm *apptest.Team, requireGitHub bool) (*verify.Result, error) {
	t.Helper()
	apptest.PushAll(t, tm.Dirs[0])
	ci := filepath.Join(t.TempDir(), "ci")
	gittest.Git(t, filepath.Dir(ci), "", "clone", "-q", "file://"+tm.Remote, ci)
	gittest.Git(t, ci, "", "fetch", "-q", "--no-tags", "--force", "origin", "+refs/exarchos/*:refs/exarchos/*", "+refs/heads/login:refs/remotes/origin/login")
	gittest.Git(t, ci, "", "checkout", "-q", "--detach", "origin/login")
	return app.Verify(apptest.Reopen(t, ci), verify.Options{Branch: "login", Base: "origin/main", RequireGitHub: requireGitHub})
}

func githubVerdict(t *testing.T, res *verify.Result) string {
	t.Helper()
	if res == nil || len(res.Workflows) != 1 {
		t.Fatalf("workflows: %+v", res)
	}
	return res.Workflows[0].GitHub
}

func wantPasses(t *testing.T, res *verify.Result, err error, github string) {
	t.Helper()
	require.NoError(t, err, "verify failed")
	if got := githubVerdict(t, res); !strings.HasPrefix(got, github) {
		t.Fatalf("github %q, want %q", got, github)
	}
}

func TestVerifyGitHubAgrees(t *testing.T) {
	tm, dir, head := prWorkflow(t)
	f := verifyFake(t)
	f.SetPR(fakegithub.PR{Number: 7, Head: "login", Base: "main", HeadSHA: head})
	f.AddCheckRun(head, fakegithub.CheckRun{Name: "ci", Status: "completed", Conclusion: "success"})
	recordPR(t, dir, workflow.PRObservation{Checks: "success"})
	res, err := ciVerifyPR(t, tm, true)
	wantPasses(t, res, err, verify.GitHubAgrees)
	if by, _ := f.Requests(); by["pull"] != 1 {
		t.Fatalf("requests %v: the pull request was not read", by)
	}
}

// A forged pr.observed claims the pull request merged while GitHub says it is open; another
// claims a merge commit GitHub does not give.
func TestVerifyGitHubForgedMerge(t *testing.T) {
	tm, dir, head := prWorkflow(t)
	f := verifyFake(t)
	f.SetPR(fakegithub.PR{Number: 7, Head: "login", Base: "main", HeadSHA: head})
	recordPR(t, dir, workflow.PRObservation{Number: 7, URL: verifyPRURL, Head: "login", Base: "main", HeadSHA: head, State: "closed", Merged: true, MergeCommitSHA: head})
	res, err := ciVerifyPR(t, tm, false)
	apptest.WantViolation(t, res, err, "github", "the log records it merged, but GitHub says it is open and not merged")
	if got := githubVerdict(t, res); got != verify.GitHubDisagrees {
		t.Fatalf("github %q", got)
	}

	other := strings.Repeat("ab", 20)
	f.UpdatePR(7, func(p *fakegithub.PR) { p.State, p.Merged, p.MergeCommitSHA = "closed", true, other })
	res, err = ciVerifyPR(t, tm, false)
	apptest.WantViolation(t, res, err, "github", "the log records merge commit "+head[:12])

	// The merge commit as recorded, but GitHub merged another head than the log says.
	f.UpdatePR(7, func(p *fakegithub.PR) { p.MergeCommitSHA, p.HeadSHA = head, other })
	res, err = ciVerifyPR(t, tm, false)
	apptest.WantViolation(t, res, err, "github", "the log records head "+head[:12]+" merged, GitHub says it merged "+other[:12])

	// All as recorded: GitHub agrees.
	f.UpdatePR(7, func(p *fakegithub.PR) { p.HeadSHA = head })
	res, err = ciVerifyPR(t, tm, false)
	wantPasses(t, res, err, verify.GitHubAgrees)
}

func TestVerifyGitHubPROfAnotherBranch(t *testing.T) {
	tm, dir, head := prWorkflow(t)
	f := verifyFake(t)
	f.SetPR(fakegithub.PR{Number: 7, Head: "elsewhere", Base: "main", HeadSHA: head})
	recordPR(t, dir, workflow.PRObservation{})
	res, err := ciVerifyPR(t, tm, false)
	apptest.WantViolation(t, res, err, "github", "GitHub says its head is elsewhere, not the workflow's branch login")

	// Into another base than the one CI verifies against.
	f.SetPR(fakegithub.PR{Number: 7, Head: "login", Base: "release", HeadSHA: head})
	res, err = ciVerifyPR(t, tm, false)
	apptest.WantViolation(t, res, err, "github", "GitHub says it is into release, not into the base main")
}

func TestVerifyGitHubMissingPR(t *testing.T) {
	tm, dir, _ := prWorkflow(t)
	verifyFake(t)
	recordPR(t, dir, workflow.PRObservation{})
	res, err := ciVerifyPR(t, tm, false)
	apptest.WantViolation(t, res, err, "github", "the recorded pull request #7 does not exist on GitHub")
}

func TestVerifyGitHubChecksFail(t *testing.T) {
	tm, dir, head := prWorkflow(t)
	f := verifyFake(t)
	f.SetPR(fakegithub.PR{Number: 7, Head: "login", Base: "main", HeadSHA: head})
	f.AddCheckRun(head, fakegithub.CheckRun{Name: "ci", Status: "completed", Conclusion: "failure"})
	recordPR(t, dir, workflow.PRObservation{Checks: "success"})
	res, err := ciVerifyPR(t, tm, false)
	apptest.WantViolation(t, res, err, "github", "the log records its checks passed at "+head[:12]+", but GitHub says they fail there (ci)")
}

// A pull request recorded in a repository other than origin's is not the workflow's.
func TestVerifyGitHubPRInAnotherRepository(t *testing.T) {
	tm, dir, head := prWorkflow(t)
	f := verifyFake(t)
	f.SetPR(fakegithub.PR{Number: 7, Head: "login", Base: "main", HeadSHA: head})
	recordPR(t, dir, workflow.PRObservation{})
	apptest.PushAll(t, dir)
	ci := filepath.Join(t.TempDir(), "ci")
	gittest.Git(t, filepath.Dir(ci), "", "clone", "-q", "file://"+tm.Remote, ci)
	gittest.Git(t, ci, "", "fetch", "-q", "--no-tags", "--force", "origin", "+refs/exarchos/*:refs/exarchos/*", "+refs/heads/login:refs/remotes/origin/login")
	gittest.Git(t, ci, "", "remote", "set-url", "origin", "https://github.com/acme/real.git")
	res, err := app.Verify(apptest.Reopen(t, ci), verify.Options{Branch: "login", Base: "origin/main"})
	apptest.WantViolation(t, res, err, "github", "is in github.com/acme/app, not in this repository's origin github.com/acme/real")
}

// No token: verify says the pull request was not checked with GitHub; only --require-github
// makes that a failure.
func TestVerifyGitHubNoToken(t *testing.T) {
	tm, dir, _ := prWorkflow(t)
	f := verifyFake(t)
	t.Setenv("GITHUB_TOKEN", "")
	recordPR(t, dir, workflow.PRObservation{Checks: "success"})
	res, err := ciVerifyPR(t, tm, false)
	wantPasses(t, res, err, verify.GitHubNoToken)
	res, err = ciVerifyPR(t, tm, true)
	apptest.WantViolation(t, res, err, "github", "was not checked: no token, and --require-github needs GitHub's word")
	if _, total := f.Requests(); total != 0 {
		t.Fatalf("%d requests without a token", total)
	}
}

// GitHub failing (5xx past the retry budget, a rate limit) is "could not check", never a pass
// with --require-github.
func TestVerifyGitHubUnavailable(t *testing.T) {
	for name, fault := range map[string]fakegithub.Fault{
		"5xx":        {Route: "pull", Status: 502},
		"rate limit": fakegithub.SecondaryRateLimit("pull", 403, 60),
	} {
		t.Run(name, func(t *testing.T) {
			tm, dir, head := prWorkflow(t)
			f := verifyFake(t)
			f.SetPR(fakegithub.PR{Number: 7, Head: "login", Base: "main", HeadSHA: head})
			for i := 0; i < 50; i++ {
				f.Fail(fault)
			}
			recordPR(t, dir, workflow.PRObservation{})
			res, err := ciVerifyPR(t, tm, false)
			wantPasses(t, res, err, "could not check: ")
			res, err = ciVerifyPR(t, tm, true)
			apptest.WantViolation(t, res, err, "github", "--require-github needs GitHub's word")
		})
	}
}

// Without a recorded pull request verify asks GitHub nothing, --require-github or not.
func TestVerifyGitHubNoPRNoCall(t *testing.T) {
	tm, _, _ := prWorkflow(t)
	f := verifyFake(t)
	res, err := ciVerifyPR(t, tm, true)
	wantPasses(t, res, err, "")
	if _, total := f.Requests(); total != 0 {
		t.Fatalf("%d GitHub requests for a workflow with no pull request", total)
	}
}

// Without --base (run locally, verify choosing the base) the pull request must be into the base
// the log recorded; with --base, into that one.
func TestVerifyGitHubBaseWithoutGivenBase(t *testing.T) {
	tm, dir, head := prWorkflow(t)
	f := verifyFake(t)
	f.SetPR(fakegithub.PR{Number: 7, Head: "login", Base: "release", HeadSHA: head})
	recordPR(t, dir, workflow.PRObservation{Number: 7, URL: verifyPRURL, Head: "login", Base: "release", HeadSHA: head, State: "open"})
	res, err := app.Verify(apptest.Reopen(t, dir), verify.Options{Feature: "login"})
	wantPasses(t, res, err, verify.GitHubAgrees)
	res, err = ciVerifyPR(t, tm, true)
	apptest.WantViolation(t, res, err, "github", "GitHub says it is into release, not into the base main")

	f.SetPR(fakegithub.PR{Number: 7, Head: "login", Base: "main", HeadSHA: head})
	res, err = app.Verify(apptest.Reopen(t, dir), verify.Options{Feature: "login"})
	apptest.WantViolation(t, res, err, "github", "GitHub says it is into main, the log recorded release")
}
