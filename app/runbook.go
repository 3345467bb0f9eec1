package app

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/exarchos/git-exarchos/project"
	"github.com/exarchos/git-exarchos/workflow"
)

// Runbooks (issue 30): a definition names ordered steps; `git exarchos runbook <f> <name>` runs
// them one by one with sh -c in the worktree of the workflow's branch (a step is a git exarchos
// command or a check), records each run (runbook.step: a custom event, kept and counted, not
// folded: the commands a step runs record their own effects), and stops at the first failure with
// the command that resumes there.

// EventRunbookStep records one step's run.
const EventRunbookStep = "runbook.step"

// RunbookStep is the payload of runbook.step, and one step of the result.
type RunbookStep struct {
	Runbook    string `json:"runbook"`
	Index      int    `json:"index"` // 1-based
	Step       string `json:"step"`
	ExitCode   int    `json:"exitCode"`
	DurationMs int64  `json:"durationMs"`
	Commit     string `json:"commit"`
	Output     string `json:"output,omitempty"` // the tail of a failed step's output
}

// RunbookOptions names the runbook and where to start.
type RunbookOptions struct {
	Feature, Name string
	From          int       // 1-based step to start at; 0 starts at 1
	Output        io.Writer // receives the steps' output as they run
}

// RunbookResult is what the run did.
type RunbookResult struct {
	Feature string        `json:"feature"`
	Runbook string        `json:"runbook"`
	Steps   []RunbookStep `json:"steps"`
	// Failed is the step that failed (0: none) and Resume the command that starts there again.
	Failed int    `json:"failed,omitempty"`
	Resume string `json:"resume,omitempty"`
}

// RunbookFailed is a run that stopped at a failed step.
type RunbookFailed struct{ Result *RunbookResult }

func (e *RunbookFailed) Error() string {
	s := e.Result.Steps[len(e.Result.Steps)-1]
	return fmt.Sprintf("runbook %s of %s stopped at step %d, `%s` (exit %d): fix what it reports, then resume with %s",
		e.Result.Runbook, e.Result.Feature, s.Index, s.Step, s.ExitCode, e.Result.Resume)
}

// Runbook runs a runbook of the workflow's definition.
func Runbook(r *Repo, o RunbookOptions) (*RunbookResult, error) {
	feature, st, _, err := r.ResolveState(o.Feature)
	if err != nil {
		return nil, err
	}
	def, err := r.Rules().Definition(st.Type)
	if err != nil {
		return nil, err
	}
	steps, ok := def.Runbooks[o.Name]
	if !ok {
		names := make([]string, 0, len(def.Runbooks))
		for n := range def.Runbooks {
			names = append(names, n)
		}
		slices.Sort(names)
		return nil, project.Usagef("the %s definition has no runbook %q (it has: %s)", st.Type, o.Name, orElse(strings.Join(names, ", "), "none"))
	}
	from := max(o.From, 1)
	if from > len(steps) {
		return nil, project.Usagef("--from %d: runbook %s has %d step(s)", o.From, o.Name, len(steps))
	}
	dir, head, err := r.worktreeOf(st.Branch)
	if err != nil {
		return nil, err
	}
	out := o.Output
	if out == nil {
		out = io.Discard
	}
	timeout := time.Duration(def.GateTimeoutMillis()) * time.Millisecond
	res := &RunbookResult{Feature: feature, Runbook: o.Name, Steps: []RunbookStep{}}
	for i := from; i <= len(steps); i++ {
		step := steps[i-1]
		// The gates' runner: only the end of the output is kept however much a step prints, and
		// a step is bounded by the definition's gateTimeout, with what it started.
		run, runErr := project.RunBounded(dir, step, timeout, out, "EXARCHOS_FEATURE="+feature, "EXARCHOS_RUNBOOK="+o.Name, fmt.Sprintf("EXARCHOS_STEP=%d", i))
		if runErr != nil {
			return nil, fmt.Errorf("runbook %s step %d: %w", o.Name, i, runErr)
		}
		code := run.ExitCode
		if _, h, err := r.Facts().WorktreeOf(st.Branch); err == nil && h != "" {
			head = h // a step may commit: record the commit it left
		}
		rs := RunbookStep{Runbook: o.Name, Index: i, Step: step, ExitCode: code, DurationMs: run.Duration.Milliseconds(), Commit: head}
		if code != 0 {
			rs.Output = outputTail(run.Output)
		}
		if _, err := r.Append(feature, workflow.NewEvent{Type: EventRunbookStep, Data: rs}); err != nil {
			return nil, err
		}
		res.Steps = append(res.Steps, rs)
		if code != 0 {
			res.Failed = i
			res.Resume = fmt.Sprintf("git exarchos runbook %s %s --from %d", feature, o.Name, i)
			return res, &RunbookFailed{Result: res}
		}
	}
	return res, nil
}
