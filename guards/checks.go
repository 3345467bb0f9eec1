package guards

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/exarchos/git-exarchos/workflow"
)

// artifactPresent: the artifact is recorded, and is either marked inline or names a file that
// exists in the commit at the tip of the workflow's branch.
func artifactPresent(name string) Guard {
	id := artifactPrefix + name
	return func(in Input) *workflow.GuardFailure {
		s := in.State
		setFix := fmt.Sprintf("git exarchos set %s artifacts.%s=<path>", s.Feature, name)
		expected := fmt.Sprintf("a %s file committed on branch %s (or inline text with --inline)", name, s.Branch)
		a, ok := s.Artifacts[name]
		if !ok {
			return fail(id, "no "+name+" artifact recorded", expected, setFix)
		}
		if a.Inline {
			if strings.TrimSpace(a.Text) == "" {
				return fail(id, "the inline "+name+" artifact is empty", expected, fmt.Sprintf("git exarchos set %s --inline artifacts.%s=\"…\"", s.Feature, name))
			}
			return nil
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
		return nil
	}
}

// planApproved: a human approved the plan during the current visit of the review phase.
func planApproved(in Input) *workflow.GuardFailure {
	s := in.State
	for i := len(s.Approvals) - 1; i >= 0; i-- {
		a := s.Approvals[i]
		if a.Phase != s.Phase || a.At < s.EnteredAt {
			break
		}
		if a.Decision == "approved" {
			return nil
		}
		break
	}
	return fail("plan-approved", "the plan has not been approved in this review", "a human approval (git exarchos approve)",
		fmt.Sprintf("git exarchos approve %s --note \"…\"", s.Feature))
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
		first, _, _ := strings.Cut(open[0], " ")
		return fail("tasks-complete", fmt.Sprintf("%d of %d tasks not completed: %s", len(open), len(s.Tasks), strings.Join(open, ", ")),
			"every task completed", fmt.Sprintf("git exarchos task done %s %s", s.Feature, first))
	}
	return nil
}

// reviewsPassed: every review dimension the definition requires has a passing latest verdict.
func reviewsPassed(in Input) *workflow.GuardFailure {
	s := in.State
	def := in.Def
	if def == nil || len(def.Reviews) == 0 {
		return fail("reviews-passed", "no review dimensions defined for "+s.Type, "a known workflow type", "git exarchos describe "+s.Type)
	}
	var missing []string
	for _, dim := range def.Reviews {
		r, ok := s.Reviews[dim]
		switch {
		case !ok:
			missing = append(missing, dim+" (not reviewed)")
		case r.Verdict != workflow.VerdictPass:
			missing = append(missing, dim+" ("+r.Verdict+")")
		}
	}
	if len(missing) == 0 {
		return nil
	}
	first, _, _ := strings.Cut(missing[0], " ")
	return fail("reviews-passed", "reviews not passed: "+strings.Join(missing, ", "),
		"a pass for "+strings.Join(def.Reviews, " and "), fmt.Sprintf("git exarchos review %s %s pass --note \"…\"", s.Feature, first))
}

// validationPassed: the latest validation run on the current branch tip exited 0. Runs on older
// commits do not count: the code they checked is not the code being shipped.
func validationPassed(in Input) *workflow.GuardFailure {
	s := in.State
	fix := fmt.Sprintf("git exarchos validate %s -- <command> [args…]", s.Feature)
	sha, f := tip("validation-passed", in)
	if f != nil {
		return f
	}
	for i := len(s.Validations) - 1; i >= 0; i-- {
		v := s.Validations[i]
		if !sameCommit(v.Commit, sha) {
			continue
		}
		if v.ExitCode != 0 {
			return fail("validation-passed", fmt.Sprintf("`%s` exited %d on %s", v.Command, v.ExitCode, short(sha)), "a validation exiting 0 on the branch tip", fix)
		}
		return nil
	}
	reason := "no validation recorded"
	if n := len(s.Validations); n > 0 {
		reason = fmt.Sprintf("the last validation ran on %s, not on the branch tip %s", short(s.Validations[n-1].Commit), short(sha))
	}
	return fail("validation-passed", reason, "a validation exiting 0 on "+short(sha)+" (tip of "+s.Branch+")", fix)
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

// fixCommitRecorded: field fixCommit names a commit on the workflow's branch.
func fixCommitRecorded(in Input) *workflow.GuardFailure {
	s := in.State
	fix := fmt.Sprintf("git exarchos set %s fixCommit=<sha>", s.Feature)
	c := s.FieldString("fixCommit")
	if c == "" {
		return fail("fix-commit-recorded", "no fix commit recorded", "fixCommit set to a commit on "+s.Branch, fix)
	}
	sha, f := tip("fix-commit-recorded", in)
	if f != nil {
		return f
	}
	ok, err := in.Facts.IsAncestor(c, sha)
	if err != nil {
		// Git's own error here is an exit status; what it means is that the id names no commit.
		return fail("fix-commit-recorded", fmt.Sprintf("fixCommit %s is not a commit in this repository", c),
			"fixCommit set to a commit on "+s.Branch, fix)
	}
	if !ok {
		return fail("fix-commit-recorded", fmt.Sprintf("%s is not on branch %s (tip %s): not an ancestor", c, s.Branch, short(sha)),
			"fixCommit set to a commit on "+s.Branch, fix)
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
