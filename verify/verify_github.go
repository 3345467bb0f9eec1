package verify

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/exarchos/git-exarchos/ghclient"
	"github.com/exarchos/git-exarchos/ghevidence"
	"github.com/exarchos/git-exarchos/project"
	"github.com/exarchos/git-exarchos/workflow"
)

// What verify says about a recorded pull request (VerifiedWorkflow.GitHub).
const (
	GitHubAgrees       = "checked: agrees"
	GitHubDisagrees    = "checked: disagrees"
	GitHubNoToken      = "not checked: no token"
	githubCouldNot     = "could not check: "
	githubNotCheckedAs = "not checked"
)

// githubUnchecked reports whether a GitHub verdict is one where GitHub was not (fully) asked.
func githubUnchecked(v string) bool {
	return strings.HasPrefix(v, githubNotCheckedAs) || strings.HasPrefix(v, githubCouldNot)
}

// verifyGitHub asks GitHub about the pull request the workflow records, and adds a "github"
// violation for each way GitHub disagrees with the log: no such pull request, another branch or
// base, merged according to the log but not on GitHub (or by another merge commit), checks
// recorded passed that fail at the recorded head. passedHeads are the heads a pr.observed recorded
// checks passing on; givenBase is the --base ref (the pull request must be into it), empty when
// verify chose the base itself (then the base the log recorded counts). A GitHub that cannot be
// asked is reported, never taken as agreeing.
func (r *Repo) verifyGitHub(s workflow.State, givenBase string, passedHeads []string, add func(workflow.Event, string, string, ...any)) string {
	pr := s.PR
	if pr == nil || (pr.URL == "" && pr.Number == 0) {
		return "" // no pull request recorded: nothing to ask
	}
	at := workflow.Event{Seq: s.LastSeq, Type: workflow.EventPRObserved}
	repo, n, ok := ghclient.RepoOfPR(pr.URL)
	origin, originErr := r.gitHub().OriginRepo()
	switch {
	case !ok && originErr != nil:
		return githubCouldNot + fmt.Sprintf("the recorded pull request %q is not a GitHub pull request URL and origin is not a GitHub remote", pr.URL)
	case !ok:
		repo, n = origin, pr.Number
	case originErr == nil && !origin.Same(repo):
		add(at, "github", "the recorded pull request %s is in %s, not in this repository's origin %s", pr.URL, repo, origin)
		return GitHubDisagrees
	}
	gh, err := r.gitHub().Client(repo)
	if err != nil {
		var ge *ghclient.Error
		if errors.As(err, &ge) && ge.Kind == ghclient.KindNoToken {
			return GitHubNoToken
		}
		return githubCouldNot + err.Error()
	}
	ctx := context.Background()
	got, err := gh.PullRequest(ctx, n)
	if err != nil {
		var ge *ghclient.Error
		if errors.As(err, &ge) && ge.Status == http.StatusNotFound {
			add(at, "github", "the recorded pull request #%d does not exist on GitHub (%s answers 404)", n, repo)
			return GitHubDisagrees
		}
		return githubCouldNot + err.Error()
	}
	disagree := func(format string, args ...any) {
		add(at, "github", "pull request #%d: "+format, append([]any{n}, args...)...)
	}
	problems := 0
	if s.Branch != "" && got.Head != s.Branch {
		disagree("GitHub says its head is %s, not the workflow's branch %s", got.Head, s.Branch)
		problems++
	}
	if base := ghevidence.BaseBranchName(givenBase); base != "" && got.Base != base {
		disagree("GitHub says it is into %s, not into the base %s", got.Base, base)
		problems++
	} else if pr.Base != "" && got.Base != pr.Base {
		disagree("GitHub says it is into %s, the log recorded %s", got.Base, pr.Base)
		problems++
	}
	recordedMerge, mergedHead := "", ""
	switch {
	case pr.MergeVerified && pr.VerifiedBy == "github" && pr.Verification != nil:
		recordedMerge, mergedHead = pr.Verification.Commit, pr.Verification.HeadSHA
	case pr.Merged:
		recordedMerge, mergedHead = pr.MergeCommitSHA, pr.HeadSHA
	}
	if pr.Merged || (pr.MergeVerified && pr.VerifiedBy == "github") {
		switch {
		case !got.Merged:
			disagree("the log records it merged, but GitHub says it is %s and not merged", got.State)
			problems++
		case recordedMerge != "" && got.MergeCommitSHA != recordedMerge:
			disagree("the log records merge commit %s, GitHub says %s", project.Short(recordedMerge), project.Short(got.MergeCommitSHA))
			problems++
		case mergedHead != "" && got.HeadSHA != mergedHead:
			// A merged pull request's head no longer moves: another one is another branch content.
			disagree("the log records head %s merged, GitHub says it merged %s", project.Short(mergedHead), project.Short(got.HeadSHA))
			problems++
		}
	}
	for _, head := range passedHeads {
		state, failing, err := gh.Checks(ctx, head)
		if err != nil {
			return githubCouldNot + err.Error()
		}
		switch state {
		case ghclient.ChecksFailure:
			disagree("the log records its checks passed at %s, but GitHub says they fail there (%s)", project.Short(head), strings.Join(failing, ", "))
			problems++
		case ghclient.ChecksNone:
			disagree("the log records its checks passed at %s, but GitHub has no checks there", project.Short(head))
			problems++
		}
	}
	if problems > 0 {
		return GitHubDisagrees
	}
	return GitHubAgrees
}

func prName(pr *workflow.PR) string {
	if pr.URL != "" {
		return pr.URL
	}
	return fmt.Sprintf("#%d", pr.Number)
}
