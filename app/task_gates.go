package app

import "github.com/exarchos/git-exarchos/workflow"

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
	if t, ok := st.Task(c.ID); !ok || (t.Status == workflow.TaskCompleted && t.HeadSHA == c.HeadSHA) {
		return "", nil // no such task, or already completed there: the decision answers either
	}
	return r.recordGates(feature, st, def, def.TaskGates, c.HeadSHA, "the gates of task "+c.ID, "EXARCHOS_TASK="+c.ID)
}
