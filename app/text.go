package app

// The text form of the status cmd prints when --json is not given (cmd only picks text or JSON;
// a cancel's, verify's, a pull's and a push's are their packages' text.go).

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/exarchos/git-exarchos/teamsync"
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
		fmt.Fprintf(w, "artifacts:\n")
		for _, n := range slices.Sorted(maps.Keys(st.Artifacts)) {
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
		fmt.Fprintf(w, "reviews:\n")
		for _, n := range slices.Sorted(maps.Keys(st.Reviews)) {
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
		teamsync.WriteConflicts(w, st.Conflicts)
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

// WriteText writes the hooks' state as `git exarchos hooks status|install|uninstall` print it.
func (res *HooksResult) WriteText(w io.Writer) {
	for _, s := range res.Claude {
		fmt.Fprintf(w, "claude %-7s %s: %s\n", s.Scope, s.Path, hookFileState(s.Error, s.Events, s.Exists, s.Changed))
	}
	for _, s := range res.Clients {
		fmt.Fprintf(w, "%s %-7s %s: %s%s\n", s.Client, s.Scope, s.Path, hookFileState(s.Error, s.Events, s.Exists, s.Changed), s.GuidanceNote())
	}
	if res.GitDir != "" {
		fmt.Fprintf(w, "git hooks in %s:\n", res.GitDir)
		for _, g := range res.Git {
			state := "not installed"
			switch {
			case g.Action != "":
				state = g.Action
			case g.Installed && g.Chained:
				state = "installed, chaining the previous hook"
			case g.Installed:
				state = "installed"
			case g.Foreign:
				state = "not installed (another hook is there; install chains it)"
			}
			fmt.Fprintf(w, "  %-13s %s\n", g.Name, state)
		}
	}
	if res.Monitor != "" {
		fmt.Fprintf(w, "file-system monitor: %s\n", res.Monitor)
	}
	for _, warning := range res.Warnings {
		fmt.Fprintf(w, "note: %s\n", warning)
	}
}

// hookFileState says what a client's hook file holds of exarchos's.
func hookFileState(err string, events []string, exists, changed bool) string {
	state := "not installed"
	switch {
	case err != "":
		state = "error: " + err
	case len(events) > 0:
		state = "installed for " + strings.Join(events, ", ")
	case !exists:
		state = "not installed (no file)"
	}
	if changed {
		state += " (changed)"
	}
	return state
}
