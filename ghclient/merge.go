package ghclient

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/google/go-github/v62/github"
)

// Kinds of a refused merge: GitHub's, not the token's (exit 1).
const (
	// KindNotMergeable: GitHub cannot merge the pull request now (405: a draft, a conflict, a
	// required check or review missing, closed).
	KindNotMergeable Kind = "GITHUB_NOT_MERGEABLE"
	// KindHeadMoved: the pull request's head is no longer the commit the merge was decided on
	// (409): something was pushed after the decision, and it is not merged.
	KindHeadMoved Kind = "GITHUB_HEAD_MOVED"
)

var opMerge = operation{"merging", "write access to the repository's contents (a fine-grained token's \"Contents: read and write\", a classic token's repo scope)"}

// MergeResult is GitHub's answer to a merge: the commit the base branch now has.
type MergeResult struct {
	SHA     string `json:"sha"`
	Message string `json:"message,omitempty"`
}

// MergePR merges pull request n through GitHub's merge API, with method (merge, squash or
// rebase), only while its head is sha: GitHub refuses with 409 when the head moved, so a commit
// pushed after the decision is never merged with it. One PUT, never retried (the transport
// repeats no PUT): a lost answer is read back by looking at the pull request.
func (c *Client) MergePR(ctx context.Context, n int, sha, method string) (MergeResult, error) {
	res, resp, err := c.gh.PullRequests.Merge(ctx, c.repo.Owner, c.repo.Name, n, "", &github.PullRequestOptions{SHA: sha, MergeMethod: method})
	if err != nil {
		werr := c.wrapOp(opMerge, c.what(n), resp, err)
		var e *Error
		if errors.As(werr, &e) && resp != nil && resp.Response != nil {
			msg := http.StatusText(resp.StatusCode)
			var er *github.ErrorResponse
			if errors.As(err, &er) && er.Message != "" {
				msg = er.Message
			}
			switch resp.StatusCode {
			case http.StatusMethodNotAllowed:
				e.Kind = KindNotMergeable
				e.Msg = c.token.redact(fmt.Sprintf("GitHub cannot merge %s now (405 %s): make it mergeable on GitHub (ready for review, no conflict, the required checks and reviews passed: git exarchos pr refresh), then decide again",
					c.what(n), msg))
			case http.StatusConflict:
				e.Kind = KindHeadMoved
				e.Msg = c.token.redact(fmt.Sprintf("GitHub did not merge %s (409 %s): its head is no longer %s, the commit the merge was decided on; a push came after the decision: review the new head, then decide again",
					c.what(n), msg, sha))
			}
		}
		return MergeResult{}, werr
	}
	if !res.GetMerged() {
		return MergeResult{}, &Error{Kind: KindNotMergeable, Host: c.repo.Host, TokenSource: c.token.Source, Status: resp.StatusCode,
			Msg: c.token.redact(fmt.Sprintf("GitHub answered the merge of %s without merging it (%s): look at it on GitHub (git exarchos pr refresh)", c.what(n), res.GetMessage()))}
	}
	return MergeResult{SHA: res.GetSHA(), Message: res.GetMessage()}, nil
}
