package githubsync_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/exarchos/git-exarchos/githubsync"
	"github.com/exarchos/git-exarchos/githubsync/fakegithub"
)

// TestMergePR: the merge goes through GitHub's merge API with the decided head pinned (a push
// after the decision is refused, 409, and nothing is merged) and the method; every way it can
// fail is its own error naming its fix, and a write is sent once, never repeated.
func TestMergePR(t *testing.T) {
	head := strings.Repeat("a", 40)
	ctx := context.Background()
	wantKind := func(t *testing.T, err error, kind githubsync.Kind, text string) *githubsync.Error {
		t.Helper()
		var ge *githubsync.Error
		if !errors.As(err, &ge) || ge.Kind != kind || !strings.Contains(ge.Msg, text) || strings.Contains(ge.Msg, secret) {
			t.Fatalf("want %s saying %q, got %v", kind, text, err)
		}
		return ge
	}
	setup := func(t *testing.T) (*fakegithub.Server, *githubsync.Client) {
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
		wantKind(t, err, githubsync.KindHeadMoved, "its head is no longer "+head)
		notMerged(t, fake, 1)
	})
	t.Run("not mergeable", func(t *testing.T) {
		fake, c := setup(t)
		fake.UpdatePR(12, func(p *fakegithub.PR) { p.Unmergeable = "Required status check \"ci\" is failing." })
		_, err := c.MergePR(ctx, 12, head, "merge")
		ge := wantKind(t, err, githubsync.KindNotMergeable, `405 Required status check "ci" is failing.`)
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
			wantKind(t, errOf(c.MergePR(ctx, 12, head, "merge")), githubsync.KindRateLimited, "rate limit exhausted")
			notMerged(t, fake, 1)
		}
		fake, c := setup(t)
		fake.Fail(fakegithub.SecondaryRateLimit("merge-pull", 429, 30))
		ge := wantKind(t, errOf(c.MergePR(ctx, 12, head, "merge")), githubsync.KindRateLimited, `secondary rate limit stopped merging pull request acme/app#12`)
		if !ge.IsAccess() || ge.Reset.Before(time.Now().Add(20*time.Second)) {
			t.Fatalf("reset %s: Retry-After 30 not kept", ge.Reset)
		}
		notMerged(t, fake, 1)
	})
	t.Run("the token lacks the scope", func(t *testing.T) {
		fake, c := setup(t)
		fake.Fail(fakegithub.Fault{Route: "merge-pull", Status: 403, Body: `{"message":"Resource not accessible by personal access token"}`})
		wantKind(t, errOf(c.MergePR(ctx, 12, head, "merge")), githubsync.KindNoScope, `"Contents: read and write"`)
		fake.Fail(fakegithub.Fault{Route: "merge-pull", Status: 403, Body: `{"message":"Must have push access"}`,
			Header: map[string]string{"X-OAuth-Scopes": "read:user", "X-Accepted-OAuth-Scopes": "repo, public_repo"}})
		wantKind(t, errOf(c.MergePR(ctx, 12, head, "merge")), githubsync.KindNoScope, "--scopes repo")
		notMerged(t, fake, 2)
	})
	t.Run("the network", func(t *testing.T) {
		fake, c := setup(t)
		fake.Close()
		wantKind(t, errOf(c.MergePR(ctx, 12, head, "merge")), githubsync.KindUnreachable, "cannot reach the GitHub API")
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
