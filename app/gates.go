package app

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/exarchos/git-exarchos/guards"
	"github.com/exarchos/git-exarchos/workflow"
)

// Quality gates (issue 30): a phase's Gates run when `transition` leaves the phase, in a clean
// checkout of the branch tip (what is committed, as shell guards judge it), each run recorded as
// a validation of that commit — a fact verify can re-check like any validation. A gate that
// already passed on the tip is not run again; the first failure stops the run, and its output is
// what the refusal shows.

// GateTimeout bounds one gate's run.
var GateTimeout = 10 * time.Minute

// gateOutputTail is how much of a failing gate's output the refusal carries.
const gateOutputTail = 1500

// runGates runs the gates of the workflow's phase that lack a passing run on the branch tip and
// records each run; it returns the output of a failed gate ("" when none failed).
func (r *Repo) runGates(feature string) (string, error) {
	st, _, err := r.State(feature)
	if err != nil {
		return "", err
	}
	def, err := r.Rules().Definition(st.Type)
	if err != nil || st.Branch == "" {
		return "", nil // the transition reports what is missing
	}
	p, _ := def.Phase(st.Phase)
	if len(p.Gates) == 0 {
		return "", nil
	}
	tip, ok, err := r.Store.Loc.BranchTip(st.Branch)
	if err != nil || !ok {
		return "", err // no tip: the guard says so, with its fix
	}
	var pending []string
	for _, g := range p.Gates {
		if run, ok := guards.LatestRun(st, g, tip); !ok || run.ExitCode != 0 {
			pending = append(pending, g)
		}
	}
	if len(pending) == 0 {
		return "", nil
	}
	dir, done, err := r.Store.Loc.CleanCheckout(tip)
	if err != nil {
		return "", fmt.Errorf("check out %s to run the gates of %s: %w", tip, st.Phase, err)
	}
	defer done()
	var records []workflow.Command
	failed := ""
	for _, g := range pending {
		ctx, cancel := context.WithTimeout(context.Background(), GateTimeout)
		cmd := exec.CommandContext(ctx, "sh", "-c", g)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "EXARCHOS_FEATURE="+feature, "EXARCHOS_PHASE="+st.Phase, "EXARCHOS_COMMIT="+tip)
		cmd.WaitDelay = 2 * time.Second
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		start := time.Now()
		code, runErr := exitStatus(cmd.Run())
		cancel()
		if runErr != nil {
			return "", fmt.Errorf("run the gate `%s`: %w", g, runErr)
		}
		records = append(records, workflow.RecordValidation{Command: g, ExitCode: code, DurationMs: time.Since(start).Milliseconds(), Commit: tip})
		if code != 0 {
			failed = orElse(outputTail(out.String()), "(no output)")
			break
		}
	}
	if _, err := r.Execute(feature, records...); err != nil {
		return "", err
	}
	return failed, nil
}

// withGateOutput adds a failed gate's output to the refusal of gates-passed.
func withGateOutput(err error, output string) error {
	var rej *workflow.Rejection
	if output == "" || !errors.As(err, &rej) {
		return err
	}
	for i, f := range rej.FailedGuards {
		if f.Guard == workflow.GuardGatesPassed {
			rej.FailedGuards[i].Reason += ":\n" + indent(output)
		}
	}
	return err
}

// outputTail is the end of a command's output, as much as a refusal or a record carries.
func outputTail(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > gateOutputTail {
		s = "…" + s[len(s)-gateOutputTail:]
	}
	return s
}

func indent(s string) string { return "      " + strings.ReplaceAll(s, "\n", "\n      ") }
