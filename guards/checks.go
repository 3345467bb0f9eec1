package guards

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/exarchos/git-exarchos/workflow"
)

// artifactPresent: the artifact is recorded and is new work on the branch: a file under the
// definition's patterns for it (never a source file) that exists at the branch tip and was added
// or changed since the branch's merge-base with the base branch; inline text only where the
// definition allows it.
func artifactPresent(name string) Guard {
	id := artifactPrefix + name
	return func(in Input) *workflow.GuardFailure {
		s := in.State
		setFix := fmt.Sprintf("git exarchos set %s artifacts.%s=<path>", s.Feature, name)
		def := in.Def
		if def == nil {
			return fail(id, "unknown workflow type "+s.Type, "a known workflow type", "git exarchos describe "+s.Type)
		}
		pats := def.ArtifactPatterns(name)
		expected := fmt.Sprintf("a %s file under %s added or changed on branch %s", name, strings.Join(pats, " or "), s.Branch)
		a, ok := s.Artifacts[name]
		if !ok {
			if def.InlineAllowed(name) { // a few lines will do: the fix records them where they are
				setFix = fmt.Sprintf("git exarchos set %s --inline \"artifacts.%s=…\"", s.Feature, name)
			}
			return fail(id, "no "+name+" artifact recorded", expected, setFix)
		}
		if a.Inline {
			if !def.InlineAllowed(name) {
				return fail(id, "the "+s.Type+" definition does not accept an inline "+name, expected, setFix)
			}
			if strings.TrimSpace(a.Text) == "" {
				return fail(id, "the inline "+name+" artifact is empty", expected, fmt.Sprintf("git exarchos set %s --inline artifacts.%s=\"…\"", s.Feature, name))
			}
			return nil
		}
		if workflow.IsSourcePath(a.Path) || !workflow.MatchAny(pats, a.Path) {
			return fail(id, fmt.Sprintf("%s is not a document path for the %s (a source file, or outside %s)", a.Path, name, strings.Join(pats, ", ")), expected,
				fmt.Sprintf("git exarchos set %s artifacts.%s=docs/%s.md", s.Feature, name, name))
		}
		sha, f := tip(id, in)
		if f != nil {
			return f
		}
		exists, err := in.Facts.FileExists(sha, a.Path)
		if err != nil {
			return fail(id, fmt.Sprintf("cannot read %s at %s: %v", a.Path, short(sha), err), expected, setFix)
		}
		if !exists {
			// The artifact is recorded already: what is missing is the commit, not another set.
			return fail(id, fmt.Sprintf("%s is not a file in the tip of %s (%s): commit it first", a.Path, s.Branch, short(sha)), expected,
				fmt.Sprintf("git add %s && git commit -m \"%s: %s\"", a.Path, s.Feature, name))
		}
		from, sha, cf, f := since(id, in)
		if f != nil {
			return f
		}
		changed, err := cf.AddedOrModified(from, sha)
		if err != nil {
			return fail(id, err.Error(), expected, setFix)
		}
		for _, p := range changed {
			if p == a.Path {
				return nil
			}
		}
		return existingArtifact(id, s, name, a.Path, from, expected)
	}
}

// planApproved: a human approved the plan during the current visit of the review phase.
func planApproved(in Input) *workflow.GuardFailure {
	s := in.State
	if s.ApprovedHere() { // the latest decision in this visit: an approval then a rejection is not approved
		return nil
	}
	return fail("plan-approved", "the plan has not been approved in this review", "a human approval (git exarchos approve)",
		workflow.AskUser(fmt.Sprintf("git exarchos approve %s --note \"…\"", s.Feature)))
}

