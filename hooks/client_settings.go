package hooks

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/exarchos/git-exarchos/internal/atomicfile"
)

// ClientSettingsPath is the file `hooks install --<client>` writes for Codex CLI, Gemini CLI, Qwen
// Code or Copilot CLI in a scope, where that client reads hooks: root is the top of the worktree,
// home the user's home directory, getenv the environment (CODEX_HOME and COPILOT_HOME move the
// user scope, as they move the clients' own).
func ClientSettingsPath(client, scope, root, home string, getenv func(string) string) (string, error) {
	switch {
	case client == ClientCopilot && scope != ScopeUser:
		// Copilot CLI 1.0.102 did not run a repository's .github/hooks/*.json with -p; its user
		// hook files it did.
		return "", errors.New("hooks for Copilot CLI are installed in the user scope only (its repository hooks did not run with -p): use --scope user")
	case scope == ScopeLocal:
		return "", fmt.Errorf("%s has no local scope: use --scope project or --scope user", client)
	case scope != ScopeProject && scope != ScopeUser:
		return "", fmt.Errorf("unknown scope %q: use project or user", scope)
	}
	base := root
	if scope == ScopeUser {
		base = home
	}
	switch client {
	case ClientCodex:
		if d := getenv("CODEX_HOME"); d != "" && scope == ScopeUser {
			return filepath.Join(d, "hooks.json"), nil
		}
		return filepath.Join(base, ".codex", "hooks.json"), nil
	case ClientGemini:
		return filepath.Join(base, ".gemini", "settings.json"), nil
	case ClientQwen:
		return filepath.Join(base, ".qwen", "settings.json"), nil
	case ClientCopilot:
		if d := getenv("COPILOT_HOME"); d != "" {
			return filepath.Join(d, "hooks", "exarchos.json"), nil
		}
		return filepath.Join(home, ".copilot", "hooks", "exarchos.json"), nil
	case ClientOpencode: // its plugin directories: the project's .opencode/plugins, the user's config
		if scope == ScopeProject {
			return filepath.Join(root, ".opencode", "plugins", "exarchos.js"), nil
		}
		config := filepath.Join(home, ".config")
		if d := getenv("XDG_CONFIG_HOME"); d != "" {
			config = d
		}
		return filepath.Join(config, "opencode", "plugins", "exarchos.js"), nil
	}
	return "", fmt.Errorf("unknown agent client %q: use codex, gemini, qwen, copilot or opencode", client)
}

// ClientEntries are the hooks `hooks install --<client>` installs, in the client's event names
// and time units. Tool events have no matcher (every tool), as a matcher's syntax differs from one
// client to the next. No entry has "onFailure" (Claude Code's key): these clients block on exit 2,
// which the handler answers on input it cannot read, and it answers a refusal before its deadline.
func ClientEntries(client string) []ClaudeEntry {
	switch client {
	case ClientCodex:
		return []ClaudeEntry{{Event: PreToolUse, Timeout: 10}, {Event: PostToolUse, Timeout: 20}, {Event: SessionStart, Timeout: 30},
			{Event: SubagentStart, Timeout: 30}, {Event: PreCompact, Timeout: 30}, {Event: Stop, Timeout: 30}, {Event: SubagentStop, Timeout: 30}}
	case ClientGemini: // timeout in milliseconds; no PreCompress (see clientEvents)
		return []ClaudeEntry{{Event: "BeforeTool", Timeout: 10000}, {Event: "AfterTool", Timeout: 20000}, {Event: "SessionStart", Timeout: 30000},
			{Event: "AfterAgent", Timeout: 30000}, {Event: "SessionEnd", Timeout: 30000}}
	case ClientQwen:
		return []ClaudeEntry{{Event: PreToolUse, Timeout: 10}, {Event: PostToolUse, Timeout: 20}, {Event: SessionStart, Timeout: 30},
			{Event: SubagentStart, Timeout: 30}, {Event: PreCompact, Timeout: 30}, {Event: Stop, Timeout: 30}, {Event: SubagentStop, Timeout: 30},
			{Event: SessionEnd, Timeout: 30}}
	case ClientCopilot: // timeoutSec
		return []ClaudeEntry{{Event: "preToolUse", Timeout: 10}, {Event: "postToolUse", Timeout: 20}, {Event: "sessionStart", Timeout: 30},
			{Event: "agentStop", Timeout: 30}, {Event: "subagentStop", Timeout: 30}, {Event: "sessionEnd", Timeout: 30}}
	case ClientOpencode: // the plugin's hooks (OpencodePlugin: its time limit is its own)
		return []ClaudeEntry{{Event: OpencodeEvents[0], Timeout: 20}, {Event: OpencodeEvents[1], Timeout: 20}}
	}
	return nil
}

// ClientHookCommand is the handler command for a client, from the one for Claude Code (`git-exarchos
// hook claude` or `git exarchos hook claude`).
func ClientHookCommand(claudeCommand, client string) string {
	return strings.TrimSuffix(claudeCommand, " claude") + " " + client
}

