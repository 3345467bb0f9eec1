// Package ghevidence is GitHub evidence: a workflow's pull request linked, found and refreshed
// (pr.go: each look at GitHub recorded as a pr.observed event, the evidence guards read), and
// cleanup, which verifies the merge (GitHub, or ancestry offline), records it and completes the
// workflow in one commit (cleanup.go). GitHub is reached through ghclient, only on hosts the
// repository trusts. Every observation is recorded through the engine the caller passes in
// (Engine: app's Execute and Preview).
//
// It may import trust, project, ghclient, gitstore, workflow and the internal helpers;
// never the hook runtime, app or cmd. internal/archtest holds the rule.
package ghevidence

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"

	"github.com/exarchos/git-exarchos/ghclient"
	"github.com/exarchos/git-exarchos/project"
	"github.com/exarchos/git-exarchos/trust"
	"github.com/exarchos/git-exarchos/workflow"
)

// Errors of the PR commands that are not GitHub's (those are *ghclient.Error).
var (
	ErrOtherRepository = errors.New("pull request in another repository")
	ErrNotLinked       = errors.New("no pull request linked")
	ErrNoPullRequest   = errors.New("no pull request found")
	ErrNoRemote        = errors.New("no GitHub remote")
)

// Engine decides and records workflow commands (app's Repo: Execute appends in one commit,
// Preview only decides, for a dry run).
type Engine interface {
	Execute(feature string, cmds ...workflow.Command) (*project.Result, error)
	Preview(feature string, cmds ...workflow.Command) (*project.Result, error)
}

// Repo is what GitHub evidence works on: an opened repository with trust, and the engine.
type Repo struct {
	*trust.Repo
	Engine
}

// PRResult is what pr link, pr find and pr refresh print.
type PRResult struct {
	Feature     string                  `json:"feature"`
	Head        string                  `json:"head"`
	PullRequest ghclient.PullRequest    `json:"pullRequest"`
	Observation *workflow.PRObservation `json:"observation,omitempty"`
	Changed     bool                    `json:"changed"`
	Warnings    []string                `json:"warnings"`
	Requests    int                     `json:"requests"` // GitHub API requests made, retries included
	TokenSource string                  `json:"tokenSource"`
	APIHost     string                  `json:"apiHost,omitempty"`
	Appended    []workflow.Event        `json:"appended"`
}

// PRLinkOptions links a pull request given by URL or number (`git exarchos pr link`).
type PRLinkOptions struct {
	Feature string
	Target  string // https://host/owner/repo/pull/N, N or #N
}

// PRFindOptions finds the pull request whose head is the workflow's branch (`git exarchos pr find`).
type PRFindOptions struct{ Feature string }

// PRRefreshOptions records GitHub's view of the linked pull request (`git exarchos pr refresh`).
type PRRefreshOptions struct{ Feature string }

// OriginRepo is the GitHub repository of the origin remote.
func (r *Repo) OriginRepo() (ghclient.Repo, error) {
	out, err := r.Store.Loc.Git(nil, "remote", "get-url", "origin")
	if err != nil {
		return ghclient.Repo{}, fmt.Errorf("%w: this repository has no origin remote; add it (`git remote add origin https://github.com/<owner>/<repo>.git`), link the pull request by its URL (`git exarchos pr link <feature> <url>`), or, with no GitHub at all, merge the branch and verify offline (`git exarchos cleanup <feature> --offline`)", ErrNoRemote)
	}
	repo, err := ghclient.ParseRemoteURL(strings.TrimSpace(out))
	if err != nil {
		return ghclient.Repo{}, fmt.Errorf("%w: %v", ErrNoRemote, err)
	}
	return repo, nil
}

// prRepo decides which repository a pull request URL is in, refusing one that is not origin's.
func (r *Repo) prRepo(feature, url string) (ghclient.Repo, int, error) {
	repo, n, ok := ghclient.RepoOfPR(url)
	if !ok {
		return ghclient.Repo{}, 0, project.Usagef("%q is not a pull request URL or number (https://<host>/<owner>/<repo>/pull/<n>, or <n>)", url)
	}
	if origin, err := r.OriginRepo(); err == nil && !origin.Same(repo) {
		return ghclient.Repo{}, 0, fmt.Errorf("%w: %s is a pull request of %s, but this repository's origin is %s; link a pull request of %s (git exarchos pr find %s)",
			ErrOtherRepository, url, repo, origin, origin, feature)
	}
	return repo, n, nil
}

