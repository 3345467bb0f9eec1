package ghclient

import (
	"context"

	"github.com/google/go-github/v62/github"
)

// ClosePR comments on pull request n, then closes it (two requests; the comment first, so that
// whoever is notified of the close can read why). Callers read the pull request first (PullRequest)
// to leave a closed or merged one alone. The comment is a POST and is never retried; closing is a
// PATCH to a state and is retried like a read.
func (c *Client) ClosePR(ctx context.Context, n int, comment string) (PullRequest, error) {
	posted, err := c.commented(ctx, n, comment)
	if err != nil {
		return PullRequest{}, err
	}
	if comment != "" && !posted {
		_, resp, err := c.gh.Issues.CreateComment(ctx, c.repo.Owner, c.repo.Name, n, &github.IssueComment{Body: github.String(comment)})
		if err != nil {
			return PullRequest{}, c.wrapOp(opClose, c.what(n), resp, err)
		}
	}
	p, resp, err := c.gh.PullRequests.Edit(ctx, c.repo.Owner, c.repo.Name, n, &github.PullRequest{State: github.String("closed")})
	if err != nil {
		return PullRequest{}, c.wrapOp(opClose, c.what(n), resp, err)
	}
	return fromGitHub(p), nil
}

// commented reports whether pull request n already carries comment: a close that was killed
// between its comment and its close (cancel resumes it) must not post the comment twice.
func (c *Client) commented(ctx context.Context, n int, comment string) (bool, error) {
	if comment == "" {
		return false, nil
	}
	found := false
	opt := &github.IssueListCommentsOptions{ListOptions: github.ListOptions{PerPage: 100}}
	err := allPages(&opt.ListOptions, func() (*github.Response, bool, error) {
		list, resp, err := c.gh.Issues.ListComments(ctx, c.repo.Owner, c.repo.Name, n, opt)
		if err != nil {
			return resp, false, c.wrapOp(opClose, c.what(n), resp, err)
		}
		for _, cm := range list {
			found = found || cm.GetBody() == comment
		}
		return resp, !found, nil
	})
	return found, err
}
