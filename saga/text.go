package saga

// The text form of a cancel, as cmd prints it when --json is not given.

import (
	"fmt"
	"io"
)

// WriteCancel writes what a cancel did, or plans, as `git exarchos cancel` prints it.
func WriteCancel(w io.Writer, res *CancelResult, bold func(string) string) {
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
