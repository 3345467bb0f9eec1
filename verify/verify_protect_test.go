package verify_test

import (
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/exarchos/git-exarchos/app"
	"github.com/exarchos/git-exarchos/ghclient"
	"github.com/exarchos/git-exarchos/ghclient/fakegithub"
	"github.com/exarchos/git-exarchos/internal/apptest"
	"github.com/exarchos/git-exarchos/internal/gittest"
	"github.com/exarchos/git-exarchos/verify"
)

// Issue 37 item 6 (kind 5): a pull request into a branch the agent can push to takes its
// signers, rules and merge from that base. CI's verify (--require-protected-base) asks GitHub
// whether the base requires the verify check and refuses direct and force pushes, and fails a
// base that does not, or that it could not ask about.

// protectedRuleset is what `git exarchos setup` asks of GitHub for the base branch.
var protectedRuleset = []fakegithub.BranchRule{
	{Type: "required_status_checks", Checks: []string{verify.RequiredCheck}, App: ghclient.ActionsAppID},
	{Type: "pull_request"}, {Type: "non_fast_forward"}, {Type: "deletion"},
}

// stagingBase is prWorkflow plus a branch staging the agent pushed, off main, with its own
// allowed signers (the agent's key): a base it controls.
func stagingBase(t *testing.T) (*apptest.Team, *fakegithub.Server) {
	t.Helper()
	tm, dir, _ := prWorkflow(t)
	f := verifyFake(t)
	f.SetBranchRules("main", protectedRuleset...)
	gittest.Git(t, dir, "", "checkout", "-q", "-b", "staging", "main")
	apptest.WriteCommit(t, dir, ".exarchos/allowed_signers", "agent@example.com namespaces=\"git-exarchos\" ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHhlYXJjaG9zLWFnZW50LWtleS1ub3QtYS1odW1hbnMh\n")
	gittest.Git(t, dir, "", "push", "-q", "origin", "staging")
	gittest.Git(t, dir, "", "checkout", "-q", "login")
	apptest.PushAll(t, dir)
	return tm, f
}

// ciGitHubClone is CI's fresh clone of the team's remote with branch login and origin/<base>
// fetched, whose origin is github.com/acme/app (as actions/checkout leaves it; fetched from the
// bare remote through insteadOf).
func ciGitHubClone(t *testing.T, tm *apptest.Team, base string) string {
	t.Helper()
	ci := filepath.Join(t.TempDir(), "ci")
	gittest.Git(t, filepath.Dir(ci), "", "clone", "-q", "file://"+tm.Remote, ci)
	gittest.Git(t, ci, "", "fetch", "-q", "--no-tags", "--force", "origin", "+refs/exarchos/*:refs/exarchos/*",
		"+refs/heads/login:refs/remotes/origin/login", "+refs/heads/"+base+":refs/remotes/origin/"+base)
	gittest.Git(t, ci, "", "checkout", "-q", "--detach", "origin/login")
	gittest.Git(t, ci, "", "config", "url.file://"+tm.Remote+".insteadOf", "https://github.com/acme/app.git")
	gittest.Git(t, ci, "", "remote", "set-url", "origin", "https://github.com/acme/app.git")
	return ci
}

// ciVerifyBase verifies branch login in CI's clone against origin/<base>.
func ciVerifyBase(t *testing.T, tm *apptest.Team, base string, require bool) (*verify.Result, error) {
	t.Helper()
	return app.Verify(apptest.Reopen(t, ciGitHubClone(t, tm, base)), verify.Options{Branch: "login", Base: "origin/" + base, RequireProtectedBase: require})
}

func TestVerifyRefusesAnUnprotectedBase(t *testing.T) {
	tm, _ := stagingBase(t)
	res, err := ciVerifyBase(t, tm, "staging", true)
	apptest.WantViolation(t, res, err, "base-protection", "staging is not protected")
	require.Contains(t, err.Error(), "[base-protection]")
	require.Contains(t, err.Error(), `the required check "exarchos verify"`)

	// The protected base passes; without the flag the unprotected one is reported, not failed.
	res, err = ciVerifyBase(t, tm, "main", true)
	require.NoError(t, err)
	require.Equal(t, "checked: main is protected (ruleset)", res.BaseProtection)
	res, err = ciVerifyBase(t, tm, "staging", false)
	require.NoError(t, err)
	require.Contains(t, res.BaseProtection, "checked: staging is not protected")
}