// tasksComplete: at least one task, and every task completed.
func tasksComplete(in Input) *workflow.GuardFailure {
	s := in.State
	if len(s.Tasks) == 0 {
		return fail("tasks-complete", "no tasks recorded", "at least one task, all completed",
			fmt.Sprintf("git exarchos task add %s <task-id> --title \"…\"", s.Feature))
	}
	var open []string
	for _, t := range s.Tasks {
		if t.Status != workflow.TaskCompleted {
			open = append(open, t.ID+" ("+t.Status+")")
		}
	}
	if len(open) > 0 {
		first, status, _ := strings.Cut(open[0], " ")
		fix := fmt.Sprintf("git exarchos task done %s %s", s.Feature, first)
		if status == "("+workflow.TaskFailed+")" {
			// A failed task is worked on again first: task done refuses a failed task.
			fix = fmt.Sprintf("git exarchos task start %s %s", s.Feature, first)
		}
		return fail("tasks-complete", fmt.Sprintf("%d of %d tasks not completed: %s", len(open), len(s.Tasks), strings.Join(open, ", ")),
			"every task completed", fix)
	}
	return nil
}

// reviewsPassed: every review dimension the definition requires has a pass verdict given in this
// visit of the phase, on the current branch tip, by whom the definition says (ReviewBy); never
// while the fix-cycle circuit is open (only a human unblock closes it).
func reviewsPassed(in Input) *workflow.GuardFailure {
	const id = "reviews-passed"
	s := in.State
	def := in.Def
	if def == nil || len(def.Reviews) == 0 {
		return fail(id, "no review dimensions defined for "+s.Type, "a known workflow type", "git exarchos describe "+s.Type)
	}
	if s.Circuit != nil && s.Circuit.Open {
		return fail(id, fmt.Sprintf("the fix-cycle circuit of %s is open (%d of %d cycles)", s.Circuit.Compound, s.Circuit.FixCycles, s.Circuit.Limit),
			"a human unblock", workflow.AskUser(fmt.Sprintf("git exarchos unblock %s --reason \"…\"", s.Feature)))
	}
	if f := openFindings(id, in); f != nil {
		return f
	}
	if def.ReviewBy == "github" {
		return githubReviewed(in)
	}
	sha, f := tip(id, in)
	if f != nil {
		return f
	}
	var missing []string
	for _, dim := range def.Reviews {
		r, ok := s.Reviews[dim]
		switch {
		case !ok || r.At < s.EnteredAt:
			missing = append(missing, dim+" (not reviewed in this visit)")
		case !sameCommit(r.Commit, sha):
			missing = append(missing, fmt.Sprintf("%s (judged %s, not the tip %s)", dim, orStr(short(r.Commit), "no commit"), short(sha)))
		case def.ReviewBy == "human" && !r.Human:
			missing = append(missing, dim+" (not a human decision)")
		case r.Verdict != workflow.VerdictPass:
			missing = append(missing, dim+" ("+r.Verdict+")")
		case def.ReviewBy == "" && !independent(s, r):
			missing = append(missing, dim+" (recorded by the agent that did the work: a verdict counts from a reviewer subagent, a human's review --human, or GitHub)")
		}
	}
	if len(missing) == 0 {
		return nil
	}
	first, _, _ := strings.Cut(missing[0], " ")
	fix := reviewFix(in, first)
	want := "a pass for " + strings.Join(def.Reviews, " and ") + " on " + short(sha)
	if def.ReviewBy == "" {
		want += " from someone other than the agent that did the work: a reviewer subagent running git exarchos review, the user's git exarchos review --human in their own terminal, or GitHub (reviewBy: github)"
	}
	return fail(id, "reviews not passed: "+strings.Join(missing, ", "), want, fix)
}

// reviewFix is the review that would count, for whoever asks: a reviewer subagent records its
// own pass; the user, in their terminal, records a human decision (--human); to any other agent
// (the one that did the work, or any agent where reviews come from a human) it is the user's step,
// as decider.uncountedPass refuses that agent's pass.
func reviewFix(in Input, dim string) string {
	s := in.State
	plain := fmt.Sprintf("git exarchos review %s %s pass --note \"…\"", s.Feature, dim)
	human := fmt.Sprintf("git exarchos review %s %s pass --human --note \"…\"", s.Feature, dim)
	agent := in.Agent || in.Caller.Session != ""
	switch {
	case in.Def.ReviewBy != "" && in.Def.ReviewBy != "human": // reviews from an agent: any pass counts
		return plain
	case !agent:
		return human
	case in.Def.ReviewBy == "" && s.Independent(in.Caller):
		return plain
	}
	return workflow.AskUser(human)
}

