package hooks

import (
	"fmt"
	"strings"

	"github.com/exarchos/git-exarchos/workflow"
)

// Claude Code's own task list (TaskCreate, TaskUpdate) and agent teams (TeammateIdle, with
// CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS) are not the workflow's: a Claude task completes when the
// model says so, the workflow's task when `task done` found its commit and its task gates passed.
// Where the two name the same task, the hook holds the client to the workflow: a Claude task
// marked completed while its workflow task is open is refused (TaskCompleted), and a teammate
// whose workflow task is open is not let go idle (TeammateIdle). Both answer with decision
// "block" and the reason, which the client feeds back to the model (TaskUpdate fails with it; the
// teammate goes on working). A Claude task or a teammate that names no workflow task is left
// alone. Only the bound workflows' states are read: no git process.

// TeammateIdle fires when an agent team's teammate is about to go idle.
const TeammateIdle = "TeammateIdle"

// namedTask is the workflow task a Claude task's subject names: its id as the subject's first
// word ("t1: the store", "[t1] store", "#t1 …"), or its title as the whole subject.
func namedTask(s workflow.State, subject string) (workflow.Task, bool) {
	first := strings.FieldsFunc(strings.ToLower(subject), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-')
	})
	for _, t := range s.Tasks {
		if len(first) > 0 && first[0] == strings.ToLower(t.ID) || t.Title != "" && strings.EqualFold(strings.TrimSpace(subject), strings.TrimSpace(t.Title)) {
			return t, true
		}
	}
	return workflow.Task{}, false
}

// teammateTask is the workflow task a teammate is assigned by its name: the task's id, alone or
// as a word of the name split at - and _ ("t1", "impl-t1", "t1_reviewer").
func teammateTask(s workflow.State, name string) (workflow.Task, bool) {
	words := strings.FieldsFunc(strings.ToLower(name), func(r rune) bool { return r == '-' || r == '_' || r == ' ' || r == '@' })
	for _, t := range s.Tasks {
		id := strings.ToLower(t.ID)
		if strings.EqualFold(name, t.ID) {
			return t, true
		}
		for _, w := range words {
			if w == id {
				return t, true
			}
		}
	}
	return workflow.Task{}, false
}

// open says why a workflow task is not done, or "" when it is (completed, or failed with its
// reason: a failure is an end the workflow records too).
func open(w Bound, t workflow.Task) string {
	switch t.Status {
	case workflow.TaskCompleted, workflow.TaskFailed:
		return ""
	case workflow.TaskPending:
		return fmt.Sprintf("workflow %s's task %s is not started, let alone done", w.Feature, t.ID)
	}
	return fmt.Sprintf("workflow %s's task %s is in progress: its work is not recorded as done (no `task done` found its commit with the task gates passed)", w.Feature, t.ID)
}

func taskCompleted(in Input, bound []Bound) Output {
	return holdTo(bound, func(s workflow.State) (workflow.Task, bool) { return namedTask(s, in.TaskSubject) }, func(w Bound, t workflow.Task, why string) string {
		return fmt.Sprintf("git exarchos: Claude task %q names %s, and %s. Commit the work, then run `git exarchos task done %s %s` (it runs the task gates on the commit); mark the Claude task completed once that passed, or `git exarchos task fail %s %s --reason …` if it cannot be done.",
			in.TaskSubject, t.ID, why, w.Feature, t.ID, w.Feature, t.ID)
	})
}

func teammateIdle(in Input, bound []Bound) Output {
	return holdTo(bound, func(s workflow.State) (workflow.Task, bool) { return teammateTask(s, in.TeammateName) }, func(w Bound, t workflow.Task, why string) string {
		return fmt.Sprintf("git exarchos: teammate %s is assigned %s, and %s. Go on: commit the work and run `git exarchos task done %s %s`, or `git exarchos task fail %s %s --reason …` if it cannot be done.",
			in.TeammateName, t.ID, why, w.Feature, t.ID, w.Feature, t.ID)
	})
}

// holdTo blocks, with say's reason, when a bound workflow's task that find names is open.
func holdTo(bound []Bound, find func(workflow.State) (workflow.Task, bool), say func(Bound, workflow.Task, string) string) Output {
	for _, w := range bound {
		if t, ok := find(w.State); ok {
			if why := open(w, t); why != "" {
				return Block(clip(say(w, t, why), MaxContext))
			}
		}
	}
	return NoOpinion()
}
