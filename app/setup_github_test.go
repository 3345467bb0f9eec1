package app

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/exarchos/git-exarchos/ghclient"
	"github.com/exarchos/git-exarchos/ghclient/fakegithub"
	"github.com/exarchos/git-exarchos/internal/gittest"
	"github.com/exarchos/git-exarchos/verify"
)

// Issue 37 item 10: setup configures on GitHub what the gate needs — a ruleset on the base branch
// requiring the verify check and refusing direct and force pushes — shown in --dry-run, asked
// before it is done (--github says yes), through the fake GitHub; each failure its own error.

// githubSetupRepo is setupRepo whose origin is github.com/acme/app (fetched from the bare
// remote through insteadOf), with a fake GitHub the global configuration trusts.
func githubSetupRepo(t *testing.T) (string, *Repo, *fakegithub.Server) {
	t.Helper()
	dir, _ := setupRepo(t)
	origin := strings.TrimSpace(gittest.Git(t, dir, "", "remote", "get-url", "origin"))
	gittest.Git(t, dir, "", "config", "url."+origin+".insteadOf", "https://github.com/acme/app.git")
	gittest.Git(t, dir, "", "remote", "set-url", "origin", "https://github.com/acme/app.git")
	gittest.Git(t, dir, "", "config", "--global", "exarchos.githubApiHost", "127.0.0.1")
	f := fakegithub.New("github.com", "acme", "app", "ghp_setupAdmin0123456789")
	t.Cleanup(f.Close)
	f.SetAccess(map[string]bool{"pull": true, "push": true, "admin": true}, "repo")
	t.Setenv("GITHUB_API_URL", f.URL)
	t.Setenv("GH_TOKEN", "ghp_setupAdmin0123456789")
	t.Setenv("GITHUB_TOKEN", "")
	t.Setenv("GH_CONFIG_DIR", t.TempDir())
	t.Setenv("EXARCHOS_GITHUB_RETRY_BUDGET", "200ms")
	r, err := Open(dir)
	require.NoError(t, err)
	return dir, r, f
}

func stepOf(t *testing.T, res *SetupResult, name string) SetupStep {
	t.Helper()
	for _, st := range res.Steps {
		if st.Step == name {
			return st
		}
	}
	t.Fatalf("no step %s in %+v", name, res.Steps)
	return SetupStep{}
}

func TestSetupProtectsTheBaseOnGitHub(t *testing.T) {
	_, r, f := githubSetupRepo(t)
	// --dry-run shows the step and changes nothing.
	res, err := Setup(r, SetupOptions{DryRun: true, GitHub: true})
	require.NoError(t, err)
	st := stepOf(t, res, "github")
	require.Equal(t, StepWouldDo, st.Status)
	require.Contains(t, st.Detail, `a ruleset on acme/app:main requiring the "exarchos verify" check`)
	require.Contains(t, st.Detail, "GitHub offers no protection for refs/exarchos/*")
	by, _ := f.Requests()
	require.Zero(t, by["create-ruleset"])

	// Asked, no: left for a human; yes: done; again: already.
	var asked []string
	res, err = Setup(r, SetupOptions{Confirm: func(q string) bool { asked = append(asked, q); return false }})
	require.NoError(t, err)
	require.Equal(t, StepLeftForHuman, stepOf(t, res, "github").Status)
	require.Contains(t, strings.Join(asked, "\n"), "Add a ruleset on acme/app:main")
	res, err = Setup(r, SetupOptions{Confirm: func(q string) bool { return strings.Contains(q, "ruleset") }})
	require.NoError(t, err)
	require.Equal(t, StepDone, stepOf(t, res, "github").Status)
	res, err = Setup(r, SetupOptions{GitHub: true})
	require.NoError(t, err)
	require.Equal(t, StepAlready, stepOf(t, res, "github").Status)
	by, _ = f.Requests()
	require.Equal(t, 1, by["create-ruleset"])

	// What verify then reads: the base is protected.
	c, err := ghclient.New(ghclient.Options{Repo: ghclient.Repo{Host: "github.com", Owner: "acme", Name: "app"}})
	require.NoError(t, err)
	p, err := c.ProtectionOf(t.Context(), "main", verify.RequiredCheck)
	require.NoError(t, err)
	require.True(t, p.Protected(), "%+v", p)
}

// The first run writes the CI file and, with --github, makes its check required: nothing about
// the required check is left for a human (without --github it is).
func TestSetupGitHubLeavesNoRequiredCheckToDo(t *testing.T) {
	_, r, _ := githubSetupRepo(t)
	res, err := Setup(r, SetupOptions{GitHub: true})
	require.NoError(t, err)
	require.Equal(t, StepDone, stepOf(t, res, "ci").Status)
	require.Equal(t, StepDone, stepOf(t, res, "github").Status)
	require.NotContains(t, strings.Join(res.Human, "\n"), "required status check")

	_, r, _ = githubSetupRepo(t)
	res, err = Setup(r, SetupOptions{})
	require.NoError(t, err)
	require.Contains(t, strings.Join(res.Human, "\n"), "required status check")
}

// autoPush: offered, set with --auto-push, already the next time.
func TestSetupOffersAutoPush(t *testing.T) {
	dir, r := setupRepo(t)
	res, err := Setup(r, SetupOptions{DryRun: true})
	require.NoError(t, err)
	require.Equal(t, StepWouldDo, stepOf(t, res, "autopush").Status)
	res, err = Setup(r, SetupOptions{AutoPush: true})
	require.NoError(t, err)
	require.Equal(t, StepDone, stepOf(t, res, "autopush").Status)
	require.Equal(t, "true", strings.TrimSpace(gittest.Git(t, dir, "", "config", "exarchos.autoPush")))
	r, err = Open(dir) // a new run reads the configuration again
	require.NoError(t, err)
	res, err = Setup(r, SetupOptions{})
	require.NoError(t, err)
	require.Equal(t, StepAlready, stepOf(t, res, "autopush").Status)
	// The GitHub step says origin is not on GitHub, and what protects refs/exarchos/* then.
	require.Equal(t, StepSkipped, stepOf(t, res, "github").Status)
	require.Contains(t, stepOf(t, res, "github").Detail, "receive.denyNonFastForwards")
}

// Each failure is its own error naming the fix: no token, a token without admin, the rate
// limit, the network.
func TestSetupGitHubErrors(t *testing.T) {
	_, r, f := githubSetupRepo(t)
	wantKind := func(kind ghclient.Kind, text string) {
		t.Helper()
		_, err := Setup(r, SetupOptions{GitHub: true})
		var ge *ghclient.Error
		require.ErrorAs(t, err, &ge)
		require.Equal(t, kind, ge.Kind, "%v", err)
		require.Contains(t, err.Error(), text)
	}
	t.Setenv("GH_TOKEN", "")
	wantKind(ghclient.KindNoToken, "GH_TOKEN")
	t.Setenv("GH_TOKEN", "ghp_setupAdmin0123456789")

	f.SetAccess(map[string]bool{"pull": true, "push": true}, "repo")
	wantKind(ghclient.KindNoAccess, "creating rulesets needs admin on the repository")

	f.Fail(fakegithub.PrimaryRateLimit("branch-rules", 403, time.Now().Add(time.Hour)))
	wantKind(ghclient.KindRateLimited, "rate limit")

	f.Close()
	wantKind(ghclient.KindUnreachable, "check the network")
}
