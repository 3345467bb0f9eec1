package ghclient

import (
	"context"
	"fmt"

	"github.com/google/go-github/v62/github"
)

// ReviewComment is one comment on a pull request's diff.
type ReviewComment struct {
	ID       int64  `json:"id"`
	ReplyTo  int64  `json:"replyTo,omitempty"` // the thread's first comment, for a reply
	Author   string `json:"author"`
	Path     string `json:"path"`
	Line     int    `json:"line,omitempty"` // the line in the file as the comment's commit has it; 0: the file
	Body     string `json:"body"`
	CommitID string `json:"commitId"`
	URL      string `json:"url"`
}

// ReviewThread is what GitHub says of a thread, by the id of its first comment.
type ReviewThread struct {
	RootID   int64
	Resolved bool
	Outdated bool
}

// ReviewComments lists every comment on pull request n's diff, oldest first (one request per 100).
func (c *Client) ReviewComments(ctx context.Context, n int) ([]ReviewComment, error) {
	var out []ReviewComment
	opts := &github.PullRequestListCommentsOptions{Sort: "created", Direction: "asc", ListOptions: github.ListOptions{PerPage: 100}}
	err := allPages(&opts.ListOptions, func() (*github.Response, bool, error) {
		list, resp, err := c.gh.PullRequests.ListComments(ctx, c.repo.Owner, c.repo.Name, n, opts)
		if err != nil {
			return resp, false, c.wrap(fmt.Sprintf("the review comments of %s", c.what(n)), resp, err)
		}
		for _, cm := range list {
			line := cm.GetLine()
			if line == 0 {
				line = cm.GetOriginalLine()
			}
			out = append(out, ReviewComment{ID: cm.GetID(), ReplyTo: cm.GetInReplyTo(), Author: cm.GetUser().GetLogin(), Path: cm.GetPath(),
				Line: line, Body: cm.GetBody(), CommitID: cm.GetCommitID(), URL: cm.GetHTMLURL()})
		}
		return resp, true, nil
	})
	return out, err
}

// ReviewThreads says which of pull request n's threads are resolved or outdated, by the database
// id of each thread's first comment: the REST API does not say, so this is GraphQL
// (reviewThreads, 100 a page).
func (c *Client) ReviewThreads(ctx context.Context, n int) (map[int64]ReviewThread, error) {
	const q = `query($owner: String!, $name: String!, $number: Int!, $after: String) {
  repository(owner: $owner, name: $name) { pullRequest(number: $number) {
    reviewThreads(first: 100, after: $after) {
      nodes { isResolved isOutdated comments(first: 1) { nodes { databaseId } } }
      pageInfo { hasNextPage endCursor } } } } }`
	out := map[int64]ReviewThread{}
	vars := map[string]any{"owner": c.repo.Owner, "name": c.repo.Name, "number": n, "after": nil}
	for range 1000 { // 100,000 threads: more than any pull request holds
		var page struct {
			Repository struct {
				PullRequest *struct {
					ReviewThreads struct {
						Nodes []struct {
							IsResolved, IsOutdated bool
							Comments               struct {
								Nodes []struct {
									DatabaseID int64 `json:"databaseId"`
								} `json:"nodes"`
							} `json:"comments"`
						} `json:"nodes"`
						PageInfo struct {
							HasNextPage bool   `json:"hasNextPage"`
							EndCursor   string `json:"endCursor"`
						} `json:"pageInfo"`
					} `json:"reviewThreads"`
				} `json:"pullRequest"`
			} `json:"repository"`
		}
		if err := c.graphql(ctx, opRead, n, q, vars, &page); err != nil {
			return nil, err
		}
		pr := page.Repository.PullRequest
		if pr == nil {
			return nil, &Error{Kind: KindNoAccess, Host: c.repo.Host, TokenSource: c.token.Source,
				Msg: fmt.Sprintf("GitHub's GraphQL API has no %s visible to the %s", c.what(n), c.token)}
		}
		for _, t := range pr.ReviewThreads.Nodes {
			if len(t.Comments.Nodes) > 0 {
				id := t.Comments.Nodes[0].DatabaseID
				out[id] = ReviewThread{RootID: id, Resolved: t.IsResolved, Outdated: t.IsOutdated}
			}
		}
		if !pr.ReviewThreads.PageInfo.HasNextPage {
			return out, nil
		}
		vars["after"] = pr.ReviewThreads.PageInfo.EndCursor
	}
	return out, nil
}
