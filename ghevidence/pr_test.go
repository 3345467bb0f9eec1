package ghevidence_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/exarchos/git-exarchos/app"
	"github.com/exarchos/git-exarchos/ghclient"
	"github.com/exarchos/git-exarchos/ghclient/fakegithub"
	"github.com/exarchos/git-exarchos/ghevidence"
	"github.com/exarchos/git-exarchos/internal/apptest"
	"github.com/exarchos/git-exarchos/internal/gittest"
	"github.com/exarchos/git-exarchos/project"
	"github.com/exarchos/git-exarchos/workflow"
)

const fakeToken = "ghp_ghevidenceToken0123456789"

// onGitHub is workflow "login" bound to main in a repository whose origin is github.com/acme/app
// and whose base branch names the fake's API host, served by a fake GitHub reached through GITHUB_API_URL (the process environment, so not from
// parallel tests). It returns the fake, the repository's directory and the opened Repo.
func onGitHub(t *testing.T) (*fakegithub.Server, string, *app.Repo) {
	t.Helper()
	f := fakegithub.New("github.com", "acme", "app", fakeToken)
	t.Cleanup(f.Close)
	t.Setenv("GITHUB_API_URL", f.URL)
	t.Setenv("GH_TOKEN", fakeToken)
	t.Setenv("GITHUB_TOKEN", "")
	t.Setenv("EXARCHOS_GITHUB_RETRY_BUDGET", "300ms")
	dir, _ := apptest.NewSagaRepo(t)
	gittest.Git(t, dir, "", "remote", "add", "origin", "git@github.com:acme/app.git")
	// The fake's host, named on the base branch: origin's main, fetched from a bare stand-in.
	apptest.WriteCommit(t, dir, ghevidence.APIHostsFile, "127.0.0.1\n")
	bare := t.TempDir()
	gittest.Git(t, bare, "", "init", "-q", "--bare")
	gittest.Git(t, dir, "", "push", "-q", bare, "main")
	gittest.Git(t, dir, "", "fetch", "-q", bare, "+refs/heads/main:refs/remotes/origin/main")
	return f, dir, apptest.Reopen(t, dir)
}

// events is the number of events of login's log.
func events(t *testing.T, r *app.Repo) int64 {
	t.Helper()
	return apptest.Status(t, r, "login").Events
}

// TestLinkPR: a number is linked after GitHub confirms it (head, base and head commit recorded);
// linking it again records nothing; a pull request of another repository or a number that is not
// positive is refused before GitHub is asked, recording nothing; a head other than the workflow's
// branch links with a warning.
func TestLinkPR(t *testing.T) {
	gh, dir, r := onGitHub(t)
	main := gittest.Git(t, dir, "", "rev-parse", "main")
	gh.SetPR(fakegithub.PR{Number: 12, Head: "main", Base: "trunk", HeadSHA: main})
	gh.SetPR(fakegithub.PR{Number: 13, Head: "other", Base: "main", HeadSHA: main})
	before := events(t, r)

	_, err := app.LinkPR(r, ghevidence.PRLinkOptions{Feature: "login", Target: "https://github.com/other/repo/pull/12"})
	require.ErrorIs(t, err, ghevidence.ErrOtherRepository)
	assert.Contains(t, err.Error(), "github.com/acme/app")
	_, err = app.LinkPR(r, ghevidence.PRLinkOptions{Feature: "login", Target: "#0"})
	var usage *project.UsageError
	require.True(t, errors.As(err, &usage), "%v", err)
	_, total := gh.Requests()
	assert.Zero(t, total, "GitHub asked about a refused target")
	assert.Equal(t, before, events(t, r), "a refused link recorded")

	res, err := app.LinkPR(r, ghevidence.PRLinkOptions{Feature: "login", Target: "12"})
	require.NoError(t, err)
	assert.True(t, res.Changed)
	assert.Empty(t, res.Warnings)
	assert.Equal(t, "https://github.com/acme/app/pull/12", res.PullRequest.URL)
	pr := apptest.Status(t, r, "login").PR
	require.NotNil(t, pr)
	assert.True(t, pr.Confirmed)
	assert.Equal(t, []string{"main", "trunk", main}, []string{pr.Head, pr.Base, pr.HeadSHA})

	n := events(t, r)
	res, err = app.LinkPR(r, ghevidence.PRLinkOptions{Feature: "login", Target: "https://github.com/acme/app/pull/12"})
	require.NoError(t, err)
	assert.False(t, res.Changed)
	assert.Empty(t, res.Appended)
	assert.Equal(t, n, events(t, r), "linking the same pull request again recorded")

	res, err = app.LinkPR(r, ghevidence.PRLinkOptions{Feature: "login", Target: "13"})
	require.NoError(t, err)
	require.Len(t, res.Warnings, 1)
	assert.Contains(t, res.Warnings[0], "head is branch other, but workflow login is bound to main")
}

