package hooks

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
)

// PluginName is the Claude Code plugin's name (claude-plugin/.claude-plugin/plugin.json).
const PluginName = "exarchos"

// PluginCommand is the handler the plugin's hooks run. --plugin tells the handler it was started
// by the plugin, so it can stand aside when a settings file also installs the handler (see
// SettingsRunHandler): Claude Code runs every matching hook, identical commands included, so
// without it each event would be handled twice.
const PluginCommand = "git-exarchos hook claude --plugin"

// PluginHooksJSON is the plugin's hooks/hooks.json: the entries of ClaudeEntries with the same
// matchers, timeouts and onFailure as `hooks install --claude` writes, running PluginCommand.
func PluginHooksJSON() []byte {
	hooks := object{}
	for _, e := range ClaudeEntries {
		raw, _ := hooks.get(e.Event)
		groups, _ := parseArray(raw)
		hooks.set(e.Event, marshalArray(append(groups, ourGroup(PluginCommand, e))))
	}
	doc := object{
		{Key: "description", Value: mustJSON("git exarchos: every Claude Code event the CLI handles, as `git exarchos hooks install --claude` installs them (generated from hooks.ClaudeEntries)")},
		{Key: "hooks", Value: hooks.marshal()},
	}
	var b bytes.Buffer
	_ = json.Indent(&b, doc.marshal(), "", "  ")
	b.WriteByte('\n')
	return b.Bytes()
}

// PluginEnabled reports whether the settings file enables the exarchos plugin (enabledPlugins
// holds "exarchos@<marketplace>": true).
func (s *Settings) PluginEnabled() bool {
	raw, ok := s.top.get("enabledPlugins")
	if !ok {
		return false
	}
	var enabled map[string]json.RawMessage
	if json.Unmarshal(raw, &enabled) != nil {
		return false
	}
	for k, v := range enabled {
		if strings.HasPrefix(k, PluginName+"@") && string(bytes.TrimSpace(v)) == "true" {
			return true
		}
	}
	return false
}

// SettingsRunHandler reports whether a settings file Claude Code reads for the project at root
// (project, local and user scope; home is the user's home directory) installs exarchos's handler
// without --plugin for event. The plugin's handler asks it on every event, so it reads three small
// files and parses one only when it mentions the handler: no process, no git.
func SettingsRunHandler(root, home, event string) bool {
	for _, scope := range Scopes {
		path, err := SettingsPath(scope, root, home)
		if err != nil {
			continue
		}
		b, err := os.ReadFile(path)
		if err != nil || !bytes.Contains(b, []byte("hook claude")) {
			continue
		}
		s, err := LoadSettings(path)
		if err != nil {
			continue
		}
		for _, h := range s.Handlers() {
			if h.Event == event && !strings.Contains(h.Command, "--plugin") {
				return true
			}
		}
	}
	return false
}
