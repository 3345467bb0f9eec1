package verify

import (
	"fmt"
	"slices"

	"github.com/exarchos/git-exarchos/project"
	"github.com/exarchos/git-exarchos/workflow"
)

// mergeAudit derives the merge evidence a transition rests on again, never reading it as
// recorded: a merge-verified the log records as passed counts only when the branch's tip as the
// log recorded it at each transition (and the head the evidence names) is a commit of the
// branch, contained in the recorded merge commit, which is contained in the base verify was
// given. Evidence from GitHub (method github, or a pr.observed that saw the merge) must name the
// pull request, which verify asks GitHub about (verify_github.go); where the merge commit does
// not contain the heads by ancestry (a squash or rebase merge) only GitHub's word makes it count.
type mergeAudit struct {
	r     *Repo
	facts gitFacts
	base  string // the base's tip
	heads []recordedHead
	own   map[string]bool // commit → on the branch's own history (memo)
	// claims are merges that need GitHub's word; judged once GitHub was asked (end).
	claims []githubClaim
	// merged is the last evidence a transition rested on: the branch's tip must still be in it
	// (tipCheck).
	merged *mergedAt
}

// mergedAt is the evidence a transition rested on.
type mergedAt struct {
	e                    workflow.Event
	method, commit, head string
}

type recordedHead struct {
	seq      int64
	from, to string
	head     string
}

type githubClaim struct {
	e       workflow.Event
	pr      string // the pull request the evidence named
	commit  string
	missing string // a recorded head the merge commit does not contain
}

// after notes the head each transition that took effect recorded.
func (m *mergeAudit) after(s *workflow.State, e workflow.Event) {
	if e.Type != workflow.EventTransitioned {
		return
	}
	var d workflow.TransitionedData
	if e.DecodeData(&d) == nil && d.Head != "" && s.Phase == d.To {
		m.heads = append(m.heads, recordedHead{seq: e.Seq, from: d.From, to: d.To, head: d.Head})
	}
}

// transition judges the merge evidence of a transition that records merge-verified as passed
// (an override in effect is a human's decision, checked as such).
func (m *mergeAudit) transition(s *workflow.State, e workflow.Event, d workflow.TransitionedData, add func(workflow.Event, string, string, ...any)) {
	if !slices.Contains(d.Guards, "merge-verified") || slices.Contains(d.Overridden, "merge-verified") || s.PR == nil {
		return // without evidence the guard itself fails (rule guard)
	}
	pr := s.PR
	method, commit, head := "", "", ""
	switch {
	case pr.Verification != nil:
		method, commit, head = pr.Verification.Method, pr.Verification.Commit, pr.Verification.HeadSHA
	case pr.Merged:
		method, commit, head = "github", pr.MergeCommitSHA, pr.HeadSHA // a pr.observed saw the merge
	default:
		return
	}
	fail := func(format string, args ...any) { add(e, "merge", format, args...) }
	if method != "github" && method != "ancestry" {
		fail("the merge evidence's method %q is neither github nor ancestry: verify cannot derive it (git exarchos cleanup %s)", method, s.Feature)
		return
	}
	if method == "github" && pr.URL == "" && pr.Number == 0 {
		fail("the merge was verified by github but names no pull request, so GitHub cannot confirm it: link the pull request that merged the branch (git exarchos pr link %s <url>), then git exarchos cleanup %s", s.Feature, s.Feature)
	}
	if commit == "" {
		fail("the merge evidence names no merge commit (git exarchos cleanup %s once the pull request is merged)", s.Feature)
		return
	}
	if m.base == "" {
		fail("there is no base to find the merge commit %s on (pass --base origin/<branch>)", project.Short(commit))
	} else if ok, err := m.facts.IsAncestor(commit, m.base); err != nil || !ok {
		fail("the recorded merge %s is not on the base %s (%s): the branch was never merged there; merge the pull request, then git exarchos cleanup %s", project.Short(commit), m.r.Base().Ref, project.Short(m.base), s.Feature)
	}
	m.merged = &mergedAt{e: e, method: method, commit: commit, head: head}
	heads := append(slices.Clone(m.heads), recordedHead{seq: e.Seq, from: d.From, to: d.To, head: d.Head})
	if head != "" {
		heads = append(heads, recordedHead{seq: e.Seq, head: head})
	}
	for _, h := range heads {
		if h.head == "" {
			continue
		}
		what := fmt.Sprintf("the branch's tip recorded at seq %d (%s → %s)", h.seq, h.from, h.to)
		if h.to == "" {
			what = "the head the merge evidence names"
		}
		if !m.onBranch(s.Branch, h.head) {
			fail("%s, %s, is not a commit of branch %s: evidence about another branch's commits (a base commit, say) says nothing of this one's work", what, project.Short(h.head), s.Branch)
			continue
		}
		if ok, err := m.facts.IsAncestor(h.head, commit); err == nil && ok {
			continue
		}
		if method == "github" && (pr.URL != "" || pr.Number != 0) {
			// A squash or rebase merge contains the work but not the commits: only GitHub can say
			// the pull request with this head was merged as this commit.
			if ok, err := m.facts.IsAncestor(h.head, head); err == nil && ok {
				if !slices.ContainsFunc(m.claims, func(c githubClaim) bool { return c.e.Seq == e.Seq }) {
					m.claims = append(m.claims, githubClaim{e: e, pr: prName(pr), commit: commit, missing: h.head})
				}
				continue
			}
		}
		fail("%s, %s, is not contained in the merge commit %s: the branch's work was not merged there; merge it into the base, then git exarchos cleanup %s", what, project.Short(h.head), project.Short(commit), s.Feature)
	}
}

