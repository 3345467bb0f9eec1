package e2e

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/exarchos/git-exarchos/internal/modelserver"
)

// codex is Codex CLI, run with `codex exec` against a config.toml provider in a scratch CODEX_HOME
// (the Responses API, streamed), offline (no update check, no plugin sync: no DNS lookup is made,
// checked with strace), with the project trusted so its .codex/hooks.json is read, and
// --dangerously-bypass-hook-trust standing for the user's one-time trust of the hooks (/hooks).
// The model is one Codex has metadata for (gpt-5.5), so it offers its tools as for a real model:
// exec_command, and apply_patch as a free-form tool. A file is written both ways Codex writes:
// the apply_patch tool, and `apply_patch <<'EOF'` through the shell, which Codex applies as a
// patch and its hook sees as Bash.
var codex = agentClient{
	name: "codex", bin: "codex",
	shell: func(id, command string) modelserver.ToolUse {
		return modelserver.ToolUse{ID: id, Name: "exec_command", Input: map[string]any{"cmd": command}}
	},
	writes: func(id, path, content string) []modelserver.ToolUse {
		patch := "*** Begin Patch\n*** Add File: " + path + "\n+" + content + "*** End Patch\n"
		return []modelserver.ToolUse{{ID: id, Name: "apply_patch", Input: patch},
			{ID: id + "-2", Name: "exec_command", Input: map[string]any{"cmd": "apply_patch <<'EOF'\n" + patch + "EOF\n"}}}
	},
	command: func(e *Env, url, prompt string) ([]string, []string) {
		home := filepath.Join(e.Home, ".codex-home")
		writeFile(e.T, filepath.Join(home, "config.toml"), fmt.Sprintf(`model = "gpt-5.5"
model_provider = "e2e"
check_for_update_on_startup = false

# No plugin marketplace sync (it fetches github.com/openai/plugins.git): the run stays offline.
[features]
plugins = false

[model_providers.e2e]
name = "e2e"
base_url = "%s/v1"
env_key = "E2E_MODEL_KEY"
wire_api = "responses"

[projects.%q]
trust_level = "trusted"
`, url, e.Dir))
		return []string{"exec", "--json", "--skip-git-repo-check", "--dangerously-bypass-hook-trust", "--dangerously-bypass-approvals-and-sandbox", prompt},
			[]string{"CODEX_HOME=" + home, "E2E_MODEL_KEY=dummy"}
	},
}

// TestCodexEnforcesTheWorkflow: issue 39's cases under Codex CLI (testClientEnforces).
func TestCodexEnforcesTheWorkflow(t *testing.T) {
	testClientEnforces(t, codex)
}
