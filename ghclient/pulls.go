package ghclient

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/google/go-github/v62/github"

	"github.com/exarchos/git-exarchos/workflow"
)

// PullRequest is what GitHub says about a pull request.
type PullRequest struct {
	Number             int    `json:"number"`
	URL                string `json:"url"`
	State              string `json:"state"` // open | closed
	Draft              bool   `json:"draft,omitempty"`
	Merged             bool   `json:"merged"`
	MergedAt           string `json:"mergedAt,omitempty"`
	MergeCommitSHA     string `json:"mergeCommitSha,omitempty"`
	Head               string `json:"head"`
	HeadRepo           string `json:"headRepo,omitempty"` // owner/name; differs from BaseRepo for forks
	HeadSHA            string `json:"headSha"`
	Base               string `json:"base"`
	BaseRepo           string `json:"baseRepo,omitempty"`
	UpdatedAt          string `json:"updatedAt,omitempty"`
	RequestedReviewers int    `json:"requestedReviewers,omitempty"`
	Author             string `json:"author,omitempty"` // the login that opened it
	// NodeID is the pull request's GraphQL id (MarkReady); not part of the JSON contract.
	NodeID string `json:"-"`
}

func fromGitHub(p *github.PullRequest) PullRequest {
	out := PullRequest{
		Number: p.GetNumber(), URL: p.GetHTMLURL(), State: p.GetState(), Draft: p.GetDraft(),
		Merged: p.GetMerged() || p.MergedAt != nil, MergeCommitSHA: p.GetMergeCommitSHA(),
		Head: p.GetHead().GetRef(), HeadRepo: p.GetHead().GetRepo().GetFullName(), HeadSHA: p.GetHead().GetSHA(),
		Base: p.GetBase().GetRef(), BaseRepo: p.GetBase().GetRepo().GetFullName(),
		RequestedReviewers: len(p.RequestedReviewers) + len(p.RequestedTeams),
		Author:             p.GetUser().GetLogin(), NodeID: p.GetNodeID(),
	}
	if p.MergedAt != nil {
		out.MergedAt = p.MergedAt.UTC().Format(time.RFC3339)
	}
	if p.UpdatedAt != nil {
		out.UpdatedAt = p.UpdatedAt.UTC().Format(time.RFC3339)
	}
	if !out.Merged {
		out.MergeCommitSHA = "" // GitHub fills it with a test merge for open pull requests
	}
	return out
}

func (c *Client) what(n int) string { return fmt.Sprintf("pull request %s#%d", c.repo.FullName(), n) }

// PullRequest reads pull request n (one request).
func (c *Client) PullRequest(ctx context.Context, n int) (PullRequest, error) {
	p, resp, err := c.gh.PullRequests.Get(ctx, c.repo.Owner, c.repo.Name, n)
	if err != nil {
		return PullRequest{}, c.wrap(c.what(n), resp, err)
	}
	return fromGitHub(p), nil
}

// FindPullRequests lists the pull requests whose head is branch in this repository (one request
// per 100, all pages: GitHub lists the newest first, so an old open one can be on a later page):
// open ones first, then merged, then closed, most recently updated first within each. A listed
// pull request has no merged field; merged_at says it (fromGitHub).
func (c *Client) FindPullRequests(ctx context.Context, branch string) ([]PullRequest, error) {
	var out []PullRequest
	opts := &github.PullRequestListOptions{State: "all", Head: c.repo.Owner + ":" + branch, ListOptions: github.ListOptions{PerPage: 100}}
	err := allPages(&opts.ListOptions, func() (*github.Response, bool, error) {
		ps, resp, err := c.gh.PullRequests.List(ctx, c.repo.Owner, c.repo.Name, opts)
		if err != nil {
			return resp, false, c.wrap(fmt.Sprintf("pull requests of %s with head %s", c.repo.FullName(), branch), resp, err)
		}
		for _, p := range ps {
			if pr := fromGitHub(p); pr.Head == branch {
				out = append(out, pr)
			}
		}
		return resp, true, nil
	})
	if err != nil {
		return nil, err
	}
	rank := func(p PullRequest) int {
		switch {
		case p.State == "open":
			return 0
		case p.Merged:
			return 1
		}
		return 2
	}
	sort.SliceStable(out, func(i, j int) bool {
		if rank(out[i]) != rank(out[j]) {
			return rank(out[i]) < rank(out[j])
		}
		return out[i].UpdatedAt > out[j].UpdatedAt
	})
	return out, nil
}

