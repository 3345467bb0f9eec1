package app

import (
	"fmt"
	"strings"

	"github.com/exarchos/git-exarchos/gitstore"
	"github.com/exarchos/git-exarchos/workflow"
)

// refuseWhileWaiting: while a plan waits for the user's review, an agent does not start another
// workflow (a oneshot on a new branch) to write the code meanwhile (issue 38 item 2): that is the
// user's decision, init --human in their own terminal. Workflows on the branch being started are
// init's own concern (Replaces).
func (r *Repo) refuseWhileWaiting(o InitOptions, all []gitstore.Summary) error {
	if o.Human || !r.InAgent() {
		return nil
	}
	var waiting []string
	for _, s := range all {
		if s.Feature == o.Feature || s.Branch == o.Branch {
			continue
		}
		def, err := r.Rules().Definition(s.Type)
		if err != nil || !def.Checkpoint(s.Phase) { // the summary's phase first: no state read for most
			continue
		}
		if st, _, err := r.State(s.Feature); err != nil || workflow.WaitsForUser(def, st) != "" {
			waiting = append(waiting, fmt.Sprintf("%s (%s, on %s)", s.Feature, s.Phase, s.Branch))
		}
	}
	if len(waiting) == 0 {
		return nil
	}
	first, _, _ := strings.Cut(waiting[0], " ")
	return &workflow.Rejection{Code: workflow.CodeHumanDecision, Message: fmt.Sprintf(
		"%s wait(s) for the user's review of the plan: starting another workflow to write code meanwhile is the user's decision: ask the user to review it (git exarchos approve %s), or to run git exarchos init %s --type %s --human",
		strings.Join(waiting, ", "), first, o.Feature, o.Type)}
}
