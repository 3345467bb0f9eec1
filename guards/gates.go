package guards

import (
	"fmt"

	"github.com/exarchos/git-exarchos/workflow"
)

// gatesPassed: each quality gate of the phase (workflow.Phase.Gates) has a recorded run on the
// branch tip, and the latest such run exited 0. `transition` runs the gates that lack one
// (app/gates.go), so its fix is the transition itself once the failure is fixed and committed.
func gatesPassed(in Input) *workflow.GuardFailure {
	const id = workflow.GuardGatesPassed
	s := in.State
	if in.Def == nil {
		return fail(id, "unknown workflow type "+s.Type, "a known workflow type", "git exarchos describe "+s.Type)
	}
	p, _ := in.Def.Phase(s.Phase)
	sha, f := tip(id, in)
	if f != nil {
		return f
	}
	again := fmt.Sprintf("git exarchos transition %s %s", s.Feature, in.Target)
	for _, gate := range p.Gates {
		run, ok := LatestRun(s, gate, sha)
		switch {
		case !ok:
			return fail(id, fmt.Sprintf("the gate `%s` has not run on %s", gate, short(sha)), "every gate of "+s.Phase+" exiting 0 on the branch tip", again)
		case run.ExitCode != 0:
			return fail(id, fmt.Sprintf("the gate `%s` exited %d on %s", gate, run.ExitCode, short(sha)), "every gate of "+s.Phase+" exiting 0 on the branch tip",
				"git commit -am \"fix the gate\" && "+again)
		}
	}
	return nil
}

// LatestRun is the latest recorded run of command on commit sha.
func LatestRun(s workflow.State, command, sha string) (workflow.Validation, bool) {
	return s.LatestGateRun(command, sha)
}
