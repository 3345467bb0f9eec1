package hooks

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/exarchos/git-exarchos/workflow"
)

// Repository is what the handlers need from the repository a session works in. Package app
// implements it over the event store; tests may too.
type Repository interface {
	// Session returns the active workflows the session works on: the ones its first call bound it
	// to (recorded as hook.session-bound events), whatever branch, directory or worktree later calls
	// report; else the ones bound to the branch checked out where dir is, binding the session to
	// them. Outside a repository, or with none bound, it returns none and no error. An error means
	// the hook cannot tell, and policed calls are refused (fail closed).
	Session(in Input, dir string) ([]Bound, error)
	// Shell is what CheckBash needs to know about the repository enclosing dir: the directories no
	// command may write, and how to resolve the repository's git aliases.
	Shell(dir string) BashContext
	// Changes lists what differs from the phase's start: the working tree and the index against
	// HEAD (untracked files included, ignored ones not), and the files the branch changed since
	// it left its base.
	Changes(w Bound) ([]Change, error)
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
	// StopGuard reports whether the rules (stopGuard in .exarchos/config.yaml on the base branch)
	// turn the stop guard on where dir is.
	StopGuard(dir string) bool
	// Notes says what a new session must know besides the workflow (Bound.Notes).
	Notes(w Bound) []string
	// Controls says, after a tool call, what it changed of what the agent must not change (Claude
	// Code's hook settings, git's hooks and configuration, a workflow ref moved outside git
	// exarchos), with the exact undo; "" when nothing. It must be cheap: it runs on every call.
	Controls(dir string) string
	// Held says why the workflow is held (its ref was moved outside git exarchos and neither
	// restored nor accepted by a human), or "".
	Held(w Bound) string
}

// Change is one path that differs: in the working tree, the index, untracked, or on the branch.
type Change struct {
	Path  string `json:"path"`
	Where string `json:"where"` // worktree | index | untracked | branch
}