// Neighbours: a ruleset that leaves force pushes (or direct pushes, or the check) out; the
// classic protection, read with admin, and not readable without it.
func TestVerifyProtectedBaseNeedsEveryRule(t *testing.T) {
	tm, f := stagingBase(t)
	for i, missing := range []string{"refusing force pushes", "refusing direct pushes", `the required check "exarchos verify"`, "pinned to the app that reports it"} {
		var rules []fakegithub.BranchRule // the protecting ruleset with one rule left out
		switch i {
		case 0:
			rules = []fakegithub.BranchRule{protectedRuleset[0], protectedRuleset[1], protectedRuleset[3]}
		case 1:
			rules = []fakegithub.BranchRule{protectedRuleset[0], protectedRuleset[2], protectedRuleset[3]}
		case 2:
			rules = []fakegithub.BranchRule{{Type: "required_status_checks", Checks: []string{"build"}, App: ghclient.ActionsAppID}, protectedRuleset[1], protectedRuleset[2], protectedRuleset[3]}
		case 3: // the check required by name from any source: a status any token can post
			rules = []fakegithub.BranchRule{{Type: "required_status_checks", Checks: []string{verify.RequiredCheck}}, protectedRuleset[1], protectedRuleset[2], protectedRuleset[3]}
		}
		f.SetBranchRules("staging", rules...)
		res, err := ciVerifyBase(t, tm, "staging", true)
		apptest.WantViolation(t, res, err, "base-protection", missing)
	}
	f.SetBranchRules("staging")

	// The classic protection: read with an admin token it counts; force pushes allowed fail.
	f.SetAccess(map[string]bool{"pull": true, "push": true, "admin": true}, "")
	f.SetProtection("staging", &fakegithub.Protection{Checks: []string{verify.RequiredCheck}, App: ghclient.ActionsAppID, RequirePullRequest: true})
	res, err := ciVerifyBase(t, tm, "staging", true)
	require.NoError(t, err)
	require.Equal(t, "checked: staging is protected (branch protection)", res.BaseProtection)
	f.SetProtection("staging", &fakegithub.Protection{Checks: []string{verify.RequiredCheck}, App: ghclient.ActionsAppID, RequirePullRequest: true, AllowForcePushes: true})
	res, err = ciVerifyBase(t, tm, "staging", true)
	apptest.WantViolation(t, res, err, "base-protection", "refusing force pushes")
	f.SetProtection("staging", &fakegithub.Protection{Checks: []string{verify.RequiredCheck}, RequirePullRequest: true}) // no app_id
	res, err = ciVerifyBase(t, tm, "staging", true)
	apptest.WantViolation(t, res, err, "base-protection", "pinned to the app that reports it")

	// Without admin (Actions' token) the protection's details cannot be read: said, and failed.
	f.SetAccess(nil, "")
	f.SetProtection("staging", &fakegithub.Protection{Checks: []string{verify.RequiredCheck}, App: ghclient.ActionsAppID, RequirePullRequest: true})
	res, err = ciVerifyBase(t, tm, "staging", true)
	apptest.WantViolation(t, res, err, "base-protection", "reading it needs admin")
	require.Contains(t, res.BaseProtection, "could not check")
}

// Offline, without a token, rate limited: verify says what it could not check, and the flag fails.
func TestVerifyProtectedBaseUnchecked(t *testing.T) {
	tm, f := stagingBase(t)
	t.Setenv("GITHUB_TOKEN", "")
	res, err := ciVerifyBase(t, tm, "main", true)
	apptest.WantViolation(t, res, err, "base-protection", "not checked: no token")
	res, err = ciVerifyBase(t, tm, "main", false)
	require.NoError(t, err)
	require.Equal(t, "not checked: no token (set GITHUB_TOKEN or GH_TOKEN)", res.BaseProtection)

	t.Setenv("GITHUB_TOKEN", verifyToken)
	f.Fail(fakegithub.PrimaryRateLimit("branch-rules", 403, time.Now().Add(time.Hour)))
	res, err = ciVerifyBase(t, tm, "main", true)
	apptest.WantViolation(t, res, err, "base-protection", "rate limit")

	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	closed := "http://" + l.Addr().String()
	require.NoError(t, l.Close())
	t.Setenv("GITHUB_API_URL", closed)
	res, err = ciVerifyBase(t, tm, "main", true)
	apptest.WantViolation(t, res, err, "base-protection", "cannot reach the GitHub API")
	require.True(t, strings.HasPrefix(res.BaseProtection, "could not check: "), res.BaseProtection)
}
