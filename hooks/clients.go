package hooks

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"
)

// The agent clients `git exarchos hook <client>` answers. Each speaks its own hook protocol; the
// adapter below maps its events, tool names and payloads onto Claude Code's (Input), so one
// Handle decides for all of them, and writes the decision back in the client's shape
// (Output.WriteFor). docs/clients.md says what each client can and cannot report.
const (
	ClientClaude  = "claude"
	ClientCodex   = "codex"
	ClientGemini  = "gemini"
	ClientQwen    = "qwen"
	ClientCopilot = "copilot"
	// ClientOpencode is opencode, whose hooks are a JavaScript plugin (OpencodePlugin) that sends
	// each call to `git-exarchos hook opencode` in Claude Code's payload with opencode's names.
	ClientOpencode = "opencode"
)

// Clients lists the clients in the order the docs and `hooks status` name them.
var Clients = []string{ClientClaude, ClientCodex, ClientGemini, ClientQwen, ClientCopilot, ClientOpencode}

// IsClient reports whether name is one of Clients.
func IsClient(name string) bool {
	for _, c := range Clients {
		if c == name {
			return true
		}
	}
	return false
}

// clientEvents maps a client's own event names onto Claude Code's; a client not listed (Codex,
// Qwen Code) uses Claude Code's names.
var clientEvents = map[string]map[string]string{
	// Gemini CLI (0.61): AfterAgent fires once per turn after the final answer; its deny retries
	// the turn with the reason as the prompt, as Claude Code's Stop block does. PreCompress is not
	// PreCompact: it fires before every model turn, before the client checks whether to compress
	// (seen in e2e/gemini_test.go), so it is neither mapped nor installed.
	ClientGemini: {"BeforeTool": PreToolUse, "AfterTool": PostToolUse, "SessionStart": SessionStart,
		"SessionEnd": SessionEnd, "AfterAgent": Stop},
	// Copilot CLI (1.0.x), camelCase events; its PascalCase events send Claude Code's payload.
	ClientCopilot: {"preToolUse": PreToolUse, "postToolUse": PostToolUse, "sessionStart": SessionStart,
		"sessionEnd": SessionEnd, "agentStop": Stop, "subagentStop": SubagentStop, "userPromptSubmitted": UserPromptSubmit},
	// opencode's plugin hooks (OpencodePlugin names them in hook_event_name).
	ClientOpencode: {"tool.execute.before": PreToolUse, "tool.execute.after": PostToolUse, "session.created": SessionStart},
}

// clientTools maps a client's tool names onto Claude Code's, so a phase's envelope (written in
// Claude Code's names: workflow.FileWriteTools, workflow.ReadOnlyTools) judges every client's
// tools alike. A tool not listed keeps its name: an unknown tool is policed (refused where the
// phase allows a list of tools), never waved through.
var clientTools = map[string]map[string]string{
	ClientGemini: {"run_shell_command": "Bash", "write_file": "Write", "replace": "Edit", "read_file": "Read",
		"read_many_files": "Read", "glob": "Glob", "search_file_content": "Grep", "grep_search": "Grep",
		"list_directory": "LS", "web_fetch": "WebFetch", "google_web_search": "WebSearch", "write_todos": "TodoWrite"},
	ClientQwen: {"run_shell_command": "Bash", "write_file": "Write", "edit": "Edit", "replace": "Edit", "read_file": "Read",
		"read_many_files": "Read", "glob": "Glob", "grep_search": "Grep", "list_directory": "LS",
		"web_fetch": "WebFetch", "web_search": "WebSearch", "todo_write": "TodoWrite"},
	ClientCopilot: {"bash": "Bash", "create": "Write", "edit": "Edit", "str_replace_editor": "Edit", "view": "Read",
		"glob": "Glob", "grep": "Grep", "web_fetch": "WebFetch", "read_bash": "BashOutput", "list_bash": "BashOutput"},
	// opencode: patch and apply_patch carry a patch in Codex's format (patchText), judged by its files.
	ClientOpencode: {"bash": "Bash", "write": "Write", "edit": "Edit", "multiedit": "MultiEdit", "read": "Read", "glob": "Glob",
		"grep": "Grep", "list": "LS", "webfetch": "WebFetch", "todowrite": "TodoWrite", "todoread": "TodoRead", "patch": "apply_patch"},
}