// independent reports whether a verdict came from someone other than the agent that recorded the
// work: a human's decision, or a subagent (as the client reports it) that completed none of the
// tasks (workflow.State.Independent).
func independent(s workflow.State, r workflow.Review) bool {
	return r.Human || s.Independent(workflow.Caller{Session: r.Session, Agent: r.Agent})
}

// githubReviewed: the pull request's reviews, as last observed (pr refresh), were read while its
// head was the current branch tip; at least one login other than the pull request's author has,
// as its latest verdict, an APPROVED review submitted on that tip; and no login other than the
// author has CHANGES_REQUESTED as its latest verdict (a DISMISSED review withdraws its verdict).
// One approval satisfies every dimension of the definition's reviews: GitHub reviews have none.
// The review decision GitHub's rules compute is not read: it counts approvals of older commits.
func githubReviewed(in Input) *workflow.GuardFailure {
	const id = "reviews-passed"
	s := in.State
	fix := fmt.Sprintf(FixRefreshPR, s.Feature)
	want := "an approving GitHub review of the branch tip by someone other than the pull request's author"
	if s.PR == nil || !s.PR.Observed {
		return fail(id, "the pull request's reviews have not been observed", want, fix)
	}
	sha, f := tip(id, in)
	if f != nil {
		return f
	}
	if !sameCommit(s.PR.HeadSHA, sha) {
		return fail(id, moved(in.Facts, s.Branch, "the reviews were observed", s.PR.HeadSHA, sha), want, fix)
	}
	if s.PR.Author == "" {
		return fail(id, fmt.Sprintf("pull request #%d's author was not observed", s.PR.Number), want, fix)
	}
	latest := map[string]workflow.PRReview{}
	var order []string
	for _, r := range s.PR.Reviews {
		if r.Reviewer == "" || strings.EqualFold(r.Reviewer, s.PR.Author) {
			continue
		}
		if _, ok := latest[r.Reviewer]; !ok {
			order = append(order, r.Reviewer)
		}
		latest[r.Reviewer] = r
	}
	var approved, changes, stale []string
	for _, who := range order {
		r := latest[who]
		switch {
		case r.State == "CHANGES_REQUESTED":
			changes = append(changes, who)
		case r.State == "APPROVED" && sameCommit(r.Commit, sha):
			approved = append(approved, who)
		case r.State == "APPROVED":
			stale = append(stale, fmt.Sprintf("%s approved %s", who, orStr(short(r.Commit), "no commit")))
		}
	}
	ask := fmt.Sprintf("an APPROVED GitHub review of pull request #%d at %s by someone other than its author %s (asked of a reviewer on GitHub, then observed by the fix)", s.PR.Number, short(sha), s.PR.Author)
	switch {
	case len(changes) > 0:
		return fail(id, fmt.Sprintf("pull request #%d: changes requested by %s", s.PR.Number, strings.Join(changes, ", ")), ask, fix)
	case len(approved) > 0:
		return nil
	case len(stale) > 0:
		return fail(id, fmt.Sprintf("pull request #%d has no approval of the tip %s (%s)", s.PR.Number, short(sha), strings.Join(stale, ", ")), ask, fix)
	}
	return fail(id, fmt.Sprintf("pull request #%d has no approving review by anyone other than its author %s", s.PR.Number, s.PR.Author), ask, fix)
}

// reviewFailed: a fix cycle (review → delegate) needs a failed verdict in this visit of review, or
// an open blocking finding (findings.go).
func reviewFailed(in Input) *workflow.GuardFailure {
	s := in.State
	if blocking, _ := s.OpenFindings(in.Def); len(blocking) > 0 {
		return nil // open blocking findings are what a fix cycle is for, whatever the verdicts say
	}
	for _, r := range s.Reviews {
		if r.At >= s.EnteredAt && r.Verdict == workflow.VerdictFail {
			return nil
		}
	}
	return fail("review-failed", "no review failed in this visit: a fix cycle answers a failed review", "a fail verdict recorded in this visit",
		fmt.Sprintf("git exarchos review %s <dimension> fail --note \"what to fix\"", s.Feature))
}