// TestFindPR: the pull request whose head is the workflow's branch is linked; with none, the error
// says how to open one, and nothing is recorded.
func TestFindPR(t *testing.T) {
	gh, dir, r := onGitHub(t)
	before := events(t, r)
	_, err := app.FindPR(r, ghevidence.PRFindOptions{Feature: "login"})
	require.ErrorIs(t, err, ghevidence.ErrNoPullRequest)
	assert.Contains(t, err.Error(), "gh pr create --head main")
	assert.Equal(t, before, events(t, r))

	gh.SetPR(fakegithub.PR{Number: 7, Head: "main", Base: "trunk", HeadSHA: gittest.Git(t, dir, "", "rev-parse", "main")})
	res, err := app.FindPR(r, ghevidence.PRFindOptions{Feature: "login"})
	require.NoError(t, err)
	assert.Equal(t, 7, res.PullRequest.Number)
	assert.Equal(t, "https://github.com/acme/app/pull/7", apptest.Status(t, r, "login").PR.URL)
}

// TestRefreshPR: without a linked pull request the error names pr find and pr link; a refresh
// records GitHub's view once, records nothing while nothing changed, and records the merge.
func TestRefreshPR(t *testing.T) {
	gh, dir, r := onGitHub(t)
	_, err := app.RefreshPR(r, ghevidence.PRRefreshOptions{Feature: "login"})
	require.ErrorIs(t, err, ghevidence.ErrNotLinked)
	assert.Contains(t, err.Error(), "git exarchos pr find login")

	main := gittest.Git(t, dir, "", "rev-parse", "main")
	gh.SetPR(fakegithub.PR{Number: 12, Head: "main", Base: "trunk", HeadSHA: main})
	_, err = app.LinkPR(r, ghevidence.PRLinkOptions{Feature: "login", Target: "12"})
	require.NoError(t, err)

	res, err := app.RefreshPR(r, ghevidence.PRRefreshOptions{Feature: "login"})
	require.NoError(t, err)
	assert.True(t, res.Changed)
	require.Len(t, res.Appended, 1)
	assert.Equal(t, "open", res.Observation.State)

	n := events(t, r)
	res, err = app.RefreshPR(r, ghevidence.PRRefreshOptions{Feature: "login"})
	require.NoError(t, err)
	assert.False(t, res.Changed)
	assert.Equal(t, n, events(t, r), "an unchanged pull request recorded again")

	gh.UpdatePR(12, func(p *fakegithub.PR) { p.State, p.Merged, p.MergeCommitSHA = "closed", true, main })
	res, err = app.RefreshPR(r, ghevidence.PRRefreshOptions{Feature: "login"})
	require.NoError(t, err)
	assert.True(t, res.Changed)
	pr := apptest.Status(t, r, "login").PR
	assert.True(t, pr.Observed && pr.Merged, "%+v", pr)
}