// copilotInput is Copilot CLI's camelCase payload.
type copilotInput struct {
	SessionID  string          `json:"sessionId"`
	Cwd        string          `json:"cwd"`
	ToolName   string          `json:"toolName"`
	ToolArgs   json.RawMessage `json:"toolArgs"` // the object (1.0.102 sends it), or a JSON string holding it (its docs)
	Source     string          `json:"source"`
	Reason     string          `json:"reason"`
	StopActive bool            `json:"stopHookActive"`
}

// ClientCall is one client's hook call read into Claude Code's terms: Inputs holds one Input,
// or one per file for a Codex patch that touches several (each judged; the first refusal wins).
// Event is the client's own event name, which its answer carries.
type ClientCall struct {
	Client string
	Event  string
	Inputs []Input
}

// ReadClientInput reads one client's hook payload. event is the event named on the command line
// (Copilot's camelCase payload does not name it); getenv reads the hook's environment (a Copilot
// payload without a session id is bound by COPILOT_AGENT_SESSION_ID).
func ReadClientInput(client, event string, r io.Reader, getenv func(string) string) (ClientCall, error) {
	if !IsClient(client) {
		return ClientCall{}, fmt.Errorf("unknown agent client %q: use one of %s", client, strings.Join(Clients, ", "))
	}
	b, err := io.ReadAll(io.LimitReader(r, maxInput+1))
	if err != nil {
		return ClientCall{}, fmt.Errorf("read the hook input: %w", err)
	}
	in, err := ReadInput(bytes.NewReader(b))
	if err != nil {
		return ClientCall{}, err
	}
	if client == ClientClaude {
		return ClientCall{Client: client, Event: in.HookEventName, Inputs: []Input{in}}, nil
	}
	if client == ClientCopilot {
		// camelCase events send camelCase fields; what Claude Code's names left empty is read here.
		var c copilotInput
		_ = json.Unmarshal(b, &c) // ReadInput parsed it: a JSON object
		in.SessionID, in.Cwd, in.ToolName = cmp.Or(in.SessionID, c.SessionID), cmp.Or(in.Cwd, c.Cwd), cmp.Or(in.ToolName, c.ToolName)
		in.Source, in.Reason, in.StopHookActive = cmp.Or(in.Source, c.Source), cmp.Or(in.Reason, c.Reason), in.StopHookActive || c.StopActive
		if len(in.ToolInput) == 0 && len(c.ToolArgs) > 0 {
			in.ToolInput = c.ToolArgs
			var s string
			if json.Unmarshal(c.ToolArgs, &s) == nil {
				in.ToolInput = json.RawMessage(s)
			}
		}
		if in.SessionID == "" && getenv != nil {
			in.SessionID = getenv("COPILOT_AGENT_SESSION_ID")
		}
	}
	call := ClientCall{Client: client, Event: in.HookEventName}
	if call.Event == "" {
		call.Event = event
	}
	in.HookEventName = call.Event
	if ev, ok := clientEvents[client][call.Event]; ok {
		in.HookEventName = ev
	}
	if tool, ok := clientTools[client][in.ToolName]; ok {
		in.ToolName = tool
	}
	if client == ClientGemini && strings.HasPrefix(in.ToolName, "mcp_exarchos_") {
		in.ToolName = "mcp__exarchos__" + strings.TrimPrefix(in.ToolName, "mcp_exarchos_")
	}
	if in.ToolName == "Bash" {
		in.ToolInput = shellCommand(in.ToolInput)
	}
	if client == ClientOpencode {
		in.ToolInput = opencodeArgs(in.ToolInput)
	}
	if (client == ClientCodex || client == ClientOpencode) && in.ToolName == "apply_patch" {
		call.Inputs = patchInputs(in, "")
		return call, nil
	}
	if client == ClientCodex && in.ToolName == "Bash" && isPatchCommand(in.ToolInput) {
		// Codex (0.171) runs `apply_patch <<'EOF' … EOF` given to its shell tool as a patch, the
		// hook seeing a Bash call: each file of the patch is judged (in the directory a leading
		// `cd` moves to), then the command itself.
		call.Inputs = append(patchInputs(in, patchDir(in.ToolInput)), in)
		return call, nil
	}
	call.Inputs = []Input{in}
	return call, nil
}