// IsHookCommand reports whether a hook command line is exarchos's handler for any client.
func IsHookCommand(cmd string) bool {
	f := strings.Fields(cmd)
	switch {
	case len(f) >= 4 && f[0] == "git" && f[1] == "exarchos":
		return f[2] == "hook" && IsClient(f[3])
	case len(f) >= 3 && filepath.Base(f[0]) == "git-exarchos":
		return f[1] == "hook" && IsClient(f[2])
	}
	return false
}

// ClientHooksFile is one client's installed hooks, as `hooks install|uninstall|status` see them.
type ClientHooksFile struct {
	Client string
	Path   string
	Exists bool
	// settings is the file for the clients whose settings hold other keys too (Codex, Gemini,
	// Qwen): exarchos's entries are merged in and out as in Claude Code's. Copilot CLI's file
	// (hooks/exarchos.json) and opencode's plugin (plugins/exarchos.js) are exarchos's own,
	// written whole.
	settings *Settings
	own      []string // Copilot, opencode: the events the file holds
}

// LoadClientHooks reads a client's hook file; a missing file is an empty one.
func LoadClientHooks(client, path string) (*ClientHooksFile, error) {
	f := &ClientHooksFile{Client: client, Path: path}
	if client != ClientCopilot && client != ClientOpencode {
		s, err := LoadSettings(path)
		if err != nil {
			return nil, err
		}
		f.settings, f.Exists = s, s.Exists
		return f, nil
	}
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return f, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	f.Exists = true
	if client == ClientOpencode {
		if strings.HasPrefix(string(b), OpencodePluginMarker) {
			f.own = OpencodeEvents
		}
		return f, nil
	}
	var doc struct {
		Hooks map[string][]struct {
			Bash string `json:"bash"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("%s is not the JSON git exarchos writes (%v): remove it, then run the command again", path, err)
	}
	for _, e := range ClientEntries(ClientCopilot) {
		for _, h := range doc.Hooks[e.Event] {
			if IsHookCommand(h.Bash) {
				f.own = append(f.own, e.Event)
				break
			}
		}
	}
	return f, nil
}

// Installed lists the events with exarchos's handler.
func (f *ClientHooksFile) Installed() []string {
	if f.settings != nil {
		return f.settings.Installed()
	}
	return f.own
}

// Install writes exarchos's entries, with claudeCommand's program as the handler, and reports
// whether the file changed.
func (f *ClientHooksFile) Install(claudeCommand string) (bool, error) {
	command := ClientHookCommand(claudeCommand, f.Client)
	if f.settings != nil {
		changed, err := f.settings.Install(command, ClientEntries(f.Client))
		if err == nil && changed {
			err = f.settings.Save()
		}
		return changed, err
	}
	if f.Client == ClientOpencode && f.Exists && len(f.own) == 0 {
		// A plugin of the user's own by that name: not overwritten.
		return false, fmt.Errorf("%s is not the file git exarchos writes: move it away, then run the command again", f.Path)
	}
	b := OpencodePlugin(command)
	if f.Client == ClientCopilot {
		type handler struct {
			Type       string `json:"type"`
			Bash       string `json:"bash"`
			TimeoutSec int    `json:"timeoutSec"`
		}
		hooks := map[string][]handler{}
		for _, e := range ClientEntries(ClientCopilot) {
			// Copilot's camelCase payload does not name its event: the command does.
			hooks[e.Event] = []handler{{Type: "command", Bash: command + " " + e.Event, TimeoutSec: e.Timeout}}
		}
		var err error
		if b, err = json.MarshalIndent(map[string]any{"version": 1, "hooks": hooks}, "", "  "); err != nil {
			return false, err
		}
		b = append(b, '\n')
	}
	if old, err := os.ReadFile(f.Path); err == nil && string(old) == string(b) {
		return false, nil
	}
	if err := os.MkdirAll(filepath.Dir(f.Path), 0o755); err != nil {
		return false, fmt.Errorf("create %s: %w", filepath.Dir(f.Path), err)
	}
	if err := atomicfile.Write(f.Path, b, 0o644); err != nil {
		return false, fmt.Errorf("write %s: %w", f.Path, err)
	}
	f.Exists, f.own = true, nil
	for _, e := range ClientEntries(f.Client) {
		f.own = append(f.own, e.Event)
	}
	return true, nil
}

// Uninstall removes exactly exarchos's entries (Copilot's file, which is exarchos's own, goes
// whole) and reports whether anything changed.
func (f *ClientHooksFile) Uninstall() (bool, error) {
	if f.settings != nil {
		changed, err := f.settings.Uninstall()
		if err == nil && changed {
			err = f.settings.Save()
		}
		return changed, err
	}
	if !f.Exists || len(f.own) == 0 {
		return false, nil
	}
	if err := os.Remove(f.Path); err != nil {
		return false, fmt.Errorf("remove %s: %w", f.Path, err)
	}
	f.Exists, f.own = false, nil
	return true, nil
}
