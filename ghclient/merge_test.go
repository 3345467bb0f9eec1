package ghclient_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/exarchos/git-exarchos/ghclient"
	"github.com/exarchos/git-exarchos/ghclient/fakegithub"
)

// TestMergePR: the merge goes through GitHub's merge API with the decided head pinned (a push
// after the decision is refused, 409, and nothing is merged) and the method; every way it can
// fail is its own error naming its fix, and a write is sent once, never repeated.
func TestMergePR(t *testing.T) {
	head := strings.Repeat("a", 40)
	ctx := context.Background()
	wantKind := func(t *testing.T, err error, kind ghclient.Kind, text string) *ghclient.Error {
		t.Helper()
		var ge *ghclient.Error
		if !errors.As(err, &ge) || ge.Kind != kind || !strings.Contains(ge.Msg, text) || strings.Contains(ge.Msg, secret) {
			t.Fatalf("want %s saying %q, got %v", kind, text, err)
		}
		return ge
	}
	setup := func(t *testing.T) (*fakegithub.Server, *ghclient.Client) {
		fake := fakegithub.New("github.com", "acme", "app", secret)
		t.Cleanup(fake.Close)
		fake.SetPR(fakegithub.PR{Number: 12, Head: "login", Base: "main", HeadSHA: head})
		return fake, newClient(t, fake, time.Second)
	}
	notMerged := func(t *testing.T, fake *fakegithub.Server, puts int) {
		t.Helper()
		if p, _ := fake.PR(12); p.Merged || p.State != "open" {
			t.Fatalf("merged: %+v", p)
		}
		if by, _ := fake.Requests(); by["merge-pull"] != puts {
			t.Fatalf("merge requests %v, want %d: a write is never repeated", by, puts)
		}
	}

	t.Run("a push after the decision", func(t *testing.T) {
		fake, c := setup(t)
		fake.UpdatePR(12, func(p *fakegithub.PR) { p.HeadSHA = strings.Repeat("b", 40) })
		_, err := c.MergePR(ctx, 12, head, "squash")
		wantKind(t, err, ghclient.KindHeadMoved, "its head is no longer "+head)
		notMerged(t, fake, 1)
	})
	t.Run("not mergeable", func(t *testing.T) {
		fake, c := setup(t)
		fake.UpdatePR(12, func(p *fakegithub.PR) { p.Unmergeable = "Required status check \"ci\" is failing." })
		_, err := c.MergePR(ctx, 12, head, "merge")
		ge := wantKind(t, err, ghclient.KindNotMergeable, `405 Required status check "ci" is failing.`)
		if ge.IsAccess() {
			t.Fatal("a pull request GitHub cannot merge is not an access failure")
		}
		notMerged(t, fake, 1)
	})
	t.Run("rate limited", func(t *testing.T) {
		// Each in a new client, as each is a new process (go-github refuses locally until a
		// primary limit it saw resets).
		for _, f := range []fakegithub.Fault{fakegithub.PrimaryRateLimit("merge-pull", 403, time.Now().Add(time.Hour)), fakegithub.PrimaryRateLimit("merge-pull", 429, time.Now().Add(time.Hour))} {
			fake, c := setup(t)
			fake.Fail(f)
			wantKind(t, errOf(c.MergePR(ctx, 12, head, "merge")), ghclient.KindRateLimited, "rate limit exhausted")
			notMerged(t, fake, 1)
		}
		fake, c := setup(t)
		fake.Fail(fakegithub.SecondaryRateLimit("merge-pull", 429, 30))
		ge := wantKind(t, errOf(c.MergePR(ctx, 12, head, "merge")), ghclient.KindRateLimited, `secondary rate limit stopped merging pull request acme/app#12`)
		if !ge.IsAccess() || ge.Reset.Before(time.Now().Add(20*time.Second)) {
			t.Fatalf("reset %s: Retry-After 30 not kept", ge.Reset)
		}
		notMerged(t, fake, 1)
	})
	t.Run("the token lacks the scope", func(t *testing.T) {
		fake, c := setup(t)
		fake.Fail(fakegithub.Fault{Route: "merge-pull", Status: 403, Body: `{"message":"Resource not accessible by personal access token"}`})
		wantKind(t, errOf(c.MergePR(ctx, 12, head, "merge")), ghclient.KindNoScope, `"Contents: read and write"`)
		fake.Fail(fakegithub.Fault{Route: "merge-pull", Status: 403, Body: `{"message":"Must have push access"}`,
			Header: map[string]string{"X-OAuth-Scopes": "read:user", "X-Accepted-OAuth-Scopes": "repo, public_repo"}})
		wantKind(t, errOf(c.MergePR(ctx, 12, head, "merge")), ghclient.KindNoScope, "--scopes repo")
		notMerged(t, fake, 2)
	})
	t.Run("the network", func(t *testing.T) {
		fake, c := setup(t)
		fake.Close()
		wantKind(t, errOf(c.MergePR(ctx, 12, head, "merge")), ghclient.KindUnreachable, "cannot reach the GitHub API")
	})
	t.Run("merged", func(t *testing.T) {
		fake, c := setup(t)
		res, err := c.MergePR(ctx, 12, head, "rebase")
		if err != nil {
			t.Fatal(err)
		}
		p, _ := fake.PR(12)
		if !p.Merged || res.SHA == "" || res.SHA != p.MergeCommitSHA {
			t.Fatalf("%+v %+v", res, p)
		}
		log := fake.Log()
		var sent struct{ SHA, MergeMethod string }
		body := log[len(log)-1].Body
		if err := json.Unmarshal(body, &struct {
			SHA    *string `json:"sha"`
			Method *string `json:"merge_method"`
		}{&sent.SHA, &sent.MergeMethod}); err != nil || sent.SHA != head || sent.MergeMethod != "rebase" {
			t.Fatalf("sent %s", body)
		}
	})
}

