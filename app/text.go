package app

// The text forms of results cmd prints when --json is not given (cmd only picks text or JSON):
// the status, a cancel, verify's verdicts, a pull and a push.

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/exarchos/git-exarchos/saga"
	"github.com/exarchos/git-exarchos/teamsync"
	"github.com/exarchos/git-exarchos/verify"
	"github.com/exarchos/git-exarchos/workflow"
)

// WriteText writes the status as `git exarchos status` prints it, but for the trust lines cmd ends
// it with; bold marks what a terminal shows in bold.
func (st Status) WriteText(w io.Writer, bold func(string) string) {
	if st.RefusedStart() != nil {
		fmt.Fprintf(w, "%s never started: its start replaced another workflow on the branch and was refused (below)\n", bold(st.Feature))
	} else {
		fmt.Fprintf(w, "%s (%s) on branch %s: %s\n", bold(st.Feature), st.Type, st.Branch, bold(st.Phase))
	}
	if st.Reason != "" {
		fmt.Fprintf(w, "  reason: %s\n", st.Reason)
	}
	for _, warning := range st.Warnings {
		fmt.Fprintf(w, "  warning: %s\n", warning)
	}
	if st.MaxIterations > 0 {
		fmt.Fprintf(w, "  iteration %d of %d (completion policy %s)\n", st.Iterations, st.MaxIterations, st.Completion)
	}
	if g, ok := st.OpenGaps(); ok {
		fmt.Fprintf(w, "  plan sent back from %s by %s; gaps: %s\n", g.Phase, g.Actor, g.Gaps)
	}
	if len(st.Artifacts) > 0 {
		names := make([]string, 0, len(st.Artifacts))
		for n := range st.Artifacts {
			names = append(names, n)
		}
		sort.Strings(names)
		fmt.Fprintf(w, "artifacts:\n")
		for _, n := range names {
			a := st.Artifacts[n]
			if a.Inline {
				fmt.Fprintf(w, "  %-10s (inline text)\n", n)
			} else {
				fmt.Fprintf(w, "  %-10s %s\n", n, a.Path)
			}
		}
	}
	if len(st.Tasks) > 0 {
		fmt.Fprintf(w, "tasks:\n")
		for _, t := range st.Tasks {
			fmt.Fprintf(w, "  [%s] %s %s\n", t.Status, t.ID, t.Title)
		}
	}
	writeStages(w, st.State)
	writeResources(w, st.State, st.Ended)
	if len(st.Reviews) > 0 {
		names := make([]string, 0, len(st.Reviews))
		for n := range st.Reviews {
			names = append(names, n)
		}
		sort.Strings(names)
		fmt.Fprintf(w, "reviews:\n")
		for _, n := range names {
			fmt.Fprintf(w, "  %-10s %s\n", n, st.Reviews[n].Verdict)
		}
	}
	open := 0
	for _, f := range st.Findings {
		if f.Closed == nil {
			open++
		}
	}
	if open > 0 {
		fmt.Fprintf(w, "review findings: %d open (git exarchos view findings %s)\n", open, st.Feature)
	}
	for compound, n := range st.FixCycles {
		fmt.Fprintf(w, "fix cycles in %s: %d\n", compound, n)
	}
	if st.Circuit != nil && st.Circuit.Open {
		fmt.Fprintf(w, "circuit OPEN in %s: ask the user to run `git exarchos unblock %s --reason \"…\"`\n", st.Circuit.Compound, st.Feature)
	}
	if len(st.Conflicts) > 0 {
		fmt.Fprintf(w, "conflicts (%d):\n", len(st.Conflicts))
		WriteConflicts(w, st.Conflicts)
	}
	fmt.Fprintf(w, "%d events, head %s\n", st.Events, st.Head[:12])
}

// writeStages lists the stages of the fan-out phase the workflow is in, with their status.
func writeStages(w io.Writer, st workflow.State) {
	run := st.Fanout
	if run == nil || run.Phase != st.Phase {
		return
	}
	fmt.Fprintf(w, "stages of %s (in parallel; the join waits for all):\n", st.Phase)
	for _, id := range slices.Sorted(maps.Keys(run.Stages)) {
		s := run.Stages[id]
		fmt.Fprintf(w, "  [%s] %s", s.Status, id)
		switch {
		case s.Status == workflow.StageCancelled:
			fmt.Fprintf(w, " (when %s failed)", s.Cause)
		case s.Reason != "":
			fmt.Fprintf(w, " (%s)", s.Reason)
		}
		fmt.Fprintf(w, "\n")
	}
}

// writeResources shows, in status, what the workflow created and how far a cancel got; once the
// workflow ended, what it still holds is left behind, not active.
func writeResources(w io.Writer, st workflow.State, ended bool) {
	if len(st.Resources) == 0 {
		return
	}
	fmt.Fprintf(w, "resources:\n")
	left := false
	for _, r := range st.Resources {
		where := r.Path
		if r.Kind != workflow.ResourceWorktree {
			where = r.Branch + r.URL
		}
		state := "active"
		switch {
		case r.Compensated():
			state = "compensated"
		case len(r.Done) > 0:
			state = "compensating"
		case ended:
			state, left = "left", true
		}
		fmt.Fprintf(w, "  %-8s %-12s %s", r.Kind, state, where)
		if r.Rescue != "" {
			fmt.Fprintf(w, " (work kept at %s)", r.Rescue)
		}
		fmt.Fprintf(w, "\n")
		if f := r.Failure; f != nil {
			fmt.Fprintf(w, "      %s failed: %s\n      fix: %s\n", f.Action, f.Detail, f.Fix)
		}
	}
	if left {
		fmt.Fprintf(w, "the workflow is %s: what is left is no longer in use (git worktree remove <path> removes a worktree, git branch -d <branch> a merged branch)\n", st.Phase)
	}
	if st.Cancel != nil && st.Phase == "cancelling" { // the built-ins' (and their extensions') cancelling phase
		fmt.Fprintf(w, "cancel in progress: run `git exarchos cancel %s` to finish it\n", st.Feature)
	}
}

