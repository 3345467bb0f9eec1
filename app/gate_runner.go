package app

import (
	"fmt"
	"strings"
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
	dir, done, err := r.CleanCheckout(commit)
	if err != nil {
		return "", fmt.Errorf("check out %s to run %s: %w", project.Short(commit), what, err)
	}
	defer done()
	env = append(env, "EXARCHOS_FEATURE="+feature, "EXARCHOS_COMMIT="+commit)
	timeout := time.Duration(def.GateTimeoutMillis()) * time.Millisecond
	var records []workflow.Command
	failed := ""
	environ := r.gateEnviron(dir, env) // gate_env.go: not the session's PATH, nor its hooks
	for _, g := range pending {
		replaced, err := r.gateFilesFromBase(dir, g)
		if err != nil {
			return "", fmt.Errorf("put the base's files of the gate `%s` into the checkout: %w", g, err)
		}
		run, err := project.RunGateIn(dir, g, timeout, environ)
		if err != nil {
			return "", err
		}
		if len(replaced) > 0 && run.ExitCode != 0 {
			run.Output += fmt.Sprintf("\n(the gate ran the base branch's %s, not the branch's: a gate's own files come from the base)", strings.Join(replaced, ", "))
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