func (r *Repo) Client(repo ghclient.Repo) (*ghclient.Client, error) {
	gh, err := ghclient.New(ghclient.Options{Repo: repo})
	if err != nil {
		return nil, err
	}
	if err := r.trustedAPIHost(repo, gh.APIHost()); err != nil {
		return nil, err
	}
	return gh, nil
}

// APIHostsFile names, one a line, API hosts other than GitHub's own that the repository trusts,
// read from the base branch like every rule.
const APIHostsFile = ".exarchos/github-api-hosts"

// trustedAPIHost refuses an API that is neither github.com's, the Enterprise host of the
// repository's remote, nor named by a committed (APIHostsFile at the base) or global
// (git config --global exarchos.githubApiHost) setting: GITHUB_API_URL is just an environment
// variable, and a server of the agent's own would report any merge it likes.
func (r *Repo) trustedAPIHost(repo ghclient.Repo, host string) error {
	name := strings.ToLower(host)
	if h, _, err := net.SplitHostPort(name); err == nil {
		name = h
	}
	if name == "api.github.com" || (repo.Host != "" && !strings.EqualFold(repo.Host, "github.com") && strings.EqualFold(name, repo.Host)) {
		return nil
	}
	var named []string
	if b, ok, err := r.BaseFile(APIHostsFile); err == nil && ok {
		named = append(named, strings.Fields(string(b))...)
	}
	if out, err := r.Store.Loc.Git(nil, "config", "--global", "--get-all", "exarchos.githubApiHost"); err == nil {
		named = append(named, strings.Fields(out)...)
	}
	for _, n := range named {
		if strings.EqualFold(n, host) || strings.EqualFold(n, name) {
			return nil
		}
	}
	return &ghclient.Error{Kind: ghclient.KindNoAccess, Msg: fmt.Sprintf("the GitHub API host %s (GITHUB_API_URL) is neither api.github.com nor the repository's Enterprise host %s: ask the user to name it with `git config --global exarchos.githubApiHost %s` or in %s on the base branch", host, repo.Host, name, APIHostsFile)}
}

// LinkPR checks on GitHub that the pull request exists and records pr.linked with its head, base
// and head commit. A head branch other than the workflow's is linked with a warning.
func LinkPR(r *Repo, o PRLinkOptions) (*PRResult, error) {
	feature, st, _, err := r.ResolveState(o.Feature)
	if err != nil {
		return nil, err
	}
	var repo ghclient.Repo
	var n int
	if num, err := strconv.Atoi(strings.TrimPrefix(strings.TrimSpace(o.Target), "#")); err == nil {
		if num <= 0 {
			return nil, project.Usagef("pull request number must be positive, not %d", num)
		}
		if repo, err = r.OriginRepo(); err != nil {
			return nil, err
		}
		n = num
	} else if repo, n, err = r.prRepo(feature, o.Target); err != nil {
		return nil, err
	}
	gh, err := r.Client(repo)
	if err != nil {
		return nil, err
	}
	pr, err := gh.PullRequest(context.Background(), n)
	if err != nil {
		return nil, err
	}
	return r.link(feature, st, gh, pr)
}

// FindPR finds the pull request whose head is the workflow's branch (open first, then merged, then
// closed) and links it.
func FindPR(r *Repo, o PRFindOptions) (*PRResult, error) {
	feature, st, _, err := r.ResolveState(o.Feature)
	if err != nil {
		return nil, err
	}
	repo, err := r.OriginRepo()
	if err != nil {
		return nil, err
	}
	gh, err := r.Client(repo)
	if err != nil {
		return nil, err
	}
	prs, err := gh.FindPullRequests(context.Background(), st.Branch)
	if err != nil {
		return nil, err
	}
	if len(prs) == 0 {
		return nil, fmt.Errorf("%w: no pull request of %s has head branch %s; push it and open one (gh pr create --head %s), then run `git exarchos pr find %s`",
			ErrNoPullRequest, repo, st.Branch, st.Branch, feature)
	}
	res, err := r.link(feature, st, gh, prs[0])
	if err == nil && len(prs) > 1 {
		res.Warnings = append(res.Warnings, fmt.Sprintf("%d pull requests have head %s; linked #%d (%s)", len(prs), st.Branch, prs[0].Number, describePR(prs[0])))
	}
	return res, err
}

func describePR(p ghclient.PullRequest) string {
	switch {
	case p.Merged:
		return "merged"
	case p.State == "closed":
		return "closed without merge"
	}
	return p.State
}