// Observe reads pull request n, the checks of its head, its author, its reviews and their decision,
// and returns the observation stamped with now. The common path makes 3 requests: the pull request,
// its check runs and its commit statuses. Reviews are read only while the pull request is open and
// something may have changed them since prev (no previous observation, another head, or a newer
// updated_at, which every review bumps); otherwise prev's reviews and decision stand, as last read.
func (c *Client) Observe(ctx context.Context, n int, prev *workflow.PRObservation, now time.Time) (workflow.PRObservation, PullRequest, error) {
	pr, err := c.PullRequest(ctx, n)
	if err != nil {
		return workflow.PRObservation{}, pr, err
	}
	o := workflow.PRObservation{
		Number: pr.Number, URL: pr.URL, Head: pr.Head, Base: pr.Base, HeadSHA: pr.HeadSHA, State: pr.State,
		Merged: pr.Merged, MergedAt: pr.MergedAt, MergeCommitSHA: pr.MergeCommitSHA, UpdatedAt: pr.UpdatedAt,
		Author: pr.Author, ObservedAt: now.UTC().Format(time.RFC3339),
	}
	if o.Checks, o.Failing, err = c.Checks(ctx, pr.HeadSHA); err != nil {
		return workflow.PRObservation{}, pr, err
	}
	samePR := prev != nil && prev.Number == pr.Number && prev.HeadSHA == pr.HeadSHA
	// An observation without an author was made before reviews were recorded: read them again.
	unchanged := samePR && prev.UpdatedAt == pr.UpdatedAt && prev.Author != ""
	if pr.State == "open" && !unchanged {
		if o.Reviews, o.ReviewDecision, err = c.Reviews(ctx, pr); err != nil {
			return workflow.PRObservation{}, pr, err
		}
	} else if samePR {
		o.ReviewDecision, o.Reviews = prev.ReviewDecision, prev.Reviews
	}
	return o, pr, nil
}

// Check results.
const (
	ChecksSuccess = "success"
	ChecksFailure = "failure"
	ChecksPending = "pending"
	ChecksNone    = "none"
)

// Checks combines the check runs and the legacy commit statuses of sha (two requests, more only
// past 100 check runs or 100 statuses): failure if any failed, else pending if any is not
// finished, else success; none when there are neither (no statuses is not pending).
func (c *Client) Checks(ctx context.Context, sha string) (string, []string, error) {
	var runs []*github.CheckRun
	opts := &github.ListCheckRunsOptions{ListOptions: github.ListOptions{PerPage: 100}}
	err := allPages(&opts.ListOptions, func() (*github.Response, bool, error) {
		res, resp, err := c.gh.Checks.ListCheckRunsForRef(ctx, c.repo.Owner, c.repo.Name, sha, opts)
		if err != nil {
			return resp, false, c.wrap(fmt.Sprintf("check runs of %s@%s", c.repo.FullName(), short(sha)), resp, err)
		}
		runs = append(runs, res.CheckRuns...)
		return resp, len(runs) < res.GetTotal(), nil
	})
	if err != nil {
		return "", nil, err
	}
	// The combined status pages its statuses too (total_count, Link): a failure past the first
	// hundred counts as much as one before.
	var statuses []*github.RepoStatus
	list := &github.ListOptions{PerPage: 100}
	err = allPages(list, func() (*github.Response, bool, error) {
		st, resp, err := c.gh.Repositories.GetCombinedStatus(ctx, c.repo.Owner, c.repo.Name, sha, list)
		if err != nil {
			return resp, false, c.wrap(fmt.Sprintf("commit statuses of %s@%s", c.repo.FullName(), short(sha)), resp, err)
		}
		statuses = append(statuses, st.Statuses...)
		return resp, len(statuses) < st.GetTotalCount(), nil
	})
	if err != nil {
		return "", nil, err
	}
	state, failing := CombineChecks(runs, statuses)
	return state, failing, nil
}

