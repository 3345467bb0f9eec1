package guards

import (
	"fmt"
	"strings"

	"github.com/exarchos/git-exarchos/workflow"
)

// synthesisRequested: a pull request was asked for (git exarchos request-synthesis), the fact the
// peer's hotfix-validate → synthesize reads. Without it a hotfix ends at completed.
func synthesisRequested(in Input) *workflow.GuardFailure {
	s := in.State
	if s.SynthesisRequested || s.Synthesis == "always" {
		return nil
	}
	return fail(workflow.GuardSynthesisRequested, "no pull request was asked for", "a synthesis request (git exarchos request-synthesis)",
		fmt.Sprintf("git exarchos request-synthesis %s --reason \"the fix ships through a pull request\" && git exarchos transition %s %s", s.Feature, s.Feature, in.Target))
}

// synthesisFailed: a synthesis is retried only on a failure recorded from GitHub — the pull
// request's checks failing, a review asking for changes, or the pull request closed unmerged, as
// the last pr refresh observed it, on the branch's tip. Going back to implementation without one
// would spend a retry on nothing (and is how an agent leaves a pull request it does not like).
func synthesisFailed(in Input) *workflow.GuardFailure {
	const id = "synthesis-failed"
	s := in.State
	pr := s.PR
	if pr == nil || pr.URL == "" {
		// Without a GitHub origin there is no pull request to fail: the way on is the offline road.
		return fail(id, "no pull request is linked, so no synthesis failure is recorded", "a pull request whose checks failed, that was closed unmerged, or whose review asked for changes",
			findPR(in))
	}
	sha, f := tip(id, in)
	if f != nil {
		return f
	}
	// A blocking finding open on the pull request (imported from its review threads) is a
	// failure of the synthesis whatever GitHub's review decision says: the fix cycle fixes it.
	if blocking, _ := s.OpenFindings(in.Def); len(blocking) > 0 {
		return nil
	}
	if failure := prFailure(pr); failure != "" && sameCommit(pr.HeadSHA, sha) {
		return nil
	} else if failure != "" {
		// A failure of an earlier head says nothing of the commit being synthesized now.
		return fail(id, fmt.Sprintf("pull request #%d was last observed %s at %s, not at the branch tip %s", pr.Number, failure, short(orNone(pr.HeadSHA)), short(sha)),
			"a failure observed on the branch tip", fmt.Sprintf("git push && git exarchos pr refresh %s", s.Feature))
	}
	seen := "not observed yet"
	if pr.ObservedAt != "" {
		seen = fmt.Sprintf("%s, checks %s, observed %s", orState(pr), orNone(pr.Checks), pr.ObservedAt)
	}
	return fail(id, fmt.Sprintf("pull request #%d has no recorded failure (%s)", pr.Number, seen),
		"failing checks, a review asking for changes, or the pull request closed unmerged, observed by pr refresh; or a blocking finding imported from its review threads (git exarchos review import)",
		fmt.Sprintf("git exarchos pr refresh %s", s.Feature))
}

// prFailure names what failed in the observed pull request, or "".
func prFailure(pr *workflow.PR) string {
	switch {
	case pr.Checks == "failure":
		return "checks failing: " + strings.Join(pr.Failing, ", ")
	case pr.State == "closed" && !pr.Merged:
		return "closed without being merged"
	case pr.ReviewDecision == "CHANGES_REQUESTED":
		return "a review asked for changes"
	}
	return ""
}

func orState(pr *workflow.PR) string {
	if pr.Merged {
		return "merged"
	}
	if pr.State == "" {
		return "state unknown"
	}
	return pr.State
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}