// validationPassed: the latest run of a declared validation command on the current branch tip
// exited 0. Ad-hoc runs (validate -- <cmd>) and runs on older commits do not count.
func validationPassed(in Input) *workflow.GuardFailure {
	const id = "validation-passed"
	s := in.State
	fix := fmt.Sprintf("git exarchos validate %s", s.Feature)
	declared := in.Validation
	if def := in.Def; def != nil {
		if p, ok := def.Phase(s.Phase); ok && len(p.Validation) > 0 {
			declared = p.Validation
		}
	}
	if len(declared) == 0 {
		return fail(id, "no validation command is declared for "+s.Type+" phase "+s.Phase, "a declared validation command (the definition's, or .exarchos/validate on the base branch)",
			fmt.Sprintf("ask the user to declare the validation (one command a line in .exarchos/validate on the base branch), then run git exarchos validate %s", s.Feature))
	}
	sha, f := tip(id, in)
	if f != nil {
		return f
	}
	for i := len(s.Validations) - 1; i >= 0; i-- {
		v := s.Validations[i]
		if v.AdHoc || !sameCommit(v.Commit, sha) || !slices.Contains(declared, v.Command) {
			continue
		}
		if v.ExitCode != 0 {
			return fail(id, fmt.Sprintf("`%s` exited %d on %s", v.Command, v.ExitCode, short(sha)), "the declared validation exiting 0 on the branch tip", fix)
		}
		return nil
	}
	reason := "no run of the declared validation recorded on " + short(sha)
	if n := len(s.Validations); n > 0 {
		last := s.Validations[n-1]
		switch {
		case last.AdHoc || !slices.Contains(declared, last.Command):
			reason = fmt.Sprintf("the last validation `%s` is ad hoc, not the declared `%s`", last.Command, strings.Join(declared, "`, `"))
		default:
			reason = fmt.Sprintf("the last validation ran on %s, not on the branch tip %s", short(last.Commit), short(sha))
		}
	}
	return fail(id, reason, "`"+strings.Join(declared, "`, `")+"` exiting 0 on "+short(sha)+" (tip of "+s.Branch+")", fix)
}

func trackIs(track string) Guard {
	id := "track-" + track
	return func(in Input) *workflow.GuardFailure {
		s := in.State
		if s.Track == track {
			return nil
		}
		reason := "no track selected"
		if s.Track != "" {
			reason = "the selected track is " + s.Track
		}
		return fail(id, reason, "track "+track, fmt.Sprintf("git exarchos set %s track=%s", s.Feature, track))
	}
}

// fixCommitRecorded: field fixCommit names a commit on the workflow's branch strictly after the
// branch's merge-base with the base branch: the branch's own work, not the base it started from.
func fixCommitRecorded(in Input) *workflow.GuardFailure {
	const id = "fix-commit-recorded"
	s := in.State
	fix := fmt.Sprintf("git exarchos set %s fixCommit=<sha>", s.Feature)
	c := s.FieldString("fixCommit")
	expected := "fixCommit set to a commit made on " + s.Branch + " after it left the base branch"
	if c == "" {
		return fail(id, "no fix commit recorded", expected, fix)
	}
	from, sha, _, f := since(id, in)
	if f != nil {
		return f
	}
	ok, err := in.Facts.IsAncestor(c, sha)
	if err != nil {
		// Git's own error here is an exit status; what it means is that the id names no commit.
		return fail(id, fmt.Sprintf("fixCommit %s is not a commit in this repository", c), expected, fix)
	}
	if !ok {
		return fail(id, fmt.Sprintf("%s is not on branch %s (tip %s): not an ancestor", c, s.Branch, short(sha)), expected, fix)
	}
	if before, err := in.Facts.IsAncestor(c, from); err != nil || before {
		return fail(id, fmt.Sprintf("%s is not after the branch's merge-base %s: it is the base's history, not a fix made here", c, short(from)), expected,
			fix)
	}
	return nil
}

// escalationRecorded: field escalation says why the bug leaves this workflow, and to whom.
func escalationRecorded(in Input) *workflow.GuardFailure {
	s := in.State
	if strings.TrimSpace(s.FieldString(workflow.EscalationField)) != "" {
		return nil
	}
	return fail("escalation-recorded", "no escalation reason recorded", "escalation: why, and to whom",
		fmt.Sprintf("git exarchos set %s escalation=\"<why, and who takes it>\"", s.Feature))
}

