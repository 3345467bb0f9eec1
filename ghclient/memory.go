package ghclient

import (
	"context"
	"fmt"
	"time"

	"github.com/google/go-github/v62/github"
)

// CheckRunNote is one check run GitHub holds on a commit: which GitHub App made it (a user's
// token cannot make one; Actions' token makes them as the app "github-actions") and its output.
type CheckRunNote struct {
	ID      int64     `json:"id"`
	Name    string    `json:"name"`
	App     string    `json:"app"` // the app's slug
	Title   string    `json:"title,omitempty"`
	Text    string    `json:"text,omitempty"`
	Started time.Time `json:"started,omitempty"`
}

var opCheckRun = operation{"creating", "checks: write (only Actions' token or a GitHub App's can create check runs; a user's token cannot)"}

// CheckRunsNamed lists every check run named name on sha (filter=all: not only the latest).
func (c *Client) CheckRunsNamed(ctx context.Context, sha, name string) ([]CheckRunNote, error) {
	var out []CheckRunNote
	opts := &github.ListCheckRunsOptions{CheckName: github.String(name), Filter: github.String("all"), ListOptions: github.ListOptions{PerPage: 100}}
	err := allPages(&opts.ListOptions, func() (*github.Response, bool, error) {
		res, resp, err := c.gh.Checks.ListCheckRunsForRef(ctx, c.repo.Owner, c.repo.Name, sha, opts)
		if err != nil {
			return resp, false, c.wrap(fmt.Sprintf("check runs %q of %s@%s", name, c.repo.FullName(), short(sha)), resp, err)
		}
		for _, r := range res.CheckRuns {
			n := CheckRunNote{ID: r.GetID(), Name: r.GetName(), App: r.GetApp().GetSlug(), Title: r.GetOutput().GetTitle(), Text: r.GetOutput().GetText()}
			if r.StartedAt != nil {
				n.Started = r.StartedAt.Time
			}
			out = append(out, n)
		}
		return resp, len(out) < res.GetTotal(), nil
	})
	return out, err
}

// CreateCheckRun records a completed, successful check run named name on sha with the output
// title, summary and text. A POST: never retried.
func (c *Client) CreateCheckRun(ctx context.Context, sha, name, title, summary, text string) (int64, error) {
	r, resp, err := c.gh.Checks.CreateCheckRun(ctx, c.repo.Owner, c.repo.Name, github.CreateCheckRunOptions{
		Name: name, HeadSHA: sha, Status: github.String("completed"), Conclusion: github.String("success"),
		Output: &github.CheckRunOutput{Title: github.String(title), Summary: github.String(summary), Text: github.String(text)},
	})
	if err != nil {
		return 0, c.wrapOp(opCheckRun, fmt.Sprintf("check run %q on %s@%s", name, c.repo.FullName(), short(sha)), resp, err)
	}
	return r.GetID(), nil
}