// CombineChecks merges check runs and commit statuses into one result and the failing names.
func CombineChecks(runs []*github.CheckRun, statuses []*github.RepoStatus) (string, []string) {
	var failing []string
	total, pending := 0, 0
	for _, r := range runs {
		total++
		switch {
		case r.GetStatus() != "completed":
			pending++
		case r.GetConclusion() == "success", r.GetConclusion() == "neutral", r.GetConclusion() == "skipped":
		default:
			failing = append(failing, r.GetName())
		}
	}
	for _, s := range statuses {
		total++
		switch s.GetState() {
		case "success":
		case "pending":
			pending++
		default: // failure, error
			failing = append(failing, s.GetContext())
		}
	}
	sort.Strings(failing)
	switch {
	case len(failing) > 0:
		return ChecksFailure, failing
	case pending > 0:
		return ChecksPending, nil
	case total > 0:
		return ChecksSuccess, nil
	}
	return ChecksNone, nil
}

// Reviews reads the reviews of pr (one request per 100 reviews): the verdicts (APPROVED,
// CHANGES_REQUESTED, DISMISSED) with their reviewer and the commit they were submitted on, oldest
// first, and the review decision: CHANGES_REQUESTED if a reviewer's latest verdict asks for
// changes, else APPROVED if one approved, else REVIEW_REQUIRED while reviewers are requested,
// else "".
func (c *Client) Reviews(ctx context.Context, pr PullRequest) ([]workflow.PRReview, string, error) {
	var all []*github.PullRequestReview
	opts := &github.ListOptions{PerPage: 100}
	err := allPages(opts, func() (*github.Response, bool, error) {
		reviews, resp, err := c.gh.PullRequests.ListReviews(ctx, c.repo.Owner, c.repo.Name, pr.Number, opts)
		if err != nil {
			return resp, false, c.wrap("reviews of "+c.what(pr.Number), resp, err)
		}
		all = append(all, reviews...)
		return resp, true, nil
	})
	if err != nil {
		return nil, "", err
	}
	var out []workflow.PRReview
	for _, r := range all {
		switch st := r.GetState(); st {
		case "APPROVED", "CHANGES_REQUESTED", "DISMISSED":
			rv := workflow.PRReview{Reviewer: r.GetUser().GetLogin(), State: st, Commit: r.GetCommitID()}
			if r.SubmittedAt != nil {
				rv.SubmittedAt = r.SubmittedAt.UTC().Format(time.RFC3339)
			}
			out = append(out, rv)
		}
	}
	return out, DecideReviews(all, pr.RequestedReviewers > 0), nil
}

// DecideReviews is the review decision of reviews in chronological order.
func DecideReviews(reviews []*github.PullRequestReview, requested bool) string {
	latest := map[string]string{}
	for _, r := range reviews {
		switch st := r.GetState(); st {
		case "APPROVED", "CHANGES_REQUESTED":
			latest[r.GetUser().GetLogin()] = st
		case "DISMISSED":
			delete(latest, r.GetUser().GetLogin())
		}
	}
	approved := false
	for _, st := range latest {
		if st == "CHANGES_REQUESTED" {
			return "CHANGES_REQUESTED"
		}
		approved = true
	}
	switch {
	case approved:
		return "APPROVED"
	case requested:
		return "REVIEW_REQUIRED"
	}
	return ""
}

// allPages reads a list GitHub answers in pages: fetch reads the page list names and says whether
// more is wanted; the next page is the one the answer's Link header names, until there is none.
func allPages(list *github.ListOptions, fetch func() (*github.Response, bool, error)) error {
	for {
		resp, more, err := fetch()
		if err != nil {
			return err
		}
		if !more || resp.NextPage == 0 {
			return nil
		}
		list.Page = resp.NextPage
	}
}

func short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}
