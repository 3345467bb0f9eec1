package workflow

import (
	"fmt"
	"strings"
)

// Quality gates on a task's completion (issue 30): a definition's TaskGates are commands that must
// have passed on the commit a task is completed at. `task done` runs the missing ones there and
// records each run as a validation of that commit (app/task_gates.go); the decision here only reads
// those records, so a completion whatever its road (CLI, MCP, a retry after a lost race) is refused
// without them.

// GuardTaskGatesPassed names the refusal of a task completion whose gates did not pass.
const GuardTaskGatesPassed = "task-gates-passed"

// DefaultGateTimeoutMs bounds one gate's run when the definition sets no gateTimeout.
const DefaultGateTimeoutMs = 10 * 60 * 1000

// GateTimeoutMillis is how long one of this definition's gates may run.
func (d *Definition) GateTimeoutMillis() int64 {
	if d == nil || d.GateTimeoutMs <= 0 {
		return DefaultGateTimeoutMs
	}
	return d.GateTimeoutMs
}

// LatestGateRun is the latest recorded run of command on commit sha that a gate counts: a run by
// the gates' runner (Gate: in a clean checkout of that commit, not `validate`'s run of the same
// text in a worktree whose untracked or ignored files the commit does not have) of that commit, a
// full id or a prefix of at least 7 digits.
func (s State) LatestGateRun(command, sha string) (Validation, bool) {
	for i := len(s.Validations) - 1; i >= 0; i-- {
		if v := s.Validations[i]; v.Command == command && v.Gate && !v.AdHoc && SameCommit(v.Commit, sha) {
			return v, true
		}
	}
	return Validation{}, false
}

// SameCommit reports whether two commit ids name the same commit: equal, or one a prefix (of 7
// digits or more) of the other.
func SameCommit(a, b string) bool {
	if a == "" || b == "" {
		return false
	}
	if len(a) > len(b) {
		a, b = b, a
	}
	return a == b || (len(a) >= 7 && strings.HasPrefix(b, a))
}

// TaskGateProblem says which of def's task gates lacks a passing run on head ("" when all passed),
// and whether it ran at all.
func TaskGateProblem(def *Definition, s State, head string) (gate string, ran bool, exit int) {
	if def == nil {
		return "", false, 0
	}
	for _, g := range def.TaskGates {
		run, ok := s.LatestGateRun(g, head)
		if !ok || run.ExitCode != 0 {
			return g, ok, run.ExitCode
		}
	}
	return "", false, 0
}

func taskGatesOf(def *Definition) []string {
	if def == nil || len(def.TaskGates) == 0 {
		return nil
	}
	return append([]string(nil), def.TaskGates...)
}

// taskGatesRejection refuses to complete task id at head while a task gate lacks a passing run
// there; the fix is `task done` itself, which runs the gates, once the failure is fixed and
// committed.
func taskGatesRejection(def *Definition, s State, id, head string) *Rejection {
	gate, ran, exit := TaskGateProblem(def, s, head)
	if gate == "" {
		return nil
	}
	again := fmt.Sprintf("git exarchos task done %s %s", s.Feature, id)
	f := GuardFailure{Guard: GuardTaskGatesPassed, Expected: "every task gate exiting 0 on the task's commit", Fix: again,
		Reason: fmt.Sprintf("the gate `%s` has not run on %s", gate, shortID(head))}
	if ran {
		f.Reason = fmt.Sprintf("the gate `%s` exited %d on %s", gate, exit, shortID(head))
		f.Fix = `git commit -am "fix the gate" && ` + again
	}
	return &Rejection{Code: CodeGuardFailed, Message: fmt.Sprintf("task %s stays open: its quality gates did not pass on %s", id, shortID(head)), FailedGuards: []GuardFailure{f}}
}

// taskGatesText is describe's line for the task gates and the gates' timeout ("" without gates).
func (d *Definition) taskGatesText() string {
	if len(d.TaskGates) == 0 && d.GateTimeoutMs == 0 {
		return ""
	}
	s := fmt.Sprintf("gates time out after %dms", d.GateTimeoutMillis())
	if len(d.TaskGates) > 0 {
		s = "task gates (git exarchos task done runs them on the task's commit): " + quotedList(d.TaskGates) + "; " + s
	}
	return s + "\n"
}

func quotedList(cmds []string) string {
	q := make([]string, len(cmds))
	for i, c := range cmds {
		q[i] = fmt.Sprintf("%q", c)
	}
	return strings.Join(q, ", ")
}
