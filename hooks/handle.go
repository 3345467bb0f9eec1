package hooks

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

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
	// Record appends events to the workflow's log, in one commit. When recheck is not nil it runs
	// on the state the write builds on (after any concurrent write won): a non-empty answer is a
	// denial, returned with nothing written. That is what keeps two concurrent calls from both
	// taking the last turn of a budget or both consuming one grant.
	Record(w Bound, recheck func(workflow.State) string, evs ...workflow.NewEvent) (denied string, err error)
	// RecordLater keeps an audit-only event (a denial) to be appended by the next write to the
	// workflow: a denial must stay as cheap as the answer itself. ev.ID is set.
	RecordLater(w Bound, ev workflow.NewEvent) error
	// Defines reports whether the repository enclosing dir defines workflow types of its own
	// (.exarchos/workflows): their envelopes may restrict any tool, so every call is looked up.
	// It must be cheap: it runs on every tool call the built-in envelopes do not restrict.
	Defines(dir string) bool
	// StopGuard reports whether `git config exarchos.stopGuard` is true where dir is.
	StopGuard(dir string) bool
	// Notes says what a new session must know besides the workflow (Bound.Notes).
	Notes(w Bound) []string
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
				for _, w := range bound() {
					recordDenial(repo, w, warn, in, ti.Command, "bash", reason)
				}
				return Deny(reason)
			}
		}
		if !policed(in.ToolName) && !repo.Defines(dir) {
			return NoOpinion()
		}
		return preToolUse(in, ti, dir, bound(), repo, warn)

	case SessionStart, SubagentStart:
		var docs []string
		for _, w := range bound() {
			w.Notes = repo.Notes(w)
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

// preToolUse applies each bound workflow's envelope. Allowed calls write only when the phase
// counts turns or a grant is consumed; every write carries the tool_use_id as its idempotency key,
// so a payload delivered twice is counted once.
func preToolUse(in Input, ti ToolInput, dir string, ws []Bound, repo Repository, warn func(string)) Output {
	for _, w := range ws {
		v := Check(w, in.ToolName, ti, dir)
		if v.Deny != "" {
			recordDenial(repo, w, warn, in, v.Subject, v.Kind, v.Deny)
			return Deny(v.Deny)
		}
		var evs []workflow.NewEvent
		if v.Grant != nil {
			evs = append(evs, workflow.NewEvent{Type: workflow.EventGrantConsumed, ID: key("grant", in, w),
				Data: workflow.GrantUseData{Grant: v.Grant.ID, Tool: in.ToolName, Subject: v.Subject, ToolUseID: in.ToolUseID}})
		}
		if v.Count {
			evs = append(evs, workflow.NewEvent{Type: workflow.EventToolCalled, ID: key("turn", in, w),
				Data: workflow.ToolCallData{Phase: w.State.Phase, Tool: in.ToolName, Subject: truncate(v.Subject, 200), ToolUseID: in.ToolUseID, SessionID: in.SessionID}})
		}
		if len(evs) > 0 {
			recheck := func(fresh workflow.State) string {
				now := w
				now.State = fresh
				return Check(now, in.ToolName, ti, dir).Deny
			}
			denied, err := repo.Record(w, recheck, evs...)
			if err != nil {
				warn(fmt.Sprintf("could not record the tool call on workflow %s: %v", w.Feature, err))
			}
			if denied != "" {
				return Deny(denied)
			}
		}
	}
	return NoOpinion()
}

// key is the idempotency key of what one tool call records on one workflow, or "" (a fresh id)
// when the payload has no tool_use_id.
func key(what string, in Input, w Bound) string {
	if in.ToolUseID == "" {
		return ""
	}
	return "hook:" + what + ":" + w.State.Phase + ":" + in.ToolUseID
}

func recordDenial(repo Repository, w Bound, warn func(string), in Input, subject, kind, reason string) {
	id := key("denied", in, w)
	if id == "" {
		var r [12]byte
		_, _ = rand.Read(r[:])
		id = "hook:denied:" + hex.EncodeToString(r[:])
	}
	ev := workflow.NewEvent{Type: workflow.EventToolDenied, ID: id, Data: workflow.ToolCallData{
		Phase: w.State.Phase, Tool: in.ToolName, Subject: truncate(subject, 200), ToolUseID: in.ToolUseID, SessionID: in.SessionID,
		Kind: kind, Reason: truncate(reason, 1500), At: time.Now().UTC().Format(time.RFC3339Nano)}}
	if err := repo.RecordLater(w, ev); err != nil {
		warn(fmt.Sprintf("could not record the denial on workflow %s: %v", w.Feature, err))
	}
}

func record(repo Repository, w Bound, warn func(string), typ string, data any) {
	if _, err := repo.Record(w, nil, workflow.NewEvent{Type: typ, Data: data}); err != nil {
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

// truncate cuts s to at most n bytes (on a rune boundary) for the log.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
