// Package hooks holds the Claude Code hook handlers (hook JSON on stdin → decision JSON on stdout)
// and the git hook handlers, and the installers that merge exarchos's entries into Claude Code's
// settings files and chain existing git hooks. A hook must never break the session that runs it:
// every handler answers with the event's safe default when its input or the repository is not what
// it expects, and says why on stderr.
//
// It may import workflow, guards, mvdan.cc/sh and the internal helpers; never gitstore or gitrepo
// (the caller reads the repository and hands the facts in).
package hooks

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// Claude Code hook event names (hook_event_name).
const (
	PreToolUse  = "PreToolUse"
	PostToolUse = "PostToolUse"
	// PostToolUseFailure follows a call that failed (a Bash command's non-zero exit) instead of
	// PostToolUse.
	PostToolUseFailure = "PostToolUseFailure"
	SessionStart       = "SessionStart"
	SessionEnd         = "SessionEnd"
	PreCompact         = "PreCompact"
	Stop               = "Stop"
	SubagentStart      = "SubagentStart"
	SubagentStop       = "SubagentStop"
	UserPromptSubmit   = "UserPromptSubmit"
	TaskCompleted      = "TaskCompleted"
)

// Input is the JSON Claude Code writes on a hook's stdin. Every field is optional: events carry
// different subsets, and fields this version does not know are ignored.
type Input struct {
	SessionID      string `json:"session_id"`
	TranscriptPath string `json:"transcript_path"`
	Cwd            string `json:"cwd"`
	HookEventName  string `json:"hook_event_name"`
	PermissionMode string `json:"permission_mode"`

	// PreToolUse, PostToolUse.
	ToolName  string          `json:"tool_name"`
	ToolInput json.RawMessage `json:"tool_input"`
	ToolUseID string          `json:"tool_use_id"` // one per call: the idempotency key of what the hook records

	Source             string `json:"source"`  // SessionStart: startup | resume | clear | compact
	Trigger            string `json:"trigger"` // PreCompact: manual | auto
	CompactTrigger     string `json:"compact_trigger"`
	CustomInstructions string `json:"custom_instructions"`
	StopHookActive     bool   `json:"stop_hook_active"` // Stop, SubagentStop
	Prompt             string `json:"prompt"`           // UserPromptSubmit
	Reason             string `json:"reason"`           // SessionEnd
	AgentID            string `json:"agent_id"`         // SubagentStart, SubagentStop
	AgentType          string `json:"agent_type"`

	// TaskCompleted.
	TaskID          string `json:"task_id"`
	TaskSubject     string `json:"task_subject"`
	TaskDescription string `json:"task_description"`
	TeammateName    string `json:"teammate_name"` // TeammateIdle too
	TeamName        string `json:"team_name"`
}

// ToolInput is the part of tool_input the handlers read.
type ToolInput struct {
	FilePath     string `json:"file_path"`     // Edit, Write, MultiEdit, Read
	NotebookPath string `json:"notebook_path"` // NotebookEdit
	Command      string `json:"command"`       // Bash
	Path         string `json:"path"`          // Grep, Glob, LS
}

// maxInput bounds what is read from stdin: a hook payload is small; a runaway one is not ours.
const maxInput = 16 << 20

// ErrInputTooLarge is a hook payload over the limit.
var ErrInputTooLarge = fmt.Errorf("the hook input is over the limit of %d MiB", maxInput>>20)

// ReadInput parses a hook payload. A payload that is not a JSON object is an error; missing and
// unknown fields are not.
func ReadInput(r io.Reader) (Input, error) {
	b, err := io.ReadAll(io.LimitReader(r, maxInput+1))
	if err != nil {
		return Input{}, fmt.Errorf("read the hook input: %w", err)
	}
	if len(b) > maxInput {
		return Input{}, ErrInputTooLarge
	}
	if strings.TrimSpace(string(b)) == "" {
		return Input{}, fmt.Errorf("the hook input is empty (Claude Code sends a JSON object on stdin)")
	}
	var in Input
	if err := json.Unmarshal(b, &in); err != nil {
		return Input{}, fmt.Errorf("the hook input is not the JSON object Claude Code sends: %w", err)
	}
	return in, nil
}

// target is the file a file tool acts on.
func (t ToolInput) target() string {
	if t.FilePath != "" {
		return t.FilePath
	}
	if t.NotebookPath != "" {
		return t.NotebookPath
	}
	return t.Path
}

// Tool decodes tool_input leniently: a tool_input of another shape reads as empty.
func (in Input) Tool() ToolInput {
	var t ToolInput
	if len(in.ToolInput) > 0 {
		_ = json.Unmarshal(in.ToolInput, &t)
	}
	return t
}

// Output is the JSON a hook prints on stdout. Empty fields are left out, so the zero value (plus
// Continue) is "no opinion": Claude Code goes on as if the hook were not there.
type Output struct {
	Continue       *bool           `json:"continue,omitempty"`
	SuppressOutput bool            `json:"suppressOutput,omitempty"`
	Decision       string          `json:"decision,omitempty"` // Stop, SubagentStop: "block"
	Reason         string          `json:"reason,omitempty"`
	SystemMessage  string          `json:"systemMessage,omitempty"`
	Specific       *SpecificOutput `json:"hookSpecificOutput,omitempty"`
}

// SpecificOutput is hookSpecificOutput.
type SpecificOutput struct {
	HookEventName            string `json:"hookEventName"`
	PermissionDecision       string `json:"permissionDecision,omitempty"` // PreToolUse: allow | deny | ask
	PermissionDecisionReason string `json:"permissionDecisionReason,omitempty"`
	AdditionalContext        string `json:"additionalContext,omitempty"`
}

// NoOpinion lets Claude Code proceed as usual. It is deliberately not permissionDecision "allow",
// which would skip the user's own permission prompts.
func NoOpinion() Output {
	yes := true
	return Output{Continue: &yes, SuppressOutput: true}
}

// Deny refuses a tool call with a reason Claude reads.
func Deny(reason string) Output {
	return Output{Specific: &SpecificOutput{HookEventName: PreToolUse, PermissionDecision: "deny", PermissionDecisionReason: reason}}
}

// Context adds text to the model's context (SessionStart, SubagentStart, UserPromptSubmit).
func Context(event, text string) Output {
	if text == "" {
		return NoOpinion()
	}
	return Output{Specific: &SpecificOutput{HookEventName: event, AdditionalContext: text}}
}

// Block keeps Claude working (Stop, SubagentStop) and tells it why.
func Block(reason string) Output { return Output{Decision: "block", Reason: reason} }

// Denied reports whether the output refuses a tool call.
func (o Output) Denied() bool {
	return o.Specific != nil && o.Specific.PermissionDecision == "deny"
}

// Write prints the output as one JSON line.
func (o Output) Write(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(o)
}