// WriteCancel writes what a cancel did, or plans, as `git exarchos cancel` prints it.
func WriteCancel(w io.Writer, res *saga.CancelResult, bold func(string) string) {
	if res.DryRun {
		fmt.Fprintf(w, "%s: cancel plan (%d step(s), nothing changed)\n", bold(res.Feature), len(res.Steps))
	}
	for _, s := range res.Steps {
		fmt.Fprintf(w, "  %-13s %-8s %s: %s\n", s.Outcome, s.Action, s.Resource, s.Detail)
		if s.Fix != "" {
			fmt.Fprintf(w, "      fix: %s\n", s.Fix)
		}
	}
	for _, s := range res.Pending {
		fmt.Fprintf(w, "  %-13s %-8s %s\n", "pending", s.Action, s.Resource)
	}
	if res.DryRun {
		if res.Needs != "" {
			fmt.Fprintf(w, "the cancel itself needs more: %s\n", res.Needs)
		}
		return
	}
	if res.Cancelled() {
		fmt.Fprintf(w, "%s: cancelled; the %s workflow is in %s (%d compensation step(s) this run)\n", bold(res.Feature), res.Type, bold(res.Phase), len(res.Steps))
		return
	}
	fmt.Fprintf(w, "%s: %s is still in %s\n", bold(res.Feature), res.Type, bold(res.Phase))
}

// WriteVerify writes verify's verdict on each workflow, as `git exarchos verify` prints it, but for
// the trust line cmd ends it with.
func WriteVerify(w io.Writer, res *verify.Result, bold func(string) string) {
	for _, wf := range res.Workflows {
		verdict := "ok"
		if len(wf.Violations) > 0 {
			verdict = "FAILED"
		}
		fmt.Fprintf(w, "%s (%s, %s): %d events, %d decisions: %s\n", bold(wf.Feature), wf.Type, wf.Phase, wf.Events, wf.Decisions, verdict)
		for _, v := range wf.Violations {
			fmt.Fprintf(w, "  seq %d %s [%s]: %s\n", v.Seq, v.Event, v.Rule, v.Message)
		}
		if wf.GatesRerun != nil {
			fmt.Fprintf(w, "  gates: %d run(s) repeated on the commits they were recorded on\n", *wf.GatesRerun)
		}
		if wf.GitHub != "" {
			fmt.Fprintf(w, "  github: %s\n", wf.GitHub)
			if wf.GitHub == verify.GitHubNoToken {
				fmt.Fprintf(w, "  the pull request was not checked with GitHub: set GITHUB_TOKEN or GH_TOKEN (CI: --require-github fails without one)\n")
			}
		}
		for _, a := range wf.Acknowledged {
			fmt.Fprintf(w, "  seq %d: refused %s decision %s (%s), acknowledged by %s\n", a.Seq, a.Kind, a.Event, a.Reason, a.By)
		}
	}
	if res.BaseProtection != "" {
		fmt.Fprintf(w, "base protection: %s\n", res.BaseProtection)
	}
}

// WriteConflicts lists conflicts a merge of two logs recorded, one a line.
func WriteConflicts(w io.Writer, cs []workflow.Conflict) {
	for _, c := range cs {
		fmt.Fprintf(w, "    conflict at #%d %s: %s\n", c.Seq, c.Type, c.Reason)
	}
}

// WritePull writes what a pull did, as `git exarchos pull` prints it.
func WritePull(w io.Writer, res *teamsync.PullResult, bold func(string) string) {
	fmt.Fprintf(w, "pull from %s: %s\n", res.Remote, counts(res.Counts))
	for _, wf := range res.Workflows {
		if wf.Action != teamsync.UpToDate && wf.Action != teamsync.Ahead {
			more := ""
			if wf.Added > 0 {
				more = fmt.Sprintf(" (+%d events)", wf.Added)
			}
			writeSynced(w, bold(wf.Feature)+" "+string(wf.Action)+more, wf.Message, wf.Conflicts)
		}
	}
}

// WritePush writes what a push did, as `git exarchos push` prints it.
func WritePush(w io.Writer, res *teamsync.PushResult, bold func(string) string) {
	fmt.Fprintf(w, "push to %s: %s\n", res.Remote, counts(res.Counts))
	for _, wf := range res.Workflows {
		if wf.Result != teamsync.InSync {
			more := ""
			if wf.Attempts > 1 {
				more = fmt.Sprintf(" (attempt %d)", wf.Attempts)
			}
			writeSynced(w, bold(wf.Feature)+" "+string(wf.Result)+more, wf.Message, wf.Conflicts)
		}
	}
}

// writeSynced is one workflow's line of a pull or a push, and its conflicts.
func writeSynced(w io.Writer, what, message string, cs []workflow.Conflict) {
	if message != "" {
		what += ": " + message
	}
	fmt.Fprintf(w, "  %s\n", what)
	WriteConflicts(w, cs)
}

// counts renders {"merged":2,"up-to-date":5} as "2 merged, 5 up-to-date".
func counts(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%d %s", m[k], k)
	}
	if len(parts) == 0 {
		return "no workflows"
	}
	return strings.Join(parts, ", ")
}
