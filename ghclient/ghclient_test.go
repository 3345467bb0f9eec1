package ghclient_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-github/v62/github"

	"github.com/exarchos/git-exarchos/ghclient"
	"github.com/exarchos/git-exarchos/ghclient/fakegithub"
	"github.com/exarchos/git-exarchos/workflow"
)

const secret = "ghp_s3cretTokenValue0123456789"

var repo = ghclient.Repo{Host: "github.com", Owner: "acme", Name: "app"}

func env(vars map[string]string) ghclient.Env {
	return ghclient.Env{
		Getenv:  func(k string) string { return vars[k] },
		GhToken: func(string) (string, error) { return "", errors.New("no gh") },
	}
}

func newClient(t *testing.T, fake *fakegithub.Server, budget time.Duration) *ghclient.Client {
	t.Helper()
	c, err := ghclient.New(ghclient.Options{Repo: repo, RetryBudget: budget,
		Env: env(map[string]string{"GH_TOKEN": secret, "GITHUB_API_URL": fake.URL})})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestParseRemoteURL(t *testing.T) {
	for raw, want := range map[string]string{
		"https://github.com/acme/app.git":              "github.com/acme/app",
		"https://github.com/acme/app":                  "github.com/acme/app",
		"http://ghe.corp.example/acme/app/":            "ghe.corp.example/acme/app",
		"git@github.com:acme/app.git":                  "github.com/acme/app",
		"github.com:acme/app":                          "github.com/acme/app",
		"ssh://git@github.com/acme/app.git":            "github.com/acme/app",
		"ssh://git@ghe.corp.example:2222/acme/app.git": "ghe.corp.example/acme/app",
		"ssh://git@ssh.github.com:443/acme/app.git":    "github.com/acme/app",
		"git://GitHub.com/acme/app":                    "github.com/acme/app",
	} {
		got, err := ghclient.ParseRemoteURL(raw)
		if err != nil || got.String() != want {
			t.Errorf("ParseRemoteURL(%q) = %v, %v; want %s", raw, got, err, want)
		}
	}
	for _, raw := range []string{"/srv/git/app.git", "file:///srv/app.git", "https://github.com/acme", "https://github.com/a/b/c", ""} {
		if got, err := ghclient.ParseRemoteURL(raw); err == nil {
			t.Errorf("ParseRemoteURL(%q) = %v, want an error", raw, got)
		}
	}
	r, n, ok := ghclient.RepoOfPR("https://GitHub.com/acme/app/pull/7")
	if !ok || n != 7 || !r.Same(repo) {
		t.Errorf("RepoOfPR: %v %d %v", r, n, ok)
	}
}

func TestResolveToken(t *testing.T) {
	gh := func(tok string) func(string) (string, error) {
		return func(host string) (string, error) { return tok + "@" + host, nil }
	}
	cases := []struct {
		host   string
		vars   map[string]string
		gh     func(string) (string, error)
		source string
	}{
		{"github.com", map[string]string{"GH_TOKEN": "a", "GITHUB_TOKEN": "b"}, nil, "GH_TOKEN"},
		{"github.com", map[string]string{"GH_TOKEN": " ", "GITHUB_TOKEN": "b"}, nil, "GITHUB_TOKEN"}, // empty is skipped
		{"github.com", map[string]string{"GH_ENTERPRISE_TOKEN": "e"}, gh("g"), "gh auth token"},      // enterprise tokens are not for github.com
		{"ghe.corp", map[string]string{"GH_ENTERPRISE_TOKEN": "e"}, gh("g"), "GH_ENTERPRISE_TOKEN"},
		{"ghe.corp", map[string]string{"GITHUB_ENTERPRISE_TOKEN": "e"}, nil, "GITHUB_ENTERPRISE_TOKEN"},
		{"ghe.corp", nil, gh("g"), "gh auth token"},
	}
	for _, c := range cases {
		e := env(c.vars)
		if c.gh != nil {
			e.GhToken = c.gh
		}
		tok, err := ghclient.ResolveToken(c.host, e)
		if err != nil || tok.Source != c.source {
			t.Errorf("%s %v: %v %v, want %s", c.host, c.vars, tok, err, c.source)
		}
	}
	_, err := ghclient.ResolveToken("github.com", env(nil))
	var ge *ghclient.Error
	if !errors.As(err, &ge) || ge.Kind != ghclient.KindNoToken || !ge.IsAccess() || !strings.Contains(err.Error(), "gh auth login --hostname github.com") {
		t.Fatalf("no token: %v", err)
	}
	// Printing or marshalling a token shows only its source.
	tok := ghclient.NewToken(secret, "GH_TOKEN")
	b, _ := json.Marshal(tok)
	for _, s := range []string{fmt.Sprint(tok), fmt.Sprintf("%v %+v %#v %s", tok, tok, tok, tok), string(b)} {
		if strings.Contains(s, secret) {
			t.Fatalf("token leaked: %s", s)
		}
	}
}

func TestGhAuthTokenFromPath(t *testing.T) {
	dir := t.TempDir()
	script := "#!/bin/sh\n[ \"$1 $2 $3 $4\" = \"auth token --hostname ghe.corp\" ] && echo tok-from-gh\n"
	if err := os.WriteFile(filepath.Join(dir, "gh"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	tok, err := ghclient.ResolveToken("ghe.corp", ghclient.Env{Getenv: func(string) string { return "" }})
	if err != nil || tok.Source != "gh auth token" {
		t.Fatalf("%v %v", tok, err)
	}
}

func TestAPIBase(t *testing.T) {
	fake := fakegithub.New("ghe.corp", "acme", "app", secret)
	defer fake.Close()
	fake.SetPR(fakegithub.PR{Number: 3, Head: "topic", Base: "main", HeadSHA: "abc"})
	// The Enterprise layout (/api/v3/) is served and GITHUB_API_URL may name it without the slash.
	c, err := ghclient.New(ghclient.Options{Repo: ghclient.Repo{Host: "ghe.corp", Owner: "acme", Name: "app"},
		Env: env(map[string]string{"GH_ENTERPRISE_TOKEN": secret, "GITHUB_API_URL": fake.URL + "/api/v3"})})
	if err != nil {
		t.Fatal(err)
	}
	pr, err := c.PullRequest(context.Background(), 3)
	if err != nil || pr.URL != "https://ghe.corp/acme/app/pull/3" || pr.Head != "topic" {
		t.Fatalf("%+v %v", pr, err)
	}
}

func TestObserveCombinesChecksAndStatuses(t *testing.T) {
	fake := fakegithub.New("github.com", "acme", "app", secret)
	defer fake.Close()
	fake.SetPR(fakegithub.PR{Number: 12, Head: "topic", Base: "main", HeadSHA: "h1", Requested: []string{"bob"}})
	c := newClient(t, fake, time.Second)
	ctx, now := context.Background(), time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)

	o, _, err := c.Observe(ctx, 12, nil, now)
	if err != nil || o.Checks != "none" || o.ReviewDecision != "REVIEW_REQUIRED" || o.State != "open" || o.Merged || o.ObservedAt != "2026-03-01T00:00:00Z" {
		t.Fatalf("no checks at all must be none, not pending: %+v %v", o, err)
	}
	if _, total := fake.Requests(); total != 4 {
		t.Fatalf("first observation of an open PR: %d requests, want 4 (pull, check runs, statuses, reviews)", total)
	}
	// Polling again while nothing touched the reviews: 3 requests.
	fake.ResetRequests()
	fake.AddCheckRun("h1", fakegithub.CheckRun{Name: "build", Status: "completed", Conclusion: "success"})
	o2, _, err := c.Observe(ctx, 12, &o, now)
	if err != nil || o2.Checks != "success" || o2.ReviewDecision != "REVIEW_REQUIRED" {
		t.Fatalf("%+v %v", o2, err)
	}
	if by, total := fake.Requests(); total > 3 || by["reviews"] != 0 {
		t.Fatalf("refresh: %v (%d requests), want at most 3 and no reviews", by, total)
	}
	// A legacy status joins the check runs: pending, then failure.
	fake.AddStatus("h1", fakegithub.Status{Context: "jenkins", State: "pending"})
	if o3, _, _ := c.Observe(ctx, 12, &o2, now); o3.Checks != "pending" {
		t.Fatalf("pending status: %+v", o3)
	}
	fake.AddStatus("h1", fakegithub.Status{Context: "jenkins", State: "failure"})
	// A review bumps updated_at, so the decision is read again.
	fake.AddReview(12, fakegithub.Review{User: "bob", State: "APPROVED"})
	o4, _, _ := c.Observe(ctx, 12, &o2, now)
	if o4.Checks != "failure" || len(o4.Failing) != 1 || o4.Failing[0] != "jenkins" || o4.ReviewDecision != "APPROVED" {
		t.Fatalf("%+v", o4)
	}
	// Merged: no reviews read, at most 3 requests.
	fake.UpdatePR(12, func(p *fakegithub.PR) { p.State, p.Merged, p.MergeCommitSHA = "closed", true, "m1" })
	fake.ResetRequests()
	o5, _, err := c.Observe(ctx, 12, &o4, now)
	if err != nil || !o5.Merged || o5.MergeCommitSHA != "m1" || o5.MergedAt == "" || o5.ReviewDecision != "APPROVED" {
		t.Fatalf("%+v %v", o5, err)
	}
	if by, total := fake.Requests(); total > 3 || by["reviews"] != 0 {
		t.Fatalf("merged: %v", by)
	}
}

func TestCombineChecks(t *testing.T) {
	run := func(status, conclusion string) *github.CheckRun {
		return &github.CheckRun{Name: github.String(status + "/" + conclusion), Status: github.String(status), Conclusion: github.String(conclusion)}
	}
	st := func(state string) *github.RepoStatus {
		return &github.RepoStatus{Context: github.String("ctx-" + state), State: github.String(state)}
	}
	for _, c := range []struct {
		runs     []*github.CheckRun
		statuses []*github.RepoStatus
		want     string
	}{
		{nil, nil, "none"},
		{[]*github.CheckRun{run("completed", "success"), run("completed", "skipped"), run("completed", "neutral")}, nil, "success"},
		{[]*github.CheckRun{run("in_progress", "")}, []*github.RepoStatus{st("success")}, "pending"},
		{[]*github.CheckRun{run("completed", "success")}, []*github.RepoStatus{st("error")}, "failure"},
		{[]*github.CheckRun{run("completed", "timed_out"), run("queued", "")}, nil, "failure"},
		{nil, []*github.RepoStatus{st("success")}, "success"},
	} {
		if got, _ := ghclient.CombineChecks(c.runs, c.statuses); got != c.want {
			t.Errorf("%d runs, %d statuses: %s, want %s", len(c.runs), len(c.statuses), got, c.want)
		}
	}
}

func TestDecideReviews(t *testing.T) {
	rv := func(user, state string) *github.PullRequestReview {
		return &github.PullRequestReview{User: &github.User{Login: github.String(user)}, State: github.String(state)}
	}
	for _, c := range []struct {
		reviews   []*github.PullRequestReview
		requested bool
		want      string
	}{
		{nil, false, ""},
		{nil, true, "REVIEW_REQUIRED"},
		{[]*github.PullRequestReview{rv("a", "COMMENTED")}, true, "REVIEW_REQUIRED"},
		{[]*github.PullRequestReview{rv("a", "CHANGES_REQUESTED"), rv("a", "APPROVED")}, false, "APPROVED"},
		{[]*github.PullRequestReview{rv("a", "APPROVED"), rv("b", "CHANGES_REQUESTED")}, false, "CHANGES_REQUESTED"},
		{[]*github.PullRequestReview{rv("b", "DISMISSED"), rv("a", "APPROVED")}, false, "APPROVED"},
	} {
		if got := ghclient.DecideReviews(c.reviews, c.requested); got != c.want {
			t.Errorf("%v: %s, want %s", c.reviews, got, c.want)
		}
	}
}

func TestFindPullRequests(t *testing.T) {
	fake := fakegithub.New("github.com", "acme", "app", secret)
	defer fake.Close()
	fake.SetPR(fakegithub.PR{Number: 1, Head: "topic", Base: "main", HeadSHA: "a", State: "closed"})
	fake.SetPR(fakegithub.PR{Number: 2, Head: "topic", Base: "main", HeadSHA: "b"})
	fake.SetPR(fakegithub.PR{Number: 3, Head: "other", Base: "main", HeadSHA: "c"})
	c := newClient(t, fake, time.Second)
	prs, err := c.FindPullRequests(context.Background(), "topic")
	if err != nil || len(prs) != 2 || prs[0].Number != 2 || prs[1].Number != 1 {
		t.Fatalf("%+v %v", prs, err)
	}
	if by, _ := fake.Requests(); by["pulls"] != 1 {
		t.Fatalf("%v", by)
	}
}

// errorOf runs one PullRequest read against faults and returns the *Error.
func errorOf(t *testing.T, budget time.Duration, token string, faults ...fakegithub.Fault) (*ghclient.Error, *fakegithub.Server) {
	t.Helper()
	fake := fakegithub.New("github.com", "acme", "app", token)
	t.Cleanup(fake.Close)
	fake.SetPR(fakegithub.PR{Number: 12, Head: "topic", Base: "main", HeadSHA: "h"})
	fake.Fail(faults...)
	_, err := newClient(t, fake, budget).PullRequest(context.Background(), 12)
	var ge *ghclient.Error
	if !errors.As(err, &ge) {
		t.Fatalf("want *ghclient.Error, got %T %v", err, err)
	}
	if strings.Contains(err.Error(), secret) {
		t.Fatalf("the token leaked into the error: %v", err)
	}
	b, _ := json.Marshal(ge)
	if strings.Contains(string(b), secret) {
		t.Fatalf("the token leaked into the error's JSON: %s", b)
	}
	return ge, fake
}

func TestFailures(t *testing.T) {
	e, _ := errorOf(t, time.Second, "another-token")
	if e.Kind != ghclient.KindBadToken || !e.IsAccess() || !strings.Contains(e.Msg, "token from GH_TOKEN") || !strings.Contains(e.Msg, "401") {
		t.Errorf("401: %+v", e)
	}
	e, _ = errorOf(t, time.Second, secret, fakegithub.Fault{Status: 404, Body: `{"message":"Not Found {{token}}"}`})
	if e.Kind != ghclient.KindNoAccess || !strings.Contains(e.Msg, "token from GH_TOKEN") || !strings.Contains(e.Msg, "404") || !strings.Contains(e.Msg, "[redacted]") {
		t.Errorf("404: %+v", e)
	}
	e, _ = errorOf(t, time.Second, secret, fakegithub.Fault{Status: 403, Body: `{"message":"Resource not accessible by integration"}`})
	if e.Kind != ghclient.KindNoAccess || !strings.Contains(e.Msg, "403 Resource not accessible") {
		t.Errorf("403: %+v", e)
	}
	reset := time.Now().Add(42 * time.Minute).Unix()
	e, fake := errorOf(t, time.Second, secret, fakegithub.Fault{Status: 403, Body: `{"message":"API rate limit exceeded"}`,
		Header: map[string]string{"X-RateLimit-Remaining": "0", "X-RateLimit-Limit": "5000", "X-RateLimit-Reset": fmt.Sprint(reset)}})
	if e.Kind != ghclient.KindRateLimited || e.Reset.Unix() != reset || !strings.Contains(e.Msg, "resets at") {
		t.Errorf("rate limit: %+v", e)
	}
	if _, total := fake.Requests(); total != 1 {
		t.Errorf("an exhausted primary rate limit must not be retried: %d requests", total)
	}
	// A 5xx storm: retried within the budget, then a clear message.
	storm := make([]fakegithub.Fault, 20)
	for i := range storm {
		storm[i] = fakegithub.Fault{Status: 502, Body: `{"message":"Bad Gateway {{token}}"}`}
	}
	start := time.Now()
	e, fake = errorOf(t, 300*time.Millisecond, secret, storm...)
	if e.Kind != ghclient.KindUnavailable || e.IsAccess() || !strings.Contains(e.Msg, "HTTP 502") || !strings.Contains(e.Msg, "githubstatus") {
		t.Errorf("5xx storm: %+v", e)
	}
	if _, total := fake.Requests(); total < 2 || time.Since(start) > 5*time.Second {
		t.Errorf("5xx storm: %d requests in %s", total, time.Since(start))
	}
	// Secondary rate limit asking for longer than the budget: reported with when to retry.
	e, _ = errorOf(t, 300*time.Millisecond, secret, fakegithub.Fault{Status: 403, Header: map[string]string{"Retry-After": "60"},
		Body: `{"message":"You have exceeded a secondary rate limit","documentation_url":"https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits"}`})
	if e.Kind != ghclient.KindRateLimited || !strings.Contains(e.Msg, "secondary rate limit") || !strings.Contains(e.Msg, "retry after") {
		t.Errorf("secondary: %+v", e)
	}
}

func TestRetriesRecover(t *testing.T) {
	fake := fakegithub.New("github.com", "acme", "app", secret)
	defer fake.Close()
	fake.SetPR(fakegithub.PR{Number: 12, Head: "topic", Base: "main", HeadSHA: "h"})
	fake.Fail(fakegithub.Fault{Status: 503}, fakegithub.Fault{Status: 403, Header: map[string]string{"Retry-After": "0"}, Body: `{"message":"secondary rate limit"}`})
	c := newClient(t, fake, 5*time.Second)
	if _, err := c.PullRequest(context.Background(), 12); err != nil {
		t.Fatal(err)
	}
	if _, total := fake.Requests(); total != 3 || c.Requests() != 3 {
		t.Fatalf("%d requests served, %d counted", total, c.Requests())
	}
}

func TestNetworkDown(t *testing.T) {
	fake := fakegithub.New("github.com", "acme", "app", secret)
	url := fake.URL
	fake.Close()
	c, err := ghclient.New(ghclient.Options{Repo: repo, RetryBudget: 200 * time.Millisecond,
		Env: env(map[string]string{"GH_TOKEN": secret, "GITHUB_API_URL": url})})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.PullRequest(context.Background(), 12)
	var ge *ghclient.Error
	if !errors.As(err, &ge) || ge.Kind != ghclient.KindUnreachable || !strings.Contains(err.Error(), "cannot reach the GitHub API") || !strings.Contains(err.Error(), "--offline") {
		t.Fatalf("%v", err)
	}
}

func TestRetryBudgetFromEnv(t *testing.T) {
	_, err := ghclient.New(ghclient.Options{Repo: repo, Env: env(map[string]string{"GH_TOKEN": "x", "EXARCHOS_GITHUB_RETRY_BUDGET": "soon"})})
	if err == nil || !strings.Contains(err.Error(), "EXARCHOS_GITHUB_RETRY_BUDGET") {
		t.Fatalf("%v", err)
	}
}

func TestClosePR(t *testing.T) {
	fake := fakegithub.New("github.com", "acme", "app", secret)
	defer fake.Close()
	fake.SetPR(fakegithub.PR{Number: 12, Head: "topic", Base: "main", HeadSHA: "h"})
	c := newClient(t, fake, time.Second)
	pr, err := c.ClosePR(context.Background(), 12, "closed: superseded")
	if err != nil || pr.State != "closed" || pr.Number != 12 {
		t.Fatalf("%+v %v", pr, err)
	}
	if got := fake.Comments(12); len(got) != 1 || got[0] != "closed: superseded" {
		t.Fatalf("comments %q", got)
	}
	by, total := fake.Requests()
	if total != 3 || by["comments"] != 1 || by["comment"] != 1 || by["update-pull"] != 1 {
		t.Fatalf("requests %v", by)
	}

	fake.SetPR(fakegithub.PR{Number: 13, Head: "other", Base: "main", HeadSHA: "h"})
	fake.ResetRequests()
	// The comment lands, then the close (a PATCH to a state) meets a 502: retried with its body
	// replayed, and the comment is not posted twice.
	fake.Fail(fakegithub.Fault{Route: "update-pull", Status: 502, Body: `{"message":"Bad Gateway"}`})
	if pr, err := c.ClosePR(context.Background(), 13, "bye"); err != nil || pr.State != "closed" {
		t.Fatalf("%+v %v", pr, err)
	}
	if by, _ := fake.Requests(); by["update-pull"] != 2 || by["comment"] != 1 || len(fake.Comments(13)) != 1 {
		t.Fatalf("requests %v, comments %q", by, fake.Comments(13))
	}

	// A close killed between its comment and its close is run again (cancel resumes): the comment,
	// already there among 150 others (two pages), is not posted twice.
	fake.SetPR(fakegithub.PR{Number: 14, Head: "third", Base: "main", HeadSHA: "h"})
	for i := range 150 {
		if _, err := c.ClosePR(context.Background(), 14, fmt.Sprint("note ", i)); err != nil {
			t.Fatal(err)
		}
		fake.SetPR(fakegithub.PR{Number: 14, Head: "third", Base: "main", HeadSHA: "h"}) // open again
	}
	fake.ResetRequests()
	if _, err := c.ClosePR(context.Background(), 14, "note 3"); err != nil {
		t.Fatal(err)
	}
	if by, _ := fake.Requests(); by["comment"] != 0 || by["comments"] != 1 || len(fake.Comments(14)) != 150 {
		t.Fatalf("requests %v, %d comments", by, len(fake.Comments(14)))
	}
	fake.ResetRequests()
	if _, err := c.ClosePR(context.Background(), 14, "note 149"); err != nil {
		t.Fatal(err)
	}
	if by, _ := fake.Requests(); by["comment"] != 0 || by["comments"] != 2 || len(fake.Comments(14)) != 150 {
		t.Fatalf("requests %v, %d comments", by, len(fake.Comments(14)))
	}
}

func TestClosePRFailures(t *testing.T) {
	fake := fakegithub.New("github.com", "acme", "app", secret)
	defer fake.Close()
	fake.SetPR(fakegithub.PR{Number: 12, Head: "topic", Base: "main", HeadSHA: "h"})
	c := newClient(t, fake, 300*time.Millisecond)
	// A 5xx on the comment (a POST) is not retried: a second comment would be noise.
	fake.Fail(fakegithub.Fault{Route: "comment", Status: 502, Body: `{"message":"Bad Gateway"}`})
	_, err := c.ClosePR(context.Background(), 12, "bye")
	var ge *ghclient.Error
	if !errors.As(err, &ge) || ge.Kind != ghclient.KindUnavailable || !strings.Contains(ge.Msg, "closing pull request acme/app#12") {
		t.Fatalf("%v", err)
	}
	if by, total := fake.Requests(); total != 2 || by["comment"] != 1 {
		t.Fatalf("requests %v", by)
	}
	// No write access: an access failure (exit 4) that names the permission.
	fake.Fail(fakegithub.Fault{Route: "update-pull", Status: 403, Body: `{"message":"Resource not accessible by integration"}`})
	_, err = c.ClosePR(context.Background(), 12, "bye")
	if !errors.As(err, &ge) || ge.Kind != ghclient.KindNoAccess || !ge.IsAccess() || !strings.Contains(ge.Msg, "write access") {
		t.Fatalf("%v", err)
	}
	if p, _ := fake.PR(12); p.State != "open" {
		t.Fatalf("closed despite the 403: %+v", p)
	}
}

// TestTokenStaysWithTheAPIHost redirects reads and the close-PR writes to a second server: none of
// the redirected requests may carry the token, while a redirect within the API host keeps it.
func TestTokenStaysWithTheAPIHost(t *testing.T) {
	fake := fakegithub.New("github.com", "acme", "app", secret)
	defer fake.Close()
	fake.SetPR(fakegithub.PR{Number: 12, Head: "topic", Base: "main", HeadSHA: "h"})
	var mu sync.Mutex
	var seen []string // Authorization headers the other host received
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Method+" "+r.Header.Get("Authorization"))
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"id":1,"number":12,"state":"closed","html_url":"https://github.com/acme/app/pull/12","head":{"ref":"topic","sha":"h"},"base":{"ref":"main"}}`)
	}))
	defer other.Close()
	away := func(status int, path string, route ...string) fakegithub.Fault {
		f := fakegithub.Fault{Status: status, Header: map[string]string{"Location": other.URL + path}}
		if len(route) > 0 {
			f.Route = route[0]
		}
		return f
	}
	c := newClient(t, fake, time.Second)
	ctx := context.Background()
	fake.Fail(away(http.StatusFound, "/repos/acme/app/pulls/12"))
	if _, err := c.PullRequest(ctx, 12); err != nil {
		t.Fatal(err)
	}
	fake.Fail(away(http.StatusTemporaryRedirect, "/repos/acme/app/issues/12/comments", "comment"), away(http.StatusPermanentRedirect, "/repos/acme/app/pulls/12", "update-pull"))
	if _, err := c.ClosePR(ctx, 12, "bye"); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	if len(seen) != 3 {
		t.Fatalf("the other host saw %d requests: %q", len(seen), seen)
	}
	for _, s := range seen {
		if strings.Contains(s, secret) || strings.Contains(s, "Bearer") {
			t.Errorf("the token went to another host: %q", s)
		}
	}
	mu.Unlock()
	// Within the API host the token follows (the fake answers 401 without it).
	fake.Fail(fakegithub.Fault{Status: http.StatusTemporaryRedirect, Header: map[string]string{"Location": fake.URL + "/repos/acme/app/pulls/12"}})
	if _, err := c.PullRequest(ctx, 12); err != nil {
		t.Fatalf("redirect within the API host: %v", err)
	}
	// Plain HTTP only to loopback.
	for _, base := range []string{"http://api.example.com/", "http://10.0.0.1:8080/api/v3/"} {
		_, err := ghclient.New(ghclient.Options{Repo: repo, Env: env(map[string]string{"GH_TOKEN": secret, "GITHUB_API_URL": base})})
		if err == nil || !strings.Contains(err.Error(), "HTTPS") {
			t.Errorf("%s: %v", base, err)
		}
	}
	for _, base := range []string{"http://localhost:1/", "http://[::1]:1/", "https://api.example.com/"} {
		if _, err := ghclient.New(ghclient.Options{Repo: repo, Env: env(map[string]string{"GH_TOKEN": secret, "GITHUB_API_URL": base})}); err != nil {
			t.Errorf("%s: %v", base, err)
		}
	}
}

// TestNonJSONAnswer: a 200 that is not JSON (a proxy's or a web host's page) is not "refused".
func TestNonJSONAnswer(t *testing.T) {
	e, _ := errorOf(t, time.Second, secret, fakegithub.Fault{Status: 200, Header: map[string]string{"Content-Type": "text/html"}, Body: "<html>sign in</html>"})
	if strings.Contains(e.Msg, "refused") || !strings.Contains(e.Msg, "HTTP 200 with Content-Type text/html") || !strings.Contains(e.Msg, "GITHUB_API_URL") {
		t.Errorf("%+v", e)
	}
}

// TestObserveRecordsReviews: an observation carries the pull request's author and its verdicts
// (reviewer, state, the commit each was submitted on; comments left out); an unchanged refresh
// keeps them without reading the reviews again (3 requests).
func TestObserveRecordsReviews(t *testing.T) {
	fake := fakegithub.New("github.com", "acme", "app", secret)
	defer fake.Close()
	fake.SetPR(fakegithub.PR{Number: 5, Head: "topic", Base: "main", HeadSHA: "h1", Author: "alice"})
	fake.AddReview(5, fakegithub.Review{User: "alice", State: "APPROVED"})
	fake.AddReview(5, fakegithub.Review{User: "bob", State: "COMMENTED"})
	fake.AddReview(5, fakegithub.Review{User: "bob", State: "APPROVED", Commit: "h0"})
	c := newClient(t, fake, time.Second)
	ctx, now := context.Background(), time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)

	o, pr, err := c.Observe(ctx, 5, nil, now)
	if err != nil || pr.Author != "alice" || o.Author != "alice" {
		t.Fatalf("author: %+v %+v %v", pr, o, err)
	}
	want := []workflow.PRReview{{Reviewer: "alice", State: "APPROVED", Commit: "h1"}, {Reviewer: "bob", State: "APPROVED", Commit: "h0"}}
	if len(o.Reviews) != len(want) {
		t.Fatalf("reviews %+v, want %+v", o.Reviews, want)
	}
	for i, w := range want {
		if g := o.Reviews[i]; g.Reviewer != w.Reviewer || g.State != w.State || g.Commit != w.Commit || g.SubmittedAt == "" {
			t.Fatalf("review %d: %+v, want %+v", i, g, w)
		}
	}
	fake.ResetRequests()
	o2, _, err := c.Observe(ctx, 5, &o, now)
	if err != nil || !o2.SameAs(o) {
		t.Fatalf("unchanged refresh: %+v, before %+v (%v)", o2, o, err)
	}
	if by, total := fake.Requests(); total != 3 || by["reviews"] != 0 {
		t.Fatalf("unchanged refresh: %v (%d requests), want 3 and no reviews", by, total)
	}
	// An observation recorded before authors and reviews were: the reviews are read again.
	legacy := o2
	legacy.Author, legacy.Reviews = "", nil
	fake.ResetRequests()
	if o, _, err := c.Observe(ctx, 5, &legacy, now); err != nil || !o.SameAs(o2) {
		t.Fatalf("after an old observation: %+v %v", o, err)
	}
	if by, _ := fake.Requests(); by["reviews"] != 1 {
		t.Fatalf("an old observation must not keep its missing reviews: %v", by)
	}
	// A new review is read, on the head it was given.
	fake.UpdatePR(5, func(p *fakegithub.PR) { p.HeadSHA = "h2" })
	fake.AddReview(5, fakegithub.Review{User: "bob", State: "CHANGES_REQUESTED"})
	o3, _, err := c.Observe(ctx, 5, &o2, now)
	if err != nil || len(o3.Reviews) != 3 || o3.Reviews[2].Commit != "h2" || o3.Reviews[2].State != "CHANGES_REQUESTED" || o3.ReviewDecision != "CHANGES_REQUESTED" {
		t.Fatalf("%+v %v", o3, err)
	}
}

// GitHub answers lists in pages (the fake as GitHub does: 30 by default, at most 100, a Link
// header to the next): a verdict, a failed check run and a failed status past the first page
// count, an old open pull request listed after many newer closed ones is found, and a listed pull
// request, which has no merged field, is known merged by its merged_at.
func TestPagedAnswers(t *testing.T) {
	fake := fakegithub.New("github.com", "acme", "app", secret)
	defer fake.Close()
	sha := "abababababababababababababababababababab"
	fake.SetPR(fakegithub.PR{Number: 1, Head: "topic", Base: "main", HeadSHA: sha})
	for n := 2; n <= 130; n++ {
		fake.SetPR(fakegithub.PR{Number: n, Head: "topic", Base: "main", HeadSHA: "c", State: "closed", Merged: n == 70, MergeCommitSHA: "m"})
	}
	for i := range 130 {
		fake.AddReview(1, fakegithub.Review{User: fmt.Sprintf("r%d", i), State: "COMMENTED"})
	}
	fake.AddReview(1, fakegithub.Review{User: "late", State: "CHANGES_REQUESTED"})
	for i := range 250 {
		fake.AddCheckRun(sha, fakegithub.CheckRun{Name: fmt.Sprintf("run%03d", i), Status: "completed", Conclusion: "success"})
	}
	fake.AddCheckRun(sha, fakegithub.CheckRun{Name: "zz-last-run", Status: "completed", Conclusion: "failure"})
	for i := range 130 {
		fake.AddStatus(sha, fakegithub.Status{Context: fmt.Sprintf("ci/%03d", i), State: "success"})
	}
	fake.AddStatus(sha, fakegithub.Status{Context: "zz-last-status", State: "failure"})
	c := newClient(t, fake, time.Second)
	ctx := context.Background()

	o, _, err := c.Observe(ctx, 1, nil, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if o.Checks != ghclient.ChecksFailure || strings.Join(o.Failing, ",") != "zz-last-run,zz-last-status" {
		t.Errorf("checks past the first page: %s %v", o.Checks, o.Failing)
	}
	if o.ReviewDecision != "CHANGES_REQUESTED" || len(o.Reviews) != 1 || o.Reviews[0].Reviewer != "late" {
		t.Errorf("a verdict past the first page of reviews: %s %+v", o.ReviewDecision, o.Reviews)
	}
	if by, _ := fake.Requests(); by["check-runs"] != 3 || by["status"] != 2 || by["reviews"] != 2 {
		t.Errorf("pages read: %v", by)
	}

	prs, err := c.FindPullRequests(ctx, "topic")
	if err != nil {
		t.Fatal(err)
	}
	if len(prs) != 130 || prs[0].Number != 1 || prs[0].State != "open" {
		t.Fatalf("the old open pull request on the last page: %d found, first %+v", len(prs), prs[0])
	}
	if prs[1].Number != 70 || !prs[1].Merged || prs[1].MergeCommitSHA != "m" {
		t.Errorf("a listed merged pull request (merged_at, no merged field): %+v", prs[1])
	}
	for _, req := range fake.Log() {
		if req.Route == "pulls" && req.Query.Get("per_page") != "100" {
			t.Errorf("pull requests listed %s a page", req.Query.Get("per_page"))
		}
	}
}

// The rate-limit answers GitHub gives, from the fake's constructors: an exhausted primary limit
// (403 or 429, x-ratelimit-remaining 0) is reported with its reset and never retried; a secondary
// limit (403 or 429 with Retry-After, or only GitHub's message) is waited out within the budget,
// and reported with when to retry beyond it.
func TestRateLimitAnswers(t *testing.T) {
	reset := time.Now().Add(17 * time.Minute).Truncate(time.Second)
	for _, status := range []int{403, 429} {
		e, fake := errorOf(t, time.Second, secret, fakegithub.PrimaryRateLimit("", status, reset))
		if e.Kind != ghclient.KindRateLimited || !e.Reset.Equal(reset) || !strings.Contains(e.Msg, "resets at") {
			t.Errorf("primary %d: %+v", status, e)
		}
		if _, total := fake.Requests(); total != 1 {
			t.Errorf("primary %d retried: %d requests", status, total)
		}

		fake = fakegithub.New("github.com", "acme", "app", secret)
		fake.SetPR(fakegithub.PR{Number: 12, Head: "topic", Base: "main", HeadSHA: "h"})
		fake.Fail(fakegithub.SecondaryRateLimit("pull", status, 0))
		c := newClient(t, fake, 2*time.Second)
		if _, err := c.PullRequest(context.Background(), 12); err != nil {
			t.Errorf("secondary %d with Retry-After 0 not waited out: %v", status, err)
		}
		if _, total := fake.Requests(); total != 2 {
			t.Errorf("secondary %d: %d requests", status, total)
		}
		fake.Close()

		for _, after := range []int{60, -1} { // beyond the budget; no Retry-After (GitHub: wait a minute)
			e, _ = errorOf(t, 300*time.Millisecond, secret, fakegithub.SecondaryRateLimit("", status, after))
			if e.Kind != ghclient.KindRateLimited || !strings.Contains(e.Msg, "secondary rate limit") || !strings.Contains(e.Msg, "retry after") {
				t.Errorf("secondary %d, Retry-After %d: %+v", status, after, e)
			}
		}
	}
}

// TestMarkReady: a draft is made ready through GraphQL beside the REST API (github.com's /graphql,
// an Enterprise server's /api/graphql beside /api/v3); GitHub's GraphQL errors come in a 200 and are
// an error naming the fix; the token never shows.
func TestMarkReady(t *testing.T) {
	for _, api := range []string{"", "/api/v3"} {
		fake := fakegithub.New("github.com", "acme", "app", secret)
		c, err := ghclient.New(ghclient.Options{Repo: repo, RetryBudget: time.Second,
			Env: env(map[string]string{"GH_TOKEN": secret, "GITHUB_API_URL": fake.URL + api})})
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		pr, err := c.CreatePR(ctx, ghclient.NewPullRequest{Head: "topic", Base: "main", Title: "t", Draft: true})
		if err != nil || !pr.Draft {
			t.Fatalf("%s: created %+v %v", api, pr, err)
		}
		if err := c.MarkReady(ctx, pr.Number, pr.NodeID); err != nil {
			t.Fatalf("%s: %v", api, err)
		}
		if got, _ := fake.PR(pr.Number); got.Draft {
			t.Fatalf("%s: still a draft", api)
		}
		log := fake.Log()
		if last := log[len(log)-1]; last.Route != "graphql" || last.Path != strings.TrimSuffix(api, "/v3")+"/graphql" {
			t.Fatalf("%s: asked %s %s", api, last.Route, last.Path)
		}
		err = c.MarkReady(ctx, 99, "PR_nope")
		var e *ghclient.Error
		if !errors.As(err, &e) || !strings.Contains(e.Msg, "gh pr ready 99") || strings.Contains(e.Msg, secret) {
			t.Fatalf("%s: a GraphQL error: %v", api, err)
		}
		fake.Close()
	}
}
