package e2e

import (
	"path/filepath"
	"testing"

	"github.com/exarchos/git-exarchos/internal/modelserver"
)

// qwen is Qwen Code, run with a positional prompt in yolo mode against Chat Completions at
// OPENAI_BASE_URL, with the hooks hooks install --qwen puts in the project's .qwen/settings.json.
var qwen = agentClient{
	name: "qwen", bin: "qwen",
	shell: func(id, command string) modelserver.ToolUse {
		return modelserver.ToolUse{ID: id, Name: "run_shell_command", Input: map[string]any{"command": command, "is_background": false}}
	},
	writes: func(id, path, content string) []modelserver.ToolUse {
		return []modelserver.ToolUse{{ID: id, Name: "write_file", Input: map[string]any{"file_path": path, "content": content}},
			{ID: id + "-2", Name: "edit", Input: map[string]any{"file_path": path, "old_string": "", "new_string": content}}}
	},
	command: func(e *Env, url, prompt string) ([]string, []string) {
		// The user's settings: nothing sent home, no update check.
		writeFile(e.T, filepath.Join(e.Home, ".qwen", "settings.json"), `{"privacy": {"usageStatisticsEnabled": false}, "telemetry": {"enabled": false},
  "general": {"disableAutoUpdate": true, "disableUpdateNag": true}}
`)
		return []string{"--approval-mode", "yolo", "--auth-type", "openai", prompt},
			[]string{"OPENAI_BASE_URL=" + url + "/v1", "OPENAI_API_KEY=dummy", "OPENAI_MODEL=e2e-model"}
	},
}

// TestQwenEnforcesTheWorkflow: issue 39's cases under Qwen Code (testClientEnforces).
func TestQwenEnforcesTheWorkflow(t *testing.T) {
	testClientEnforces(t, qwen)
}
