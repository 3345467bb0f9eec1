package hookrun

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"
)

// clientControls are the other agent clients' hook files, in the scopes `hooks install --<client>`
// writes them (hooks.ClientSettingsPath), watched as Claude Code's settings are: relative to the
// worktree (project) or the home directory (user), and in the directory CODEX_HOME or COPILOT_HOME
// names when the client was started with one (the variable reaches its hooks). Codex's
// config.toml is watched beside its hooks.json: it turns the hooks off, replaces them, or makes
// the project's .codex/ unread (codexConfigWhat).
var clientControls = []struct {
	rel     string
	project bool   // in the worktree too (every one is in the home directory)
	homeVar string // the variable that moves the client's home directory (rel's first element)
}{
	{filepath.Join(".codex", "hooks.json"), true, "CODEX_HOME"},
	{filepath.Join(".codex", "config.toml"), true, "CODEX_HOME"},
	{filepath.Join(".gemini", "settings.json"), true, ""},
	{filepath.Join(".qwen", "settings.json"), true, ""},
	{filepath.Join(".copilot", "hooks", "exarchos.json"), false, "COPILOT_HOME"}, // user scope only
	{filepath.Join(".opencode", "plugins", "exarchos.js"), true, ""},
	{filepath.Join(".config", "opencode", "plugins", "exarchos.js"), false, "XDG_CONFIG_HOME"},
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
		if c.homeVar == "" {
			continue
		}
		if d := os.Getenv(c.homeVar); d != "" && filepath.IsAbs(d) {
			_, rest, _ := strings.Cut(c.rel, string(filepath.Separator))
			if p := filepath.Join(d, rest); !slices.Contains(out, p) {
				out = append(out, p)
			}
		}
	}
	return out
}

// clientHookKeys are the keys of a client's hook file that change which hooks run: the hooks, and
// what turns them off (Qwen Code's disableAllHooks, Gemini CLI's hooksConfig.enabled/disabled).
var clientHookKeys = []string{"hooks", "disableAllHooks", "allowManagedHooksOnly", "hooksConfig"}

// clientSettingsWhat is what matters in a client's hook file at p, nil when nothing does (the
// client's own settings: a theme, its sign-in).
func clientSettingsWhat(p string, b []byte) []byte {
	switch filepath.Ext(p) {
	case ".toml":
		return codexConfigWhat(b)
	case ".js": // opencode's plugin: every byte runs
		return b
	}
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

// codexConfigWhat is what matters in a Codex config.toml: [features] codex_hooks (and hooks, its
// other name), which turns every hook off; [hooks], which defines hooks as hooks.json does, but
// not [hooks.state], where Codex records the hooks the user trusted in /hooks (written by the
// user, not by a tool call: comparing it would block the next call after every trust); a project
// marked other than trusted, whose .codex/ Codex then does not read (a project newly trusted is
// the user's doing and changes nothing here; an entry removed is not seen). A file Codex cannot parse
// matters as it is (Codex refuses to start, or, for a project's, runs without it).
func codexConfigWhat(b []byte) []byte {
	var doc map[string]any
	if _, err := toml.Decode(string(b), &doc); err != nil {
		return append([]byte("unreadable:"), b...)
	}
	what := map[string]any{}
	if f, ok := doc["features"].(map[string]any); ok {
		for _, k := range []string{"codex_hooks", "hooks"} {
			if v, ok := f[k]; ok {
				what["features."+k] = v
			}
		}
	}
	if h, ok := doc["hooks"].(map[string]any); ok {
		defs := map[string]any{}
		for k, v := range h {
			if k != "state" {
				defs[k] = v
			}
		}
		if len(defs) > 0 {
			what["hooks"] = defs
		}
	}
	if projects, ok := doc["projects"].(map[string]any); ok {
		for dir, p := range projects {
			if p, ok := p.(map[string]any); ok && p["trust_level"] != nil && p["trust_level"] != "trusted" {
				what["projects."+dir] = p["trust_level"]
			}
		}
	}
	if len(what) == 0 {
		return nil
	}
	out, _ := json.Marshal(what)
	return out
}
