package hooks

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"

	"mvdan.cc/sh/v3/syntax"
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
// without --plugin for event, so that it runs on every call the plugin's would (issue 38 item 5:
// an entry whose command merely mentions the handler, `git-exarchos hook claude </dev/null
// >/dev/null; exit 0`, or whose matcher names no tool, made the plugin's handler stand aside for
// good). same says whether a program named by a path is the running handler. The plugin's handler
// asks it on every event, so it reads three small files and parses one only when it mentions the
// handler: no process, no git.
func SettingsRunHandler(root, home, event string, same func(program string) bool) bool {
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
		if s.runsHandlerFor(event, same) {
			return true
		}
	}
	return false
}

// runsHandlerFor reports whether the file has, for event, a group whose matcher covers every
// tool the plugin's entry matches and whose command runs the handler itself.
func (s *Settings) runsHandlerFor(event string, same func(string) bool) bool {
	hooks, _ := s.hooks()
	raw, ok := hooks.get(event)
	if !ok {
		return false
	}
	want := ""
	for _, e := range ClaudeEntries {
		if e.Event == event {
			want = e.Matcher
		}
	}
	groups, _ := parseArray(raw)
	for _, g := range groups {
		var v struct {
			Matcher *string `json:"matcher"`
			Hooks   []struct {
				Type    string `json:"type"`
				Command string `json:"command"`
			} `json:"hooks"`
		}
		if json.Unmarshal(g, &v) != nil {
			continue
		}
		if v.Matcher != nil && *v.Matcher != want && *v.Matcher != "*" && *v.Matcher != "" {
			continue // matches fewer tools than the plugin's entry (or other ones)
		}
		for _, h := range v.Hooks {
			if h.Type != "command" {
				continue
			}
			if program, ok := RunsHandler(h.Command); ok && (program == "" || same(program)) {
				return true
			}
		}
	}
	return false
}

// RunsHandler reports whether a hook command, read as a shell reads it, runs exarchos's handler
// and nothing else: one simple command of literal words, `git exarchos hook claude` or
// `git-exarchos hook claude` (the latter possibly with a path), with no redirection, assignment,
// pipe, background or other statement. program is the path it names ("" for git's dispatch or a
// bare git-exarchos, both found on the same PATH as the plugin's own command).
func RunsHandler(cmd string) (program string, ok bool) {
	file, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(cmd), "")
	if err != nil || len(file.Stmts) != 1 {
		return "", false
	}
	st := file.Stmts[0]
	call, isCall := st.Cmd.(*syntax.CallExpr)
	if !isCall || st.Negated || st.Background || st.Coprocess || len(st.Redirs) > 0 || len(call.Assigns) > 0 {
		return "", false
	}
	var words []string
	for _, w := range call.Args {
		lit := w.Lit() // "" for anything but one plain literal (quotes, expansions, globs)
		if lit == "" || strings.ContainsAny(lit, "*?[") {
			return "", false
		}
		words = append(words, lit)
	}
	switch {
	case len(words) == 4 && words[0] == "git" && words[1] == "exarchos" && words[2] == "hook" && words[3] == "claude":
		return "", true
	case len(words) == 3 && filepath.Base(words[0]) == "git-exarchos" && words[1] == "hook" && words[2] == "claude":
		if words[0] == "git-exarchos" {
			return "", true
		}
		return words[0], true
	}
	return "", false
}
