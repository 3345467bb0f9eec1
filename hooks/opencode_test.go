package hooks

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// TestOpencodeAdapter: what opencode's plugin sends (Claude Code's payload with opencode's event
// and tool names, its arguments as opencode spells them) is read as the Claude Code call the rules
// judge, and each decision is answered in the shape the plugin acts on.
func TestOpencodeAdapter(t *testing.T) {
	for _, c := range []struct {
		payload, event, tool, input string
		files                       int // Inputs: one per file of a patch
	}{
		{`{"hook_event_name":"tool.execute.before","session_id":"ses_1","cwd":"/r","tool_name":"write","tool_input":{"filePath":"/r/src/a.go","content":"x"}}`,
			PreToolUse, "Write", "/r/src/a.go", 1},
		{`{"hook_event_name":"tool.execute.before","session_id":"ses_1","cwd":"/r","tool_name":"edit","tool_input":{"filePath":"src/b.go","oldString":"a","newString":"b"}}`,
			PreToolUse, "Edit", "src/b.go", 1},
		{`{"hook_event_name":"tool.execute.after","session_id":"ses_1","cwd":"/r","tool_name":"bash","tool_input":{"command":"git exarchos approve f","description":"approve"}}`,
			PostToolUse, "Bash", "git exarchos approve f", 1},
		{`{"hook_event_name":"tool.execute.before","session_id":"ses_1","cwd":"/r","tool_name":"patch","tool_input":{"patchText":"*** Begin Patch\n*** Add File: a.go\n+x\n*** Update File: b.go\n@@\n-a\n+b\n*** End Patch"}}`,
			PreToolUse, "Write", "a.go", 2},
		{`{"hook_event_name":"tool.execute.before","session_id":"ses_1","cwd":"/r","tool_name":"list","tool_input":{"path":"/r"}}`,
			PreToolUse, "LS", "", 1},
		{`{"hook_event_name":"tool.execute.before","session_id":"ses_1","cwd":"/r","tool_name":"codesearch","tool_input":{"query":"x"}}`,
			PreToolUse, "codesearch", "", 1}, // unknown: keeps its name, policed
	} {
		call, err := ReadClientInput(ClientOpencode, "", strings.NewReader(c.payload), nil)
		if err != nil {
			t.Fatalf("%s: %v", c.payload, err)
		}
		if len(call.Inputs) != c.files {
			t.Fatalf("%s: %d inputs, want %d", c.payload, len(call.Inputs), c.files)
		}
		in := call.Inputs[0]
		if in.HookEventName != c.event || in.ToolName != c.tool || in.SessionID != "ses_1" {
			t.Errorf("%s: read as %s %s (session %q), want %s %s", c.payload, in.HookEventName, in.ToolName, in.SessionID, c.event, c.tool)
		}
		var ti ToolInput
		_ = json.Unmarshal(in.ToolInput, &ti)
		if got := ti.FilePath + ti.Command; got != c.input {
			t.Errorf("%s: the path or command read is %q, want %q", c.payload, got, c.input)
		}
	}

	for _, c := range []struct {
		out  Output
		want string
	}{
		{Deny("refused: planning phase"), `{"decision":"deny","reason":"refused: planning phase"}`},
		{Block("src/a.go changed outside docs/**"), `{"decision":"block","reason":"src/a.go changed outside docs/**"}`},
		{Context(SessionStart, "workflow f in ideate"), `{"context":"workflow f in ideate"}`},
		{NoOpinion(), `{}`},
	} {
		var b bytes.Buffer
		if err := c.out.WriteFor(ClientOpencode, "tool.execute.before", &b); err != nil {
			t.Fatal(err)
		}
		if got := strings.TrimSpace(b.String()); got != c.want {
			t.Errorf("answer %s, want %s", got, c.want)
		}
	}
}