// end settles the merges that need GitHub's word with what GitHub said of the pull request the
// log ends on (github, VerifiedWorkflow.GitHub).
func (m *mergeAudit) end(final workflow.State, github string, add func(workflow.Event, string, string, ...any)) {
	for _, c := range m.claims {
		switch {
		case final.PR == nil || prName(final.PR) != c.pr:
			add(c.e, "merge", "the merge was verified by pull request %s, which the log no longer records, so GitHub was not asked about it: link it again (git exarchos pr link %s %s)", c.pr, final.Feature, c.pr)
		case github != GitHubAgrees:
			add(c.e, "merge", "the merge commit %s does not contain %s (a squash or rebase merge), so only GitHub's word makes the merge of pull request %s count, and GitHub's is %q (set GITHUB_TOKEN or GH_TOKEN)", project.Short(c.commit), project.Short(c.missing), c.pr, github)
		}
	}
}

// tipCheck is, for a workflow that ended on merge evidence, a violation when the branch's tip
// (its own refs: in CI, the pull request's head) is not in the merge: commits made after it went
// through no workflow. nil when the tip is merged, or the workflow did not end on a merge. Verify
// counts it only when no other workflow on the branch is active (verify_branch.go): commits after
// a merge may be the next workflow's.
func (m *mergeAudit) tipCheck(final workflow.State, def *workflow.Definition) *Violation {
	if m.merged == nil || !def.IsFinal(final.Phase) || final.Phase == def.CancelTarget() {
		return nil
	}
	c := m.merged
	for _, tip := range m.r.branchRefTips(final.Branch) {
		if ok, err := m.facts.IsAncestor(tip, c.commit); err == nil && ok {
			continue
		}
		if c.method == "github" && c.head != "" {
			if ok, err := m.facts.IsAncestor(tip, c.head); err == nil && ok {
				continue // the head GitHub confirms merged (verify_github.go)
			}
		}
		return &Violation{Seq: c.e.Seq, Event: c.e.Type, Rule: "merge", Message: fmt.Sprintf("branch %s's tip %s is not in the merge %s the workflow %s completed with: its commits after the merge went through no workflow; start one for them (git exarchos init <feature> --type <type> --branch %s), or take them off the branch",
			final.Branch, project.Short(tip), project.Short(c.commit), final.Feature, final.Branch)}
	}
	return nil
}

// onBranch reports whether commit is in the history of the branch as verify sees it: its local
// or remote-tracking ref; only when neither exists (a merged branch, deleted) HEAD and the base.
func (m *mergeAudit) onBranch(branch, commit string) bool {
	if v, ok := m.own[commit]; ok {
		return v
	}
	tips := m.r.branchRefTips(branch)
	if len(tips) == 0 {
		tips = m.r.branchTips(branch)
	}
	ok := false
	for _, tip := range tips {
		if a, err := m.facts.IsAncestor(commit, tip); err == nil && a {
			ok = true
			break
		}
	}
	if m.own == nil {
		m.own = map[string]bool{}
	}
	m.own[commit] = ok
	return ok
}

// branchRefTips are the tips of the branch's own refs: local and remote-tracking.
func (r *Repo) branchRefTips(branch string) []string {
	if branch == "" {
		return nil
	}
	facts := r.Facts()
	refs := []string{"refs/heads/" + branch}
	if rs, err := r.Store.Remotes(); err == nil {
		for _, rm := range rs {
			refs = append(refs, "refs/remotes/"+rm+"/"+branch)
		}
	}
	var out []string
	for _, ref := range refs {
		if sha, ok, err := facts.ResolveRef(ref); err == nil && ok && !slices.Contains(out, sha) {
			out = append(out, sha)
		}
	}
	return out
}