func (r *Repo) link(feature string, st workflow.State, gh *ghclient.Client, pr ghclient.PullRequest) (*PRResult, error) {
	res := &PRResult{Feature: feature, PullRequest: pr, Warnings: []string{}, TokenSource: gh.TokenSource(), Appended: []workflow.Event{}}
	if pr.Head != st.Branch {
		res.Warnings = append(res.Warnings, fmt.Sprintf("pull request #%d's head is branch %s, but workflow %s is bound to %s: the checks guard will compare the wrong branch", pr.Number, pr.Head, feature, st.Branch))
	}
	if pr.HeadRepo != "" && pr.BaseRepo != "" && !strings.EqualFold(pr.HeadRepo, pr.BaseRepo) {
		res.Warnings = append(res.Warnings, fmt.Sprintf("pull request #%d comes from the fork %s", pr.Number, pr.HeadRepo))
	}
	if pr.State == "closed" && !pr.Merged {
		res.Warnings = append(res.Warnings, fmt.Sprintf("pull request #%d was closed without being merged: cleanup will refuse it until it is reopened and merged", pr.Number))
	}
	link := workflow.LinkPR{URL: pr.URL, Number: pr.Number, Head: pr.Head, Base: pr.Base, HeadSHA: pr.HeadSHA, Confirmed: true}
	if p := st.PR; p != nil && p.Confirmed && p.URL == link.URL && p.Head == link.Head && p.Base == link.Base && p.HeadSHA == link.HeadSHA {
		_, snap, err := r.State(feature)
		if err != nil {
			return nil, err
		}
		res.Head, res.Requests = snap.Commit.String(), gh.Requests()
		return res, nil // already linked as GitHub says: nothing new to record
	}
	out, err := r.Execute(feature, link)
	if err != nil {
		return nil, err
	}
	res.Head, res.Appended, res.Changed, res.Requests = out.Head, out.Appended, true, gh.Requests()
	return res, nil
}

// observe reads the linked pull request from GitHub, with warnings about a head that moved.
func (r *Repo) observe(feature string, st workflow.State) (*PRResult, workflow.PRObservation, error) {
	if st.PR == nil || st.PR.URL == "" {
		return nil, workflow.PRObservation{}, fmt.Errorf("%w to %s: run `git exarchos pr find %s` or `git exarchos pr link %s <url|number>`", ErrNotLinked, feature, feature, feature)
	}
	repo, n, err := r.prRepo(feature, st.PR.URL)
	if err != nil {
		return nil, workflow.PRObservation{}, err
	}
	gh, err := r.Client(repo)
	if err != nil {
		return nil, workflow.PRObservation{}, err
	}
	var prev *workflow.PRObservation
	if st.PR.Observed && st.PR.Number == n {
		prev = &st.PR.PRObservation
	}
	o, pr, err := gh.Observe(context.Background(), n, prev, r.Store.Now())
	if err != nil {
		return nil, workflow.PRObservation{}, err
	}
	res := &PRResult{Feature: feature, PullRequest: pr, Observation: &o, Warnings: []string{}, Requests: gh.Requests(), TokenSource: gh.TokenSource(), APIHost: gh.APIHost(), Appended: []workflow.Event{}}
	res.Changed = prev == nil || !prev.SameAs(o)
	facts := r.Store.Facts()
	if known := st.PR.HeadSHA; known != "" && known != o.HeadSHA {
		if ok, err := facts.IsAncestor(known, o.HeadSHA); err != nil || !ok {
			res.Warnings = append(res.Warnings, fmt.Sprintf("pull request #%d was force-pushed since it was last seen: head %s, before %s", n, shortSHA(o.HeadSHA), shortSHA(known)))
		}
	}
	if tip, err := facts.BranchTip(st.Branch); err == nil && tip != o.HeadSHA && o.State == "open" {
		res.Warnings = append(res.Warnings, fmt.Sprintf("the local branch %s (%s) is not the pull request's head %s: push or pull before relying on its checks", st.Branch, shortSHA(tip), shortSHA(o.HeadSHA)))
	}
	return res, o, nil
}

// RefreshPR records what GitHub says about the linked pull request now: state, merge, head, the
// combined checks and the review decision. Nothing is recorded when nothing changed.
func RefreshPR(r *Repo, o PRRefreshOptions) (*PRResult, error) {
	feature, st, snap, err := r.ResolveState(o.Feature)
	if err != nil {
		return nil, err
	}
	res, obs, err := r.observe(feature, st)
	if err != nil {
		return nil, err
	}
	res.Head = snap.Commit.String()
	if !res.Changed {
		return res, nil
	}
	out, err := r.Execute(feature, workflow.ObservePR{PRObservation: obs})
	if err != nil {
		return nil, err
	}
	res.Head, res.Appended = out.Head, out.Appended
	return res, nil
}

func shortSHA(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}
