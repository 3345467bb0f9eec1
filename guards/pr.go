package guards

import (
	"fmt"

	"github.com/exarchos/git-exarchos/workflow"
)

// The PR guards read facts recorded by pr.linked, pr.observed and merge.verified events and fail
// closed until those facts exist.

// FixSyncPR is the command that records GitHub's view of the pull request (issue 4).
const FixSyncPR = "git exarchos pr sync %s"

func prURLExists(in Input) *workflow.GuardFailure {
	s := in.State
	fix := fmt.Sprintf("git exarchos set %s pr.url=https://github.com/<owner>/<repo>/pull/<n>", s.Feature)
	if s.PR == nil || s.PR.URL == "" {
		return fail("pr-url-exists", "no pull request linked yet", "a pull request URL", fix)
	}
	if _, ok := workflow.ParsePRURL(s.PR.URL); !ok {
		return fail("pr-url-exists", fmt.Sprintf("%q is not a pull request URL", s.PR.URL), "https://<host>/<owner>/<repo>/pull/<n>", fix)
	}
	return nil
}

func checksPassed(in Input) *workflow.GuardFailure {
	s := in.State
	fix := fmt.Sprintf(FixSyncPR, s.Feature)
	if s.PR == nil || !s.PR.Observed {
		return fail("checks-passed", "the pull request's checks have not been observed yet", "checks observed as success", fix)
	}
	if s.PR.Checks != "success" {
		return fail("checks-passed", fmt.Sprintf("checks are %q (observed %s)", s.PR.Checks, s.PR.ObservedAt), "checks success", fix)
	}
	if s.PR.HeadSHA != "" && in.Facts != nil && s.Branch != "" {
		if sha, err := in.Facts.BranchTip(s.Branch); err == nil && !sameCommit(sha, s.PR.HeadSHA) {
			return fail("checks-passed", fmt.Sprintf("checks were observed on %s but the branch tip is %s", short(s.PR.HeadSHA), short(sha)),
				"checks success on the branch tip", fix)
		}
	}
	return nil
}

func mergeVerified(in Input) *workflow.GuardFailure {
	s := in.State
	fix := fmt.Sprintf(FixSyncPR, s.Feature)
	switch {
	case s.PR != nil && (s.PR.MergeVerified || s.PR.Merged):
		return nil
	case s.PR == nil:
		return fail("merge-verified", "no merge verification recorded yet (no pull request known)", "a verified merge", fix)
	case s.PR.Observed:
		return fail("merge-verified", fmt.Sprintf("pull request #%d was observed %s, not merged", s.PR.Number, orStr(s.PR.State, "open")), "a verified merge", fix)
	}
	return fail("merge-verified", "no merge verification recorded yet", "a verified merge", fix)
}

func orStr(v, alt string) string {
	if v == "" {
		return alt
	}
	return v
}
