package e2e

import (
	"testing"

	"github.com/exarchos/git-exarchos/internal/modelserver"
)

// copilot is Copilot CLI, run with -p and every tool allowed, offline (COPILOT_OFFLINE) against
// Chat Completions at COPILOT_PROVIDER_BASE_URL (its default wire API for a custom provider),
// with the hooks hooks install --copilot puts in ~/.copilot/hooks (its user scope, the default:
// its repository hooks do not run with -p). Its postToolUse answer {"decision":"block"} reaches the model as the
// tool's result ("Tool result blocked: …"), as the other clients' after-the-fact answers do.
var copilot = agentClient{
	name: "copilot", bin: "copilot",
	shell: func(id, command string) modelserver.ToolUse {
		return modelserver.ToolUse{ID: id, Name: "bash", Input: map[string]any{"command": command, "description": "run " + firstWord(command)}}
	},
	writes: func(id, path, content string) []modelserver.ToolUse {
		return []modelserver.ToolUse{{ID: id, Name: "create", Input: map[string]any{"path": path, "file_text": content}},
			{ID: id + "-2", Name: "edit", Input: map[string]any{"path": path, "old_str": "", "new_str": content}}}
	},
	command: func(e *Env, url, prompt string) ([]string, []string) {
		return []string{"-p", prompt, "--allow-all-tools", "--allow-all-paths", "--no-color"},
			[]string{"COPILOT_PROVIDER_BASE_URL=" + url + "/v1", "COPILOT_PROVIDER_API_KEY=dummy", "COPILOT_MODEL=e2e-model", "COPILOT_OFFLINE=true",
				"GH_TOKEN=", "GITHUB_TOKEN="} // no GitHub sign-in: the harness's token is the fake GitHub's
	},
}

// TestCopilotEnforcesTheWorkflow: issue 39's cases under Copilot CLI (testClientEnforces).
func TestCopilotEnforcesTheWorkflow(t *testing.T) {
	testClientEnforces(t, copilot)
}