// TestCleanupRefusesWithoutAVerifiedMerge: --override needs a reason and excludes --offline; with
// no pull request linked the error names --offline; an open pull request is refused by the
// merge-verified guard, the observation recorded as the fact it is and the phase unchanged.
func TestCleanupRefusesWithoutAVerifiedMerge(t *testing.T) {
	gh, dir, r := onGitHub(t)
	var usage *project.UsageError
	_, err := app.Cleanup(r, ghevidence.CleanupOptions{Feature: "login", Override: true})
	require.True(t, errors.As(err, &usage), "%v", err)
	_, err = app.Cleanup(r, ghevidence.CleanupOptions{Feature: "login", Override: true, Offline: true, Reason: "r"})
	require.True(t, errors.As(err, &usage), "%v", err)

	_, err = app.Cleanup(r, ghevidence.CleanupOptions{Feature: "login"})
	require.ErrorIs(t, err, ghevidence.ErrNotLinked)
	assert.Contains(t, err.Error(), "git exarchos cleanup login --offline")

	gh.SetPR(fakegithub.PR{Number: 12, Head: "main", Base: "trunk", HeadSHA: gittest.Git(t, dir, "", "rev-parse", "main")})
	_, err = app.LinkPR(r, ghevidence.PRLinkOptions{Feature: "login", Target: "12"})
	require.NoError(t, err)
	phase := apptest.Status(t, r, "login").Phase
	_, err = app.Cleanup(r, ghevidence.CleanupOptions{Feature: "login"})
	var rej *workflow.Rejection
	require.True(t, errors.As(err, &rej), "%v", err)
	require.Len(t, rej.FailedGuards, 1)
	assert.Equal(t, "merge-verified", rej.FailedGuards[0].Guard)
	st := apptest.Status(t, r, "login")
	assert.Equal(t, phase, st.Phase)
	assert.True(t, st.PR.Observed, "the refused cleanup's observation was not recorded")
}

// TestAnAPIHostTheRepositoryDoesNotNameIsNotAsked: GITHUB_API_URL is only a variable, and a server
// of the agent's own would report any merge it likes; a host the base branch (or the user's global
// config) does not name is refused before any request, with the setting that names it, and
// cleanup records nothing.
func TestAnAPIHostTheRepositoryDoesNotNameIsNotAsked(t *testing.T) {
	gh, dir, r := onGitHub(t)
	gh.SetPR(fakegithub.PR{Number: 12, Head: "main", Base: "trunk", HeadSHA: gittest.Git(t, dir, "", "rev-parse", "main")})
	_, err := app.LinkPR(r, ghevidence.PRLinkOptions{Feature: "login", Target: "12"})
	require.NoError(t, err)
	before := events(t, r)
	_, asked := gh.Requests()

	t.Setenv("GITHUB_API_URL", strings.Replace(gh.URL, "127.0.0.1", "localhost", 1)) // the same server, a name nobody trusted
	for what, call := range map[string]func() error{
		"pr link": func() error {
			_, err := app.LinkPR(r, ghevidence.PRLinkOptions{Feature: "login", Target: "12"})
			return err
		},
		"pr find":    func() error { _, err := app.FindPR(r, ghevidence.PRFindOptions{Feature: "login"}); return err },
		"pr refresh": func() error { _, err := app.RefreshPR(r, ghevidence.PRRefreshOptions{Feature: "login"}); return err },
		"cleanup":    func() error { _, err := app.Cleanup(r, ghevidence.CleanupOptions{Feature: "login"}); return err },
	} {
		err := call()
		var ge *ghclient.Error
		require.True(t, errors.As(err, &ge), "%s: %v", what, err)
		assert.Equal(t, ghclient.KindNoAccess, ge.Kind, what)
		assert.Contains(t, err.Error(), "git config --global exarchos.githubApiHost localhost", what)
	}
	_, total := gh.Requests()
	assert.Equal(t, asked, total, "an untrusted API host was asked")
	assert.Equal(t, before, events(t, r), "a refused command recorded")
}
