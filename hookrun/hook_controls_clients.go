package hookrun

import (
	"encoding/json"
	"os"
	"path/filepath"
)

// clientControls are the other agent clients' hook files, in the scopes `hooks install --<client>`
// writes them (hooks.ClientSettingsPath), watched as Claude Code's settings are: relative to the
// worktree (project) or the home directory (user). A client's user scope moved by CODEX_HOME or
// COPILOT_HOME is not followed: the hook reads no client variable on its common path.
var clientControls = []struct {
	rel     string
	project bool // in the worktree too (every one is in the home directory)
}{
	{filepath.Join(".codex", "hooks.json"), true},
	{filepath.Join(".gemini", "settings.json"), true},
	{filepath.Join(".qwen", "settings.json"), true},
	{filepath.Join(".copilot", "hooks", "exarchos.json"), false}, // user scope only
}

// clientControlPaths are the client hook files watched for the worktree at root.
func clientControlPaths(root, home string) []string {
	var out []string
	for _, c := range clientControls {
		if c.project && root != "" {
			out = append(out, filepath.Join(root, c.rel))
		}
		if home != "" {
			out = append(out, filepath.Join(home, c.rel))
		}
	}
	return out
}

// clientHookKeys are the keys of a client's hook file that change which hooks run: the hooks, and
// what turns them off (Qwen Code's disableAllHooks, Gemini CLI's hooksConfig.enabled/disabled).
var clientHookKeys = []string{"hooks", "disableAllHooks", "allowManagedHooksOnly", "hooksConfig"}

// clientSettingsWhat is what matters in a client's hook file, nil when nothing does (the client's
// own settings: a theme, its sign-in).
func clientSettingsWhat(b []byte) []byte {
	var s map[string]json.RawMessage
	if json.Unmarshal(b, &s) != nil {
		return append([]byte("unreadable:"), b...)
	}
	what := map[string]json.RawMessage{}
	for _, k := range clientHookKeys {
		if v, ok := s[k]; ok {
			what[k] = v
		}
	}
	if len(what) == 0 {
		return nil
	}
	out, _ := json.Marshal(what)
	return out
}

func userHome() string {
	home, _ := os.UserHomeDir()
	return home
}