func errOf[T any](_ T, err error) error { return err }

// TestWriteFailuresOfPRCreate: the writes pr create makes fail the same ways, each its own kind:
// a secondary rate limit on the POST is reported at once (a POST is never repeated: a retry after
// a lost answer could open two pull requests), a token without the scope or the permission is
// GITHUB_TOKEN_SCOPE, the network GITHUB_UNREACHABLE.
func TestWriteFailuresOfPRCreate(t *testing.T) {
	ctx := context.Background()
	pr := ghclient.NewPullRequest{Head: "login", Base: "main", Title: "Login"}
	for _, c := range []struct {
		fault fakegithub.Fault
		kind  ghclient.Kind
		text  string
	}{
		{fakegithub.SecondaryRateLimit("create-pull", 403, 10), ghclient.KindRateLimited, "secondary rate limit stopped opening or editing"},
		{fakegithub.PrimaryRateLimit("create-pull", 429, time.Now().Add(time.Hour)), ghclient.KindRateLimited, "rate limit exhausted"},
		{fakegithub.Fault{Route: "create-pull", Status: 403, Body: `{"message":"Resource not accessible by integration"}`}, ghclient.KindNoScope, `"Pull requests: read and write"`},
		{fakegithub.Fault{Route: "create-pull", Status: 403, Body: `{"message":"Forbidden"}`, Header: map[string]string{"X-OAuth-Scopes": "gist", "X-Accepted-OAuth-Scopes": "repo, public_repo"}}, ghclient.KindNoScope, "--scopes repo"},
	} {
		fake := fakegithub.New("github.com", "acme", "app", secret)
		fake.Fail(c.fault)
		_, err := newClient(t, fake, time.Second).CreatePR(ctx, pr)
		var ge *ghclient.Error
		if !errors.As(err, &ge) || ge.Kind != c.kind || !strings.Contains(ge.Msg, c.text) {
			t.Errorf("%d %s: want %s saying %q, got %v", c.fault.Status, c.fault.Body, c.kind, c.text, err)
		}
		if by, _ := fake.Requests(); by["create-pull"] != 1 {
			t.Errorf("%d: %d POSTs, want 1", c.fault.Status, by["create-pull"])
		}
		fake.Close()
	}
	fake := fakegithub.New("github.com", "acme", "app", secret)
	c := newClient(t, fake, time.Second)
	fake.Close()
	_, err := c.CreatePR(ctx, pr)
	var ge *ghclient.Error
	if !errors.As(err, &ge) || ge.Kind != ghclient.KindUnreachable {
		t.Errorf("network down: %v", err)
	}
}