// opencodeArgs gives opencode's file tools' arguments Claude Code's key: filePath is file_path.
func opencodeArgs(raw json.RawMessage) json.RawMessage {
	var args map[string]json.RawMessage
	if json.Unmarshal(raw, &args) != nil || args["filePath"] == nil || args["file_path"] != nil {
		return raw
	}
	args["file_path"] = args["filePath"]
	b, err := json.Marshal(args)
	if err != nil {
		return raw
	}
	return b
}

// shellCommand gives a shell call's tool_input a command string: Codex may send the command as
// argv (["bash", "-lc", "script"]), which is read as the script it runs.
func shellCommand(raw json.RawMessage) json.RawMessage {
	var t struct {
		Command []string `json:"command"`
	}
	if json.Unmarshal(raw, &t) != nil || len(t.Command) == 0 {
		return raw
	}
	cmd := strings.Join(t.Command, " ")
	if n := len(t.Command); n >= 3 && (t.Command[n-2] == "-lc" || t.Command[n-2] == "-c") {
		cmd = t.Command[n-1]
	}
	b, _ := json.Marshal(map[string]string{"command": cmd})
	return b
}

// patchInputs turns a Codex apply_patch call into one file-tool call per path its patch names
// (an added file is a Write, an updated, deleted or moved one an Edit), so each is judged as
// Claude Code's file tools are. A patch whose paths cannot be read stays apply_patch, which a
// phase that lists its tools refuses.
// dir is the directory the patch is applied in, relative to the call's cwd ("" for the cwd).
func patchInputs(in Input, dir string) []Input {
	var out []Input
	for _, f := range PatchFiles(patchText(in.ToolInput)) {
		one := in
		one.ToolName = "Edit"
		if f.Added {
			one.ToolName = "Write"
		}
		path := f.Path
		if dir != "" && !filepath.IsAbs(path) {
			path = filepath.Join(dir, path)
			if !filepath.IsAbs(path) && in.Cwd != "" {
				path = filepath.Join(in.Cwd, path)
			}
		}
		one.ToolInput, _ = json.Marshal(map[string]string{"file_path": path})
		out = append(out, one)
	}
	if len(out) == 0 {
		return []Input{in}
	}
	return out
}

// isPatchCommand reports whether a shell call's command runs Codex's apply_patch on a patch.
func isPatchCommand(raw json.RawMessage) bool {
	var t struct {
		Command string `json:"command"`
	}
	_ = json.Unmarshal(raw, &t)
	return strings.Contains(t.Command, "*** Begin Patch") && (strings.Contains(t.Command, "apply_patch") || strings.Contains(t.Command, "applypatch"))
}

// patchDir is the directory a shell command's apply_patch runs in, from the `cd <dir>` commands
// run before it (chained with &&, ; or a new line; "" when none): a patch's paths are that
// directory's.
func patchDir(raw json.RawMessage) string {
	var t struct {
		Command string `json:"command"`
	}
	_ = json.Unmarshal(raw, &t)
	dir := ""
	for _, part := range strings.Split(strings.NewReplacer(";", "&&", "\n", "&&").Replace(t.Command), "&&") {
		f := strings.Fields(part)
		if len(f) == 0 {
			continue
		}
		if f[0] == "apply_patch" || f[0] == "applypatch" {
			break
		}
		if f[0] == "cd" && len(f) == 2 {
			d := strings.Trim(f[1], `'"`)
			if filepath.IsAbs(d) {
				dir = d
			} else {
				dir = filepath.Join(dir, d)
			}
		}
	}
	return dir
}

// patchText finds the patch in apply_patch's tool_input, whatever key holds it (the text itself,
// "input", "patch", or argv ["apply_patch", "<patch>"]).
func patchText(raw json.RawMessage) string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return ""
	}
	var find func(any) string
	find = func(v any) string {
		switch t := v.(type) {
		case string:
			if strings.Contains(t, "*** Begin Patch") {
				return t
			}
		case []any:
			for _, e := range t {
				if s := find(e); s != "" {
					return s
				}
			}
		case map[string]any:
			for _, e := range t {
				if s := find(e); s != "" {
					return s
				}
			}
		}
		return ""
	}
	return find(v)
}

