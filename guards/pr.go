package guards

import (
	"fmt"
	"strings"

	"github.com/exarchos/git-exarchos/workflow"
)

// The PR guards read facts recorded by pr.linked, pr.observed and merge.verified events (which only
// ghclient-backed commands and the offline ancestry check write) and fail closed until they exist.

// FixRefreshPR is the command that records GitHub's view of the pull request.
const FixRefreshPR = "git exarchos pr refresh %s"

// prURLExists: a pull request is linked and GitHub confirmed it exists (pr link / pr find read it;
// an observation also confirms it). A URL written with `set pr.url=` is only a claim.
func prURLExists(in Input) *workflow.GuardFailure {
	s := in.State
	link := fmt.Sprintf("git exarchos pr link %s <url|number>", s.Feature)
	if s.PR == nil || s.PR.URL == "" {
		return fail("pr-url-exists", "no pull request linked yet", "a pull request GitHub confirmed", findPR(in))
	}
	if _, ok := workflow.ParsePRURL(s.PR.URL); !ok {
		return fail("pr-url-exists", fmt.Sprintf("%q is not a pull request URL", s.PR.URL), "https://<host>/<owner>/<repo>/pull/<n>", link)
	}
	if !s.PR.Confirmed && !s.PR.Observed {
		return fail("pr-url-exists", fmt.Sprintf("%s was recorded but GitHub has not confirmed it", s.PR.URL), "a pull request GitHub confirmed",
			fmt.Sprintf("git exarchos pr link %s %s", s.Feature, s.PR.URL))
	}
	return nil
}

// findPR is the way to a merge GitHub can confirm (pr find), or, where origin is no GitHub
// repository, the offline road: the branch merged into the base, then cleanup --offline (which
// records the ancestry as the verification and completes the workflow). A remote's branch is
// merged there (cleanup reads it as fetched); a local base is one the agent could move itself, so
// for an agent the whole road is the user's step (ghevidence refuses it otherwise).
func findPR(in Input) string {
	s := in.State
	switch {
	case in.OfflineBase == "":
		return fmt.Sprintf("git exarchos pr find %s", s.Feature)
	case strings.Contains(in.OfflineBase, "/"): // a remote's branch: the merge lands there, then fetch
		return workflow.OfflineRemoteFix(in.OfflineBase, s.Branch, s.Feature)
	}
	line := workflow.OfflineLocalLine(in.OfflineBase, s.Branch, s.Feature)
	if in.Agent {
		return workflow.AskUser(line)
	}
	return line
}

// checksPassed: the last observation saw every check run and commit status succeed, on the commit
// that is still the branch tip.
func checksPassed(in Input) *workflow.GuardFailure {
	s := in.State
	fix := fmt.Sprintf(FixRefreshPR, s.Feature)
	if s.PR == nil || !s.PR.Observed {
		return fail("checks-passed", "the pull request's checks have not been observed yet", "checks observed as success", fix)
	}
	if s.PR.Checks != "success" {
		reason := fmt.Sprintf("checks are %q (observed %s)", s.PR.Checks, s.PR.ObservedAt)
		if len(s.PR.Failing) > 0 {
			reason += fmt.Sprintf("; failing: %v", s.PR.Failing)
		}
		return fail("checks-passed", reason, "checks success", fix)
	}
	if s.PR.HeadSHA != "" && in.Facts != nil && s.Branch != "" {
		if sha, err := in.Facts.BranchTip(s.Branch); err == nil && !sameCommit(sha, s.PR.HeadSHA) {
			return fail("checks-passed", moved(in.Facts, s.Branch, "checks were observed", s.PR.HeadSHA, sha),
				"checks success on the branch tip", fix)
		}
	}
	return nil
}

// mergeVerified: GitHub reported the pull request merged (an observation, or the merge.verified
// evidence of cleanup), or cleanup --offline found the branch tip in <remote>/<base>; and the local
// branch has not changed since: its tip is the verified head or an ancestor of it. A deleted
// branch has no local change left to lose.
func mergeVerified(in Input) *workflow.GuardFailure {
	s := in.State
	fix := fmt.Sprintf("git exarchos cleanup %s", s.Feature)
	var head, what string
	switch {
	case s.PR != nil && s.PR.Verification != nil:
		head, what = s.PR.Verification.HeadSHA, "the merge was verified ("+s.PR.Verification.Method+")"
	case s.PR != nil && s.PR.Observed && s.PR.Merged:
		head, what = s.PR.HeadSHA, "GitHub reported the merge"
	case s.PR == nil:
		return fail("merge-verified", "no merge verification recorded yet (no pull request known)", "a verified merge", findPR(in))
	case s.PR.Observed:
		return fail("merge-verified", fmt.Sprintf("pull request #%d was observed %s, not merged (%s)", s.PR.Number, orStr(s.PR.State, "open"), s.PR.ObservedAt),
			"a verified merge", fix)
	default:
		return fail("merge-verified", "no merge verification recorded yet", "a verified merge", fix)
	}
	if head == "" {
		return fail("merge-verified", what+" but the evidence names no head commit", "evidence naming the merged head", fix)
	}
	if in.Facts == nil || s.Branch == "" {
		return fail("merge-verified", "no git facts to compare the branch with the evidence", "access to the repository", fix)
	}
	// A merge is of the branch's own work: a head at (or before) the point the branch left the
	// base carries nothing, and is trivially "contained" in the base.
	if fp := s.ForkPoint; fp != "" {
		if none, err := in.Facts.IsAncestor(head, fp); err != nil || none {
			return fail("merge-verified", fmt.Sprintf("%s: the merged head %s carries no commit of %s beyond its merge-base %s", what, short(head), s.Branch, short(fp)),
				"a merged head with at least one commit of the branch's own", fmt.Sprintf("git exarchos cleanup %s", s.Feature))
		}
	}
	tip, err := in.Facts.BranchTip(s.Branch)
	if err != nil || tip == "" || sameCommit(tip, head) {
		return nil
	}
	if ok, err := in.Facts.IsAncestor(tip, head); err == nil && ok {
		return nil
	}
	return fail("merge-verified", moved(in.Facts, s.Branch, what, head, tip), "no local change after the evidence", fix)
}

// moved explains a branch tip that is not the observed commit: new commits on top, or a rewrite.
func moved(facts GitFacts, branch, what, observed, tip string) string {
	if ok, err := facts.IsAncestor(observed, tip); err == nil && ok {
		return fmt.Sprintf("%s on %s, but branch %s has new commits since (tip %s)", what, short(observed), branch, short(tip))
	}
	return fmt.Sprintf("%s on %s, but branch %s was force-pushed or rewritten since (tip %s)", what, short(observed), branch, short(tip))
}

func orStr(v, alt string) string {
	if v == "" {
		return alt
	}
	return v
}
