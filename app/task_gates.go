package app

import (
	"slices"

	"github.com/exarchos/git-exarchos/workflow"
)

// Quality gates on task completion (issue 30): the definition's taskGates, read like the rest of it
// from the base branch's tip (a gate edited on the task's branch is not the one that runs), run
// when `task done` completes a task: in a clean checkout of the commit the completion records
// (bindTask's head), as the phase gates run on the branch tip (gates.go). Each run is recorded as a
// validation of that commit before the completion is decided, so a refusal keeps the record of
// what failed; the workflow refuses the completion unless every gate's latest run there exited 0
// (workflow.GuardTaskGatesPassed). A gate that passed on the commit is not run again.

// runTaskGates runs the task gates that lack a passing run on the completion's head and records
// each run; it returns the output of a failed gate ("" when none failed or none ran).
func (r *Repo) runTaskGates(feature string, c workflow.CompleteTask) (string, error) {
	if c.HeadSHA == "" {
		return "", nil // the workflow refuses a completion with no commit, with its fix
	}
	st, _, err := r.State(feature)
	if err != nil {
		return "", err
	}
	def, err := r.Rules().Definition(st.Type)
	if err != nil || len(def.TaskGates) == 0 {
		return "", nil
	}
	// The gates run only when they are what stands between the task and its completion: a
	// completion refused for another reason (no commit of its own, no such task, an open circuit)
	// or already recorded runs nothing, and the decision answers it.
	env, err := r.Env()
	if err != nil {
		return "", err
	}
	if _, rej := workflow.Decide(def, st, c, env); rej == nil || !slices.ContainsFunc(rej.FailedGuards, func(f workflow.GuardFailure) bool {
		return f.Guard == workflow.GuardTaskGatesPassed
	}) {
		return "", nil
	}
	return r.recordGates(feature, st, def, def.TaskGates, c.HeadSHA, "the gates of task "+c.ID, "EXARCHOS_TASK="+c.ID)
}