// PatchFile is one file a Codex patch writes.
type PatchFile struct {
	Path  string
	Added bool
}

// PatchFiles lists the files a Codex patch (*** Begin Patch … *** End Patch) writes: added,
// updated, deleted, and the destination of a move.
func PatchFiles(patch string) []PatchFile {
	var out []PatchFile
	for _, line := range strings.Split(patch, "\n") {
		line = strings.TrimRight(line, "\r")
		for _, p := range []struct {
			prefix string
			added  bool
		}{{"*** Add File: ", true}, {"*** Update File: ", false}, {"*** Delete File: ", false}, {"*** Move to: ", true}} {
			if path, ok := strings.CutPrefix(line, p.prefix); ok && strings.TrimSpace(path) != "" {
				out = append(out, PatchFile{Path: strings.TrimSpace(path), Added: p.added})
			}
		}
	}
	return out
}

// HandleCall answers a client's call: each of its inputs is handled, and the first refusal or
// block is the answer (a patch is refused when any file it writes is).
func HandleCall(call ClientCall, repo Repository, warn func(string)) Output {
	var out Output
	for i, in := range call.Inputs {
		out = Handle(in, repo, warn)
		if out.Denied() || out.Decision == "block" || i == len(call.Inputs)-1 {
			break
		}
	}
	return out
}

// WriteFor prints the output in the shape the client reads, for its event.
func (o Output) WriteFor(client, event string, w io.Writer) error {
	reason, context := "", ""
	if o.Specific != nil {
		reason, context = o.Specific.PermissionDecisionReason, o.Specific.AdditionalContext
	}
	var v any
	switch client {
	case ClientCodex:
		// Codex (0.171) rejects suppressOutput on tool events, and a deny without a reason.
		o.SuppressOutput, o.Continue = false, nil
		v = o
	case ClientGemini:
		switch {
		case o.Denied():
			v = map[string]string{"decision": "deny", "reason": reason}
		case o.Decision == "block" && event == "AfterTool":
			// AfterTool's deny would replace the tool's result; the reason is added to it instead,
			// as Claude Code adds a PostToolUse block's reason.
			v = map[string]any{"hookSpecificOutput": map[string]string{"hookEventName": event, "additionalContext": o.Reason}}
		case o.Decision == "block":
			v = map[string]string{"decision": "deny", "reason": o.Reason}
		case context != "":
			v = map[string]any{"hookSpecificOutput": map[string]string{"hookEventName": event, "additionalContext": context}}
		default:
			v = struct{}{}
		}
	case ClientCopilot:
		if _, camel := clientEvents[ClientCopilot][event]; !camel {
			return o.Write(w) // its PascalCase events read Claude Code's answer
		}
		switch {
		case o.Denied():
			v = map[string]string{"permissionDecision": "deny", "permissionDecisionReason": reason}
		case o.Decision == "block":
			// agentStop and postToolUse read decision and reason: postToolUse's block reaches the
			// model as the tool's result (1.0.102, seen in e2e/copilot_test.go).
			v = map[string]string{"decision": "block", "reason": o.Reason}
		case context != "":
			v = map[string]string{"additionalContext": context}
		default:
			v = struct{}{}
		}
	case ClientQwen:
		if o.Decision == "block" && event == PostToolUse {
			// Qwen Code (0.24.4) adds only hookSpecificOutput.additionalContext to the tool's
			// result after the fact, and ignores decision "block" there (seen in e2e/qwen_test.go):
			// the block's reason goes there too.
			specific := SpecificOutput{HookEventName: event}
			if o.Specific != nil {
				specific = *o.Specific
			}
			specific.AdditionalContext = strings.TrimSpace(specific.AdditionalContext + "\n" + o.Reason)
			o.Specific = &specific
		}
		return o.Write(w)
	case ClientOpencode:
		// OpencodePlugin throws "deny" (opencode reports the error to the model as the tool's
		// result), appends "block" to the tool's output, and keeps "context" for the session.
		switch {
		case o.Denied():
			v = map[string]string{"decision": "deny", "reason": reason}
		case o.Decision == "block":
			v = map[string]string{"decision": "block", "reason": o.Reason}
		case context != "":
			v = map[string]string{"context": context}
		default:
			v = struct{}{}
		}
	default: // Claude Code
		return o.Write(w)
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