// Handle answers one Claude Code hook event. It never fails: a problem is reported through warn
// (stderr) and the event gets its safe default — except where the hook polices tools: when it
// cannot tell which workflow the session works on, or what a call changed, it refuses every tool
// that may change something (fails closed) with the reason and the repair.
func Handle(in Input, repo Repository, warn func(string)) Output {
	dir := in.Cwd
	if dir == "" {
		dir = "."
	}
	bound := func() []Bound {
		ws, err := repo.Session(in, dir)
		if err != nil {
			warn(fmt.Sprintf("cannot read the workflow bound to %s: %v", dir, err))
			return nil
		}
		return ws
	}
	switch in.HookEventName {
	case PreToolUse:
		ws, err := repo.Session(in, dir)
		if err == nil {
			err = undefined(ws)
		}
		if err != nil {
			if !canWrite(in.ToolName) {
				// The policed tools are the ones that may change something: a read-only tool lifts
				// no rule, so it passes (the agent can look at what is wrong), and the repair is said.
				warn(failClosed(in.ToolName, err))
				return NoOpinion()
			}
			return Deny(failClosed(in.ToolName, err))
		}
		if canWrite(in.ToolName) {
			for _, w := range ws {
				if reason := repo.Held(w); reason != "" {
					recordDenial(repo, w, warn, in, in.ToolName, "held", reason)
					return Deny(reason)
				}
			}
		}
		ti := in.Tool()
		if slices.Contains(workflow.FileWriteTools, in.ToolName) {
			ti = ti.followSymlinks(absDir(dir)) // judged as the file really written (symlink.go)
		}
		ctx := repo.Shell(dir)
		ctx.Cwd, ctx.Waiting = absDir(dir), waitingOn(ws)
		reason, kind, subject := "", "", ""
		switch {
		case in.ToolName == "Bash":
			reason, kind, subject = CheckBash(ti.Command, ctx), "bash", ti.Command
		case slices.Contains(workflow.FileWriteTools, in.ToolName):
			if t := ti.target(); ProtectedPath(t, ctx.Cwd, ctx.Protected) {
				reason, kind, subject = reasonProtected(t), "protected", t
			}
		}
		if reason != "" {
			for _, w := range ws {
				recordDenial(repo, w, warn, in, subject, kind, reason)
			}
			return Deny(reason)
		}
		return preToolUse(in, ti, dir, ws, repo, warn)

	case PostToolUse:
		if !canWrite(in.ToolName) {
			return NoOpinion()
		}
		ws, err := repo.Session(in, dir)
		if err == nil {
			err = undefined(ws)
		}
		if err != nil {
			return Block(failClosed(in.ToolName, err))
		}
		if reason := repo.Controls(dir); reason != "" {
			for _, w := range ws {
				recordDenial(repo, w, warn, in, in.ToolName, "controls", reason)
			}
			return Block(reason)
		}
		for _, w := range ws {
			if reason := judgeEffects(w, repo); reason != "" {
				recordDenial(repo, w, warn, in, in.ToolName, "effects", reason)
				return Block(reason)
			}
		}
		return NoOpinion()

	case SessionStart, SubagentStart:
		ws, err := repo.Session(in, dir)
		if err != nil {
			// The session starts knowing why its tools will be refused, and what repairs it.
			warn(fmt.Sprintf("cannot read the workflow bound to %s: %v", dir, err))
			return Context(in.HookEventName, clip(failClosed("", err), MaxContext))
		}
		var docs []string
		if in.HookEventName == SessionStart {
			// The controls' baseline is taken here when no call took it before, so a change made
			// by the session's first tool call is seen; one found already is said at once.
			if reason := repo.Controls(dir); reason != "" {
				docs = append(docs, reason)
			}
		}
		for _, w := range ws {
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
				Phase: w.State.Phase, OpenTasks: w.State.OpenTasks(), SessionID: in.SessionID, Trigger: trigger,
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
		return Block(clip("git exarchos: the workflow still needs your work before you stop (stopGuard is on in .exarchos/config.yaml):\n"+strings.Join(remaining, "\n"), MaxContext))

	case SessionEnd:
		for _, w := range bound() {
			record(repo, w, warn, workflow.EventHookSessionEnded, workflow.SessionEndedData{Phase: w.State.Phase, SessionID: in.SessionID, Reason: in.Reason})
		}
		return NoOpinion()

	case TaskCompleted:
		ws := bound()
		for _, w := range ws {
			record(repo, w, warn, workflow.EventHookTaskCompleted, workflow.HookTaskData{
				Phase: w.State.Phase, SessionID: in.SessionID, TaskID: in.TaskID, Subject: in.TaskSubject,
				Description: in.TaskDescription, Teammate: in.TeammateName,
			})
		}
		return taskCompleted(in, ws)

	case TeammateIdle:
		return teammateIdle(in, bound())

	case UserPromptSubmit:
		return NoOpinion()

	case PostToolUseFailure:
		return NoOpinion() // the caller's ticket is dropped by the CLI (hookrun/caller.go)

	case "":
		warn("the hook input has no hook_event_name: nothing to do")
		return NoOpinion()
	}
	warn(fmt.Sprintf("hook event %q is not one git exarchos handles: nothing to do", in.HookEventName))
	return NoOpinion()
}

// Failed is the answer when the handler itself failed (a panic, no answer in time): tool calls
// are refused or blocked, other events get their safe default.
func Failed(in Input, why string) Output {
	reason := "git exarchos: the hook failed (" + why + "), and a failed check must not let a call through. " +
		"Try again; if it persists, ask the user to run git exarchos hooks status and git exarchos fsck."
	switch in.HookEventName {
	case PreToolUse:
		return Deny(reason)
	case PostToolUse:
		return Block(reason)
	}
	return NoOpinion()
}

// failClosed is the refusal when the hook cannot read the workflow the session works on.
func failClosed(tool string, err error) string {
	return fmt.Sprintf("git exarchos: the hook cannot read the workflow this session works on (%v), so it refuses %s "+
		"until it can: a broken read must not lift the workflow's rules. Stop and ask the user to repair it in their own "+
		"terminal: `git exarchos fsck` names what is wrong and how to fix it; `git exarchos hooks release --session <id>` "+
		"releases the session from its workflow.", err, orTool(tool))
}

func orTool(tool string) string {
	if tool == "" {
		return "the call"
	}
	return tool
}

// undefined is an error when a bound workflow's type has no definition (not on the base branch):
// the hook cannot tell what its phase allows.
func undefined(ws []Bound) error {
	for _, w := range ws {
		if w.Def == nil {
			return fmt.Errorf("workflow %s is of type %s, which the base branch does not define", w.Feature, w.State.Type)
		}
	}
	return nil
}

// waitingOn names the first workflow that waits on a human, or "".
func waitingOn(ws []Bound) string {
	for _, w := range ws {
		if w.Def != nil && !w.Def.IsFinal(w.State.Phase) && !NeedsAgent(w) {
			return w.Feature
		}
	}
	return ""
}

func absDir(dir string) string {
	if a, err := filepath.Abs(dir); err == nil {
		return a
	}
	return dir
}

// readOnlyTools change nothing: PostToolUse does not look after them. Every other tool (Bash, the
// file tools, MCP tools, tools this version does not know) may have written something.
var readOnlyTools = []string{"Read", "Grep", "Glob", "LS", "WebFetch", "WebSearch", "TodoWrite", "TodoRead",
	"NotebookRead", "ExitPlanMode", "AskUserQuestion", "ListMcpResourcesTool", "ReadMcpResourceTool", "BashOutput",
	"ToolSearch", "TaskCreate", "TaskUpdate", "TaskList", "TaskGet"}

func canWrite(tool string) bool { return tool != "" && !slices.Contains(readOnlyTools, tool) }

// preToolUse applies each bound workflow's envelope. Allowed calls write only when the phase
// counts turns or a grant is consumed; every write carries the tool_use_id as its idempotency key,
// so a payload delivered twice is counted once.
func preToolUse(in Input, ti ToolInput, dir string, ws []Bound, repo Repository, warn func(string)) Output {
	for _, w := range ws {
		if slices.Contains(fileTools, in.ToolName) {
			// A file is judged by the worktree that holds it (a scratch worktree, a task worktree).
			if root := enclosingWorktree(ti.target(), dir); root != "" {
				w.Root = root
			}
		}
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
				// A call that cannot be counted (a stale lock, a full disk) would escape the turn
				// cap, and a grant that cannot be consumed would be used twice: refuse instead.
				reason := fmt.Sprintf("git exarchos: the hook could not record this call on workflow %s (%v), and a call it "+
					"cannot count must not pass the phase's turn cap or use a grant. Stop and ask the user to repair it in "+
					"their own terminal (a stale lock: remove the .lock file named above once no git exarchos command runs).", w.Feature, err)
				recordDenial(repo, w, warn, in, v.Subject, "record", reason)
				return Deny(reason)
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
