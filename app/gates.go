package app

import (
	"errors"
	"slices"
	"strings"

	"github.com/exarchos/git-exarchos/project"
	"github.com/exarchos/git-exarchos/workflow"
)

// Quality gates (issue 30): a phase's Gates run when `transition` leaves the phase, in a clean
// checkout of the branch tip (what is committed, as shell guards judge it), each run recorded as
// a validation of that commit — a fact verify can re-check like any validation. A gate that
// already passed on the tip is not run again; the first failure stops the run, and its output is
// what the refusal shows.

// runGates runs the gates of the workflow's phase that lack a passing run on the branch tip and
// records each run, when the transition to target needs them (a mistyped or universal target runs
// none); it returns the output of a failed gate ("" when none failed).
func (r *Repo) runGates(feature, target string) (string, error) {
	st, _, err := r.State(feature)
	if err != nil {
		return "", err
	}
	def, err := r.Rules().Definition(st.Type)
	if err != nil || st.Branch == "" {
		return "", nil // the transition reports what is missing
	}
	p, _ := def.Phase(st.Phase)
	if len(p.Gates) == 0 || !slices.ContainsFunc(def.Outgoing(st.Phase), func(t workflow.Transition) bool {
		return t.To == target && t.TakenBy(workflow.OnTransition) && slices.Contains(t.Guards, workflow.GuardGatesPassed)
	}) {
		return "", nil
	}
	tip, ok, err := r.BranchTip(st.Branch)
	if err != nil || !ok {
		return "", err // no tip: the guard says so, with its fix
	}
	return r.recordGates(feature, st, def, p.Gates, tip, "the gates of "+st.Phase, "EXARCHOS_PHASE="+st.Phase)
}

// withGateOutput adds a failed gate's output to the refusal of gates-passed (task-gates-passed).
func withGateOutput(err error, output string) error {
	var rej *workflow.Rejection
	if output == "" || !errors.As(err, &rej) {
		return err
	}
	for i, f := range rej.FailedGuards {
		if f.Guard == workflow.GuardGatesPassed || f.Guard == workflow.GuardTaskGatesPassed {
			rej.FailedGuards[i].Reason += ":\n" + indent(output)
		}
	}
	return err
}

// outputTail is the end of a command's output, as much as a refusal or a record carries.
func outputTail(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > project.GateOutputTail {
		s = "…" + s[len(s)-project.GateOutputTail:]
	}
	return s
}

func indent(s string) string { return "      " + strings.ReplaceAll(s, "\n", "\n      ") }
