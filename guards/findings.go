package guards

import (
	"fmt"
	"slices"
	"strings"

	"github.com/exarchos/git-exarchos/workflow"
)

// openFindings: no review finding at or above the definition's blocking severity is open
// (workflow/findings.go). The fix is the fix cycle when the phase has one (the transition the
// review-failed guard opens), else a reviewer's resolve.
func openFindings(id string, in Input) *workflow.GuardFailure {
	s := in.State
	blocking, _ := s.OpenFindings(in.Def)
	if len(blocking) == 0 {
		return nil
	}
	const listed = 3
	var names []string
	for i, f := range blocking {
		if i == listed {
			names = append(names, fmt.Sprintf("and %d more", len(blocking)-listed))
			break
		}
		names = append(names, fmt.Sprintf("%s %s %s (%s)", f.ID, f.Severity, f.Where(), f.Dimension))
	}
	fix := fmt.Sprintf("git exarchos review %s --resolve %s --note \"why it does not need a fix\"", s.Feature, blocking[0].ID)
	if in.Def != nil {
		for _, t := range in.Def.Outgoing(s.Phase) {
			if slices.Contains(t.Guards, "review-failed") {
				fix = fmt.Sprintf("git exarchos transition %s %s", s.Feature, t.To) // the fix cycle
				break
			}
		}
	}
	return fail(id, fmt.Sprintf("%d blocking review finding(s) open: %s", len(blocking), strings.Join(names, ", ")),
		fmt.Sprintf("no open finding of severity %s or above: each fixed in a task and not repeated by a review of the new tip, or resolved by a reviewer (git exarchos review %s --resolve ID --note …)",
			in.Def.BlockingSeverity(), s.Feature),
		fix)
}