// sourcesCollected: field sources is a non-empty array.
func sourcesCollected(in Input) *workflow.GuardFailure {
	s := in.State
	raw, _ := s.Field("sources")
	var list []json.RawMessage
	if json.Unmarshal(raw, &list) == nil && len(list) > 0 {
		return nil
	}
	return fail("sources-collected", "no sources recorded", "sources: a non-empty JSON array",
		fmt.Sprintf("git exarchos set %s sources='[\"<url or path>\"]'", s.Feature))
}

// loopPolicySatisfied: the completion policy fixed at init is met in the current iteration.
func loopPolicySatisfied(in Input) *workflow.GuardFailure {
	s := in.State
	l := s.Loop
	var need []string
	switch s.Completion {
	case "worker-done":
		if !l.WorkerDone {
			need = append(need, "done")
		}
	case "any":
		if !l.WorkerDone && !l.ReviewerPass {
			need = append(need, "done or pass")
		}
	case "both":
		if !l.WorkerDone {
			need = append(need, "done")
		}
		if !l.ReviewerPass {
			need = append(need, "pass")
		}
	default: // reviewer-pass
		if !l.ReviewerPass {
			need = append(need, "pass")
		}
	}
	if len(need) == 0 {
		return nil
	}
	return fail("loop-policy-satisfied", fmt.Sprintf("completion policy %s not met in iteration %d", s.Completion, s.Iterations),
		"signal(s) "+strings.Join(need, " and ")+" in this iteration", fmt.Sprintf("git exarchos loop %s %s", strings.Fields(need[0])[0], s.Feature))
}

func synthesisWanted(s workflow.State) bool {
	return s.Synthesis == "always" || (s.Synthesis == "on-request" && s.SynthesisRequested)
}

// synthesisRequired / synthesisNotRequired are complementary, so exactly one of oneshot's two
// exits from implementing is open.
func synthesisRequired(in Input) *workflow.GuardFailure {
	s := in.State
	if synthesisWanted(s) {
		return nil
	}
	if s.Synthesis == "never" {
		return fail("synthesis-required", "synthesis policy is never", "policy always, or on-request with a request",
			fmt.Sprintf("git exarchos transition %s completed", s.Feature))
	}
	return fail("synthesis-required", "synthesis was not requested (policy on-request)", "a synthesis request",
		fmt.Sprintf("git exarchos request-synthesis %s --reason \"…\"", s.Feature))
}

func synthesisNotRequired(in Input) *workflow.GuardFailure {
	s := in.State
	if !synthesisWanted(s) {
		return nil
	}
	why := "synthesis policy is always"
	if s.Synthesis == "on-request" {
		why = "synthesis was requested"
	}
	return fail("synthesis-not-required", why, "no synthesis required", fmt.Sprintf("git exarchos transition %s synthesize", s.Feature))
}

// existingArtifact is the failure of an artifact whose file the branch did not add or change. The
// fix follows the order the hook enforces in a planning phase (it lets the agent write only a
// recorded artifact's file): record a path of this workflow's own first, then write and commit it
// (the guard then names the commit). When that path is the one recorded, the file must change.
func existingArtifact(id string, s workflow.State, name, p, from, expected string) *workflow.GuardFailure {
	own := fmt.Sprintf("docs/%s-%s.md", s.Feature, name)
	reason := fmt.Sprintf("%s was not added or changed on %s since %s: an existing file is not this workflow's %s; record a path of its own, then write the %s there and commit it", p, s.Branch, short(from), name, name)
	fix := fmt.Sprintf("git exarchos set %s artifacts.%s=%s", s.Feature, name, own)
	if p == own {
		reason = fmt.Sprintf("%s was not added or changed on %s since %s: an existing file is not this workflow's %s; write this workflow's %s into it, then commit it", p, s.Branch, short(from), name, name)
		fix = fmt.Sprintf("git add %s && git commit -m \"%s: %s\"", p, s.Feature, name)
	}
	return fail(id, reason, expected, fix)
}
