package ghclient

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/google/go-github/v62/github"
)

var opCreate = operation{"opening or editing", "write access to pull requests (\"Pull requests: read and write\")"}

// NewPullRequest is what `pr create` asks GitHub to open.
type NewPullRequest struct {
	Head, Base, Title, Body string
	Draft                   bool
}

// CreatePR opens a pull request: one POST, never retried (a retry after a lost answer could open
// two). The caller looks for an open one first (FindPullRequests).
func (c *Client) CreatePR(ctx context.Context, in NewPullRequest) (PullRequest, error) {
	p, resp, err := c.gh.PullRequests.Create(ctx, c.repo.Owner, c.repo.Name, &github.NewPullRequest{
		Title: github.String(in.Title), Head: github.String(in.Head), Base: github.String(in.Base),
		Body: github.String(in.Body), Draft: github.Bool(in.Draft),
	})
	if err != nil {
		return PullRequest{}, c.wrapOp(opCreate, fmt.Sprintf("a pull request of %s from %s into %s", c.repo.FullName(), in.Head, in.Base), resp, err)
	}
	return fromGitHub(p), nil
}

// EditPR sets pull request n's title and body: a PATCH to values, retried like a read.
func (c *Client) EditPR(ctx context.Context, n int, title, body string) (PullRequest, error) {
	p, resp, err := c.gh.PullRequests.Edit(ctx, c.repo.Owner, c.repo.Name, n, &github.PullRequest{Title: github.String(title), Body: github.String(body)})
	if err != nil {
		return PullRequest{}, c.wrapOp(opCreate, c.what(n), resp, err)
	}
	return fromGitHub(p), nil
}

// MarkReady turns draft pull request n ready for review. GitHub's REST API cannot (a pull
// request's draft flag is set only when it is opened), so this is a GraphQL mutation,
// markPullRequestReadyForReview, on the pull request's node id.
func (c *Client) MarkReady(ctx context.Context, n int, nodeID string) error {
	const q = "mutation($id: ID!) { markPullRequestReadyForReview(input: {pullRequestId: $id}) { pullRequest { isDraft } } }"
	if err := c.graphql(ctx, opCreate, n, q, map[string]any{"id": nodeID}, nil); err != nil {
		var e *Error
		if errors.As(err, &e) && e.Kind == KindError {
			e.Msg += fmt.Sprintf("; mark it ready on GitHub (gh pr ready %d)", n)
		}
		return err
	}
	return nil
}

// graphql runs one GraphQL query against the endpoint beside the REST API (on GitHub Enterprise
// Server /api/graphql beside /api/v3) and decodes its data into out. GitHub answers a query it
// cannot run with 200 and errors in the body: those are an *Error too.
func (c *Client) graphql(ctx context.Context, op operation, n int, query string, vars map[string]any, out any) error {
	b, _ := json.Marshal(map[string]any{"query": query, "variables": vars})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.graphqlURL(), bytes.NewReader(b))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	var answer struct {
		Data   json.RawMessage `json:"data"`
		Errors []struct {
			Message string `json:"message"`
		} `json:"errors"`
	}
	resp, err := c.gh.Do(ctx, req, &answer)
	if err != nil {
		return c.wrapOp(op, c.what(n), resp, err)
	}
	if len(answer.Errors) > 0 {
		return &Error{Kind: KindError, Host: c.repo.Host, TokenSource: c.token.Source, Status: resp.StatusCode,
			Msg: c.token.redact(fmt.Sprintf("GitHub's GraphQL API refused %s %s: %s", op.gerund, c.what(n), answer.Errors[0].Message))}
	}
	if out != nil {
		if err := json.Unmarshal(answer.Data, out); err != nil {
			return fmt.Errorf("read GitHub's GraphQL answer about %s: %w", c.what(n), err)
		}
	}
	return nil
}

// graphqlURL is the GraphQL endpoint beside the REST API the client uses.
func (c *Client) graphqlURL() string {
	base := c.gh.BaseURL.String()
	if rest, ok := strings.CutSuffix(base, "/api/v3/"); ok {
		return rest + "/api/graphql"
	}
	return strings.TrimSuffix(base, "/") + "/graphql"
}
