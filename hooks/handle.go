package hooks

import (
	"fmt"
	"strings"

	"github.com/exarchos/git-exarchos/workflow"
)

// Repository is what the handlers need from the repository a session works in. Package app
// implements it over the event store; tests may too.
type Repository interface {
	// Bound returns the active workflows bound to the branch checked out in the worktree that
	// encloses dir. Outside a repository, or with none bound, it returns none and no error.
	Bound(dir string) ([]Bound, error)
	// Summary says what the workflow needs to move on, with its guards checked on the repository
	// (workflow.Summary).
	Summary(w Bound) string
	// Record appends an event to the workflow's log.
	Record(w Bound, ev workflow.NewEvent) error
	// StopGuard reports whether `git config exarchos.stopGuard` is true where dir is.
	StopGuard(dir string) bool
}

// Handle answers one Claude Code hook event. It never fails: a problem is reported through warn
// (stderr) and the event gets its safe default — no opinion on a tool call, no context, no block.
func Handle(in Input, repo Repository, warn func(string)) Output {
	dir := in.Cwd
	if dir == "" {
		dir = "."
	}
	bound := func() []Bound {
		ws, err := repo.Bound(dir)
		if err != nil {
			warn(fmt.Sprintf("cannot read the workflow bound to %s: %v", dir, err))
			return nil
		}
		return ws
	}
	switch in.HookEventName {
	case PreToolUse:
		ti := in.Tool()
		if in.ToolName == "Bash" {
			if reason := CheckBash(ti.Command); reason != "" {
				return Deny(reason)
			}
		}
		if !policed(in.ToolName) {
			return NoOpinion()
		}
		for _, w := range bound() {
			if reason := CheckTool(w, in.ToolName, ti, dir); reason != "" {
				return Deny(reason)
			}
		}
		return NoOpinion()

	case SessionStart, SubagentStart:
		var docs []string
		for _, w := range bound() {
			docs = append(docs, ContextDocument(w, repo.Summary(w)))
		}
		return Context(in.HookEventName, clip(strings.Join(docs, "\n"), MaxContext*max(1, len(docs))))

	case PreCompact:
		trigger := in.Trigger
		if trigger == "" {
			trigger = in.CompactTrigger
		}
		for _, w := range bound() {
			record(repo, w, warn, workflow.EventHookCheckpoint, workflow.CheckpointData{
				Phase: w.State.Phase, OpenTasks: openTasks(w.State), SessionID: in.SessionID, Trigger: trigger,
			})
		}
		return NoOpinion()

	case Stop, SubagentStop:
		// stop_hook_active: Claude is already continuing because of a stop hook. Blocking again
		// could keep it going forever; one reminder per stop is enough.
		if in.StopHookActive || !repo.StopGuard(dir) {
			return NoOpinion()
		}
		var remaining []string
		for _, w := range bound() {
			if NeedsAgent(w) {
				remaining = append(remaining, strings.TrimSpace(repo.Summary(w)))
			}
		}
		if len(remaining) == 0 {
			return NoOpinion()
		}
		return Block(clip("git exarchos: the workflow still needs your work before you stop (git config exarchos.stopGuard is on):\n"+strings.Join(remaining, "\n"), MaxContext))

	case SessionEnd:
		for _, w := range bound() {
			record(repo, w, warn, workflow.EventHookSessionEnded, workflow.SessionEndedData{Phase: w.State.Phase, SessionID: in.SessionID, Reason: in.Reason})
		}
		return NoOpinion()

	case TaskCompleted:
		for _, w := range bound() {
			record(repo, w, warn, workflow.EventHookTaskCompleted, workflow.HookTaskData{
				Phase: w.State.Phase, SessionID: in.SessionID, TaskID: in.TaskID, Subject: in.TaskSubject,
				Description: in.TaskDescription, Teammate: in.TeammateName,
			})
		}
		return NoOpinion()

	case PostToolUse, UserPromptSubmit:
		return NoOpinion()

	case "":
		warn("the hook input has no hook_event_name: nothing to do")
		return NoOpinion()
	}
	warn(fmt.Sprintf("hook event %q is not one git exarchos handles: nothing to do", in.HookEventName))
	return NoOpinion()
}

func record(repo Repository, w Bound, warn func(string), typ string, data any) {
	if err := repo.Record(w, workflow.NewEvent{Type: typ, Data: data}); err != nil {
		warn(fmt.Sprintf("could not record %s on workflow %s: %v", typ, w.Feature, err))
	}
}

// openTasks are the tasks neither completed nor failed.
func openTasks(s workflow.State) []workflow.Task {
	out := []workflow.Task{}
	for _, t := range s.Tasks {
		if t.Status != workflow.TaskCompleted && t.Status != workflow.TaskFailed {
			out = append(out, t)
		}
	}
	return out
}
