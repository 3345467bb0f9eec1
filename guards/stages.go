package guards

import (
	"fmt"
	"strings"

	"github.com/exarchos/git-exarchos/workflow"
)

func init() { registry[workflow.GuardStagesCompleted] = stagesCompleted }

// stagesCompleted: every stage of the fan-out the workflow is in completed in this visit of the
// phase (workflow/fanout.go). A failed fan-out does not join: its fix leaves the phase (coming
// back runs the stages afresh) or cancels.
func stagesCompleted(in Input) *workflow.GuardFailure {
	const id = workflow.GuardStagesCompleted
	s := in.State
	if in.Def == nil {
		return fail(id, "unknown workflow type "+s.Type, "a known workflow type", "git exarchos describe "+s.Type)
	}
	f, ok := in.Def.FanoutOf(s.Phase)
	if !ok {
		return fail(id, "phase "+s.Phase+" runs no stages", "a fan-out phase", "git exarchos describe "+s.Type)
	}
	expected := fmt.Sprintf("every stage of %s completed (%s)", f.Phase, strings.Join(f.Stages, ", "))
	var running []string
	for _, st := range s.StageStatuses(in.Def) {
		switch st.Status {
		case workflow.StageFailed:
			return fail(id, fmt.Sprintf("stage %s failed (%s) and its running siblings were cancelled: the fan-out of %s does not join", st.Stage, st.Reason, f.Phase), expected,
				"git exarchos transitions "+s.Feature)
		case workflow.StageRunning:
			running = append(running, st.Stage)
		}
	}
	if len(running) > 0 {
		return fail(id, fmt.Sprintf("stage(s) %s still running", strings.Join(running, ", ")), expected,
			fmt.Sprintf("git exarchos stage done %s %s", s.Feature, running[0]))
	}
	return nil
}
