package hooks

import (
	"strings"
	"testing"
)

// Copilot CLI 1.0.102 sends toolArgs as an object (recorded in e2e/copilot_test.go); its
// documentation gives a JSON string holding the object. Both read as the same tool input.
func TestCopilotToolArgsObjectOrString(t *testing.T) {
	for name, payload := range map[string]string{
		"object": `{"sessionId":"s1","cwd":"/r","toolName":"bash","toolArgs":{"command":"git exarchos approve login","description":"run git"}}`,
		"string": `{"sessionId":"s1","cwd":"/r","toolName":"bash","toolArgs":"{\"command\":\"git exarchos approve login\"}"}`,
	} {
		t.Run(name, func(t *testing.T) {
			call, err := ReadClientInput(ClientCopilot, "preToolUse", strings.NewReader(payload), nil)
			if err != nil {
				t.Fatal(err)
			}
			in := call.Inputs[0]
			if in.HookEventName != PreToolUse || in.ToolName != "Bash" || in.SessionID != "s1" || !strings.Contains(string(in.ToolInput), `"command":"git exarchos approve login"`) {
				t.Fatalf("read as %s %s session %q input %s", in.HookEventName, in.ToolName, in.SessionID, in.ToolInput)
			}
		})
	}
}
