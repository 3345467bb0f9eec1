package e2e

import (
	"path/filepath"
	"testing"

	"github.com/exarchos/git-exarchos/internal/modelserver"
)

// gemini is Gemini CLI, run with -p in yolo mode against the Gemini API at GOOGLE_GEMINI_BASE_URL
// with a dummy key, the workspace trusted (GEMINI_CLI_TRUST_WORKSPACE) so the project's
// .gemini/settings.json, where hooks install --gemini puts the hooks, is read.
var gemini = agentClient{
	name: "gemini", bin: "gemini",
	shell: func(id, command string) modelserver.ToolUse {
		return modelserver.ToolUse{ID: id, Name: "run_shell_command", Input: map[string]any{"command": command}}
	},
	writes: func(id, path, content string) []modelserver.ToolUse {
		return []modelserver.ToolUse{{ID: id, Name: "write_file", Input: map[string]any{"file_path": path, "content": content}},
			{ID: id + "-2", Name: "replace", Input: map[string]any{"file_path": path, "instruction": "write it", "old_string": "", "new_string": content}}}
	},
	command: func(e *Env, url, prompt string) ([]string, []string) {
		// The user's settings: the API key as the way in, nothing sent home, no update check.
		writeFile(e.T, filepath.Join(e.Home, ".gemini", "settings.json"), `{"security": {"auth": {"selectedType": "gemini-api-key"}},
  "privacy": {"usageStatisticsEnabled": false}, "telemetry": {"enabled": false},
  "general": {"disableAutoUpdate": true, "disableUpdateNag": true}}
`)
		return []string{"-p", prompt, "--approval-mode", "yolo", "-m", "gemini-2.5-flash", "--output-format", "json"},
			[]string{"GEMINI_API_KEY=dummy", "GOOGLE_GEMINI_BASE_URL=" + url, "GEMINI_CLI_TRUST_WORKSPACE=true"}
	},
}

// TestGeminiEnforcesTheWorkflow: issue 39's cases under Gemini CLI (testClientEnforces).
func TestGeminiEnforcesTheWorkflow(t *testing.T) {
	testClientEnforces(t, gemini)
}
