package saga_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/exarchos/git-exarchos/app"
	"github.com/exarchos/git-exarchos/ghclient"
	"github.com/exarchos/git-exarchos/ghclient/fakegithub"
	"github.com/exarchos/git-exarchos/internal/apptest"
	"github.com/exarchos/git-exarchos/saga"
	"github.com/exarchos/git-exarchos/workflow"
)

const fakeToken = "ghp_appTestToken0123456789"

// fakeGitHub serves acme/app on github.com with the open pull requests prs, reached through
// GITHUB_API_URL (the process environment, so not from parallel tests).
func fakeGitHub(t *testing.T, prs ...int) *fakegithub.Server {
	t.Helper()
	f := fakegithub.New("github.com", "acme", "app", fakeToken)
	t.Cleanup(f.Close)
	for _, n := range prs {
		f.SetPR(fakegithub.PR{Number: n, Head: "main", Base: "trunk", HeadSHA: "0123456789abcdef0123456789abcdef01234567"})
	}
	t.Setenv("GITHUB_API_URL", f.URL)
	t.Setenv("GH_TOKEN", fakeToken)
	t.Setenv("GITHUB_TOKEN", "")
	t.Setenv("EXARCHOS_GITHUB_RETRY_BUDGET", "300ms")
	return f
}

// noGitHubToken leaves no token anywhere: no variable, and a gh with no login.
func noGitHubToken(t *testing.T) {
	t.Setenv("GH_TOKEN", "")
	t.Setenv("GITHUB_TOKEN", "")
	t.Setenv("GH_CONFIG_DIR", t.TempDir())
}

// linkedPR is a workflow with pull request 9 linked and nothing else to compensate.
func linkedPR(t *testing.T) *app.Repo {
	t.Helper()
	_, r := apptest.NewSagaRepo(t)
	_, err := r.Execute("login", workflow.LinkPR{URL: "https://github.com/acme/app/pull/9"})
	require.NoError(t, err)
	return r
}

func prStep(t *testing.T, res *saga.CancelResult) saga.StepReport {
	t.Helper()
	if len(res.Steps) != 1 || res.Steps[0].Resource != "pr:https://github.com/acme/app/pull/9" || res.Steps[0].Action != "close" {
		t.Fatalf("steps %+v", res.Steps)
	}
	return res.Steps[0]
}

func TestCancelPRObservedMergedOrClosedIsLeftAlone(t *testing.T) {
	gh := fakeGitHub(t, 9)
	for _, obs := range []workflow.PRObservation{{State: "closed", Merged: true}, {State: "closed"}} {
		r := linkedPR(t)
		obs.Number, obs.URL, obs.ObservedAt = 9, "https://github.com/acme/app/pull/9", "2026-01-02T03:04:05Z"
		_, err := r.Execute("login", workflow.ObservePR{PRObservation: obs})
		require.NoError(t, err)
		res, err := app.Cancel(r, saga.CancelOptions{Feature: "login"})
		if err != nil || !res.Cancelled() {
			t.Fatalf("%+v %v", res, err)
		}
		if s := prStep(t, res); s.Outcome != workflow.OutcomeSkipped || !strings.Contains(s.Detail, "observed 2026-01-02T03:04:05Z") {
			t.Fatalf("step %+v", s)
		}
	}
	if _, total := gh.Requests(); total != 0 {
		t.Fatalf("asked GitHub %d times about a pull request known to be over", total)
	}
}

func TestCancelPRAlreadyClosedOnGitHubIsDone(t *testing.T) {
	gh := fakeGitHub(t, 9)
	gh.UpdatePR(9, func(p *fakegithub.PR) { p.State = "closed" }) // closed by a cancel killed before recording it
	res, err := app.Cancel(linkedPR(t), saga.CancelOptions{Feature: "login"})
	if err != nil || !res.Cancelled() {
		t.Fatalf("%+v %v", res, err)
	}
	if s := prStep(t, res); s.Outcome != workflow.OutcomeDone || !strings.Contains(s.Detail, "already closed") {
		t.Fatalf("step %+v", s)
	}
	if by, _ := gh.Requests(); by["pull"] != 1 || by["comment"] != 0 || by["update-pull"] != 0 {
		t.Fatalf("requests %v", by)
	}
}

func TestCancelPRGitHubFailureStaysCancellingThenRetries(t *testing.T) {
	gh := fakeGitHub(t, 9)
	r := linkedPR(t)
	gh.Fail(fakegithub.Fault{Route: "comment", Status: 403, Body: `{"message":"Resource not accessible by integration"}`})
	res, err := app.Cancel(r, saga.CancelOptions{Feature: "login", Reason: "dup"})
	var inc *saga.CancelIncompleteError
	var ge *ghclient.Error
	if !errors.As(err, &inc) || !errors.As(err, &ge) || !ge.IsAccess() {
		t.Fatalf("want an incomplete cancel caused by GitHub access, got %v", err)
	}
	if res.Phase != "cancelling" || len(inc.Failed) != 1 || !strings.Contains(inc.Failed[0].Detail, "write access") || !strings.Contains(inc.Failed[0].Fix, "--skip-pr") {
		t.Fatalf("%+v %+v", res, inc.Failed)
	}
	if p, _ := gh.PR(9); p.State != "open" {
		t.Fatalf("%+v", p)
	}
	res, err = app.Cancel(r, saga.CancelOptions{Feature: "login"})
	if err != nil || !res.Cancelled() {
		t.Fatalf("retry: %+v %v", res, err)
	}
	if s := prStep(t, res); s.Outcome != workflow.OutcomeDone {
		t.Fatalf("step %+v", s)
	}
	if p, _ := gh.PR(9); p.State != "closed" || len(gh.Comments(9)) != 1 || !strings.Contains(gh.Comments(9)[0], "Reason: dup") {
		t.Fatalf("%+v %q", p, gh.Comments(9))
	}
}

func TestCancelPRWithoutTokenFailsUntilSkipped(t *testing.T) {
	gh := fakeGitHub(t, 9)
	noGitHubToken(t)
	r := linkedPR(t)
	dry, err := app.Cancel(r, saga.CancelOptions{Feature: "login", DryRun: true})
	if err != nil || dry.Steps[0].Outcome != "would fail" {
		t.Fatalf("dry run: %+v %v", dry, err)
	}
	res, err := app.Cancel(r, saga.CancelOptions{Feature: "login"})
	var ge *ghclient.Error
	if !errors.As(err, &ge) || ge.Kind != ghclient.KindNoToken || res.Phase != "cancelling" {
		t.Fatalf("%+v %v", res, err)
	}
	if s := res.Steps[0]; s.Outcome != workflow.OutcomeFailed || !strings.Contains(s.Detail, "no GitHub token") ||
		!strings.Contains(s.Fix, "GH_TOKEN") || !strings.Contains(s.Fix, "git exarchos cancel login --skip-pr") {
		t.Fatalf("step %+v", s)
	}
	res, err = app.Cancel(r, saga.CancelOptions{Feature: "login", SkipPR: true})
	if err != nil || !res.Cancelled() {
		t.Fatalf("%+v %v", res, err)
	}
	if s := prStep(t, res); s.Outcome != workflow.OutcomeSkipped || !strings.Contains(s.Detail, "skipped by the user") {
		t.Fatalf("step %+v", s)
	}
	if _, total := gh.Requests(); total != 0 {
		t.Fatalf("%d requests without a token", total)
	}
}
