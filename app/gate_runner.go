package app

import (
	"fmt"
	"time"

	"github.com/exarchos/git-exarchos/project"
	"github.com/exarchos/git-exarchos/workflow"
)

// recordGates runs each of gates that lacks a passing run on commit, one after the other in a clean
// checkout of it, stopping at the first failure, and records every run as a validation of commit
// before anything is decided on them; it returns the failed gate's output ("" when none failed).
// what names the gates in an error; env is added to the gates' environment.
func (r *Repo) recordGates(feature string, st workflow.State, def *workflow.Definition, gates []string, commit, what string, env ...string) (string, error) {
	var pending []string
	for _, g := range gates {
		if run, ok := st.LatestGateRun(g, commit); !ok || run.ExitCode != 0 {
			pending = append(pending, g)
		}
	}
	if len(pending) == 0 {
		return "", nil
	}
	dir, done, err := r.Store.Loc.CleanCheckout(commit)
	if err != nil {
		return "", fmt.Errorf("check out %s to run %s: %w", project.Short(commit), what, err)
	}
	defer done()
	env = append(env, "EXARCHOS_FEATURE="+feature, "EXARCHOS_COMMIT="+commit)
	timeout := time.Duration(def.GateTimeoutMillis()) * time.Millisecond
	var records []workflow.Command
	failed := ""
	for _, g := range pending {
		run, err := project.RunGate(dir, g, timeout, env...)
		if err != nil {
			return "", err
		}
		records = append(records, workflow.RecordValidation{Command: g, ExitCode: run.ExitCode, DurationMs: run.Duration.Milliseconds(), Commit: commit, Gate: true})
		if run.ExitCode != 0 {
			failed = orElse(run.Output, "(no output)")
			break
		}
	}
	if _, err := r.Execute(feature, records...); err != nil {
		return "", err
	}
	return failed, nil
}
