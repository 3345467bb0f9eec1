package hooks

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/exarchos/git-exarchos/internal/atomicfile"
)

// Scopes of Claude Code settings files.
const (
	ScopeProject = "project" // <repo>/.claude/settings.json, committed and shared
	ScopeLocal   = "local"   // <repo>/.claude/settings.local.json, this clone only
	ScopeUser    = "user"    // ~/.claude/settings.json, every project of this user
)

// Scopes lists the scopes in the order `hooks status` shows them.
var Scopes = []string{ScopeProject, ScopeLocal, ScopeUser}

// SettingsPath is the settings file of a scope: root is the top of the worktree (project and local),
// home the user's home directory. CLAUDE_CONFIG_DIR moves the user scope, as it moves Claude Code's.
func SettingsPath(scope, root, home string) (string, error) {
	switch scope {
	case ScopeProject:
		return filepath.Join(root, ".claude", "settings.json"), nil
	case ScopeLocal:
		return filepath.Join(root, ".claude", "settings.local.json"), nil
	case ScopeUser:
		if d := os.Getenv("CLAUDE_CONFIG_DIR"); d != "" {
			return filepath.Join(d, "settings.json"), nil
		}
		return filepath.Join(home, ".claude", "settings.json"), nil
	}
	return "", fmt.Errorf("unknown scope %q: use project, local or user", scope)
}

// ClaudeEntry is one hook exarchos installs: the event, its matcher, its time limit in seconds,
// and whether a failure of the handler blocks the action.
type ClaudeEntry struct {
	Event   string
	Matcher string // tool events only
	Timeout int
	// Block installs "onFailure": "block": Claude Code (2.1.295 and later) then blocks the action
	// when the handler cannot start (not on PATH), times out, or exits with an unexpected code,
	// instead of letting it through. Older versions ignore the key; for them the handler exits 2
	// (a block) on input it cannot read and answers a refusal before its deadline (hookrun.DefaultDeadline).
	Block bool
}

// ClaudeEntries are the hooks `hooks install --claude` installs. PreToolUse and PostToolUse match
// every tool: the Bash guard, the phase policies and the effects check decide, and tools they do
// not police cost one cheap process. Their failures block.
var ClaudeEntries = []ClaudeEntry{
	{Event: PreToolUse, Matcher: "*", Timeout: 10, Block: true},
	{Event: PostToolUse, Matcher: "*", Timeout: 20, Block: true},
	// A failed call that ran exarchos: its caller ticket goes (hookrun/caller.go), or a refused
	// command of the main agent would keep a reviewer subagent from being named for 15 minutes
	// (seen with the real client: e2e/triage_test.go). Only the tools that leave tickets.
	{Event: PostToolUseFailure, Matcher: "Bash|mcp__.*exarchos.*", Timeout: 10},
	{Event: SessionStart, Timeout: 30},
	{Event: SubagentStart, Timeout: 30},
	{Event: PreCompact, Timeout: 30},
	{Event: Stop, Timeout: 30},
	{Event: SubagentStop, Timeout: 30},
	{Event: SessionEnd, Timeout: 30},
	{Event: TaskCompleted, Timeout: 30},
	{Event: TeammateIdle, Timeout: 30},
}

// IsClaudeCommand reports whether a hook command line is exarchos's handler, in any of the forms
// an install may have written: `git exarchos hook claude`, `git-exarchos hook claude`, or the
// latter with a path.
func IsClaudeCommand(cmd string) bool {
	f := strings.Fields(cmd)
	switch {
	case len(f) >= 4 && f[0] == "git" && f[1] == "exarchos":
		return f[2] == "hook" && f[3] == "claude"
	case len(f) >= 3 && filepath.Base(f[0]) == "git-exarchos":
		return f[1] == "hook" && f[2] == "claude"
	}
	return false
}

// Settings is a Claude Code settings file held so that rewriting it changes only exarchos's
// entries: keys keep their order, values their bytes, and the file its indentation and final
// newline.
type Settings struct {
	Path    string
	Exists  bool
	top     object
	indent  string // "" writes compact JSON, as the file was
	newline bool
	mode    fs.FileMode
}

// LoadSettings reads a settings file; a missing file is an empty one.
func LoadSettings(path string) (*Settings, error) {
	s := &Settings{Path: path, indent: "  ", newline: true, mode: 0o644}
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return s, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	s.Exists = true
	if fi, err := os.Stat(path); err == nil {
		s.mode = fi.Mode().Perm()
	}
	if len(bytes.TrimSpace(b)) == 0 {
		return s, nil
	}
	if s.top, err = parseObject(b); err != nil {
		return nil, fmt.Errorf("%s is not a JSON object (%v): fix or move it, then run the command again", path, err)
	}
	s.indent, s.newline = indentOf(b), bytes.HasSuffix(b, []byte("\n"))
	return s, nil
}

// indentOf is the indentation unit of a JSON document: the leading white space of its first
// indented line, or "" for a document on one line.
func indentOf(b []byte) string {
	lines := bytes.Split(bytes.TrimSpace(b), []byte("\n"))
	if len(lines) < 2 {
		return ""
	}
	for _, l := range lines[1:] {
		if ws := l[:len(l)-len(bytes.TrimLeft(l, " \t"))]; len(ws) > 0 {
			return string(ws)
		}
	}
	return "  "
}

// Installed lists the events that have exarchos's handler, in file order.
func (s *Settings) Installed() []string {
	var out []string
	hooks, _ := s.hooks()
	for _, m := range hooks {
		groups, _ := parseArray(m.Value)
		if slices.ContainsFunc(groups, hasOurs) {
			out = append(out, m.Key)
		}
	}
	return out
}

// Handler is exarchos's handler as one settings file installs it for an event.
type Handler struct {
	Event     string `json:"event"`
	Command   string `json:"command"`
	OnFailure string `json:"onFailure,omitempty"`
}

// Handlers lists exarchos's handlers in the file, in file order.
func (s *Settings) Handlers() []Handler {
	var out []Handler
	hooks, _ := s.hooks()
	for _, m := range hooks {
		groups, _ := parseArray(m.Value)
		for _, g := range groups {
			obj, err := parseObject(g)
			if err != nil {
				continue
			}
			raw, _ := obj.get("hooks")
			handlers, _ := parseArray(raw)
			for _, h := range handlers {
				var v struct {
					Command   string `json:"command"`
					OnFailure string `json:"onFailure"`
				}
				if json.Unmarshal(h, &v) == nil && IsHookCommand(v.Command) {
					out = append(out, Handler{Event: m.Key, Command: v.Command, OnFailure: v.OnFailure})
				}
			}
		}
	}
	return out
}

// Install adds exarchos's entry for every event that lacks it, with command as the handler.
// Entries already there keep their command, matcher and timeout; those of an event whose failure
// blocks get "onFailure": "block" if they lack it (an install made before the key existed is
// upgraded in place), so a second install changes nothing. It reports whether the file changed.
func (s *Settings) Install(command string, entries []ClaudeEntry) (bool, error) {
	hooks, err := s.hooks()
	if err != nil {
		return false, err
	}
	changed := false
	for _, e := range entries {
		raw, _ := hooks.get(e.Event)
		groups, err := parseArray(raw)
		if err != nil {
			return false, fmt.Errorf("%s: hooks.%s is not an array: fix it by hand, then run the command again", s.Path, e.Event)
		}
		if slices.ContainsFunc(groups, hasOurs) {
			if e.Block && upgradeBlock(groups) {
				hooks.set(e.Event, marshalArray(groups))
				changed = true
			}
			continue
		}
		groups = append(groups, ourGroup(command, e))
		hooks.set(e.Event, marshalArray(groups))
		changed = true
	}
	if changed {
		s.top.set("hooks", hooks.marshal())
	}
	return changed, nil
}

// Uninstall removes exactly exarchos's handlers: a group left without handlers goes, an event left
// without groups goes, and a hooks object left empty goes. It reports whether the file changed.
func (s *Settings) Uninstall() (bool, error) {
	hooks, err := s.hooks()
	if err != nil {
		return false, err
	}
	changed := false
	for _, m := range slices.Clone(hooks) {
		groups, err := parseArray(m.Value)
		if err != nil || !slices.ContainsFunc(groups, hasOurs) {
			continue
		}
		var kept []json.RawMessage
		for _, g := range groups {
			if g2, ok := withoutOurs(g); ok {
				kept = append(kept, g2)
			}
		}
		if len(kept) == 0 {
			hooks.delete(m.Key)
		} else {
			hooks.set(m.Key, marshalArray(kept))
		}
		changed = true
	}
	if !changed {
		return false, nil
	}
	if len(hooks) == 0 {
		s.top.delete("hooks")
	} else {
		s.top.set("hooks", hooks.marshal())
	}
	return true, nil
}

// Bytes is the file's new content.
func (s *Settings) Bytes() []byte {
	doc := s.top.marshal()
	var b bytes.Buffer
	if s.indent == "" {
		b.Write(doc)
	} else {
		_ = json.Indent(&b, doc, "", s.indent)
	}
	if s.newline {
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// Empty reports whether nothing is left in the file.
func (s *Settings) Empty() bool { return len(s.top) == 0 }

// Save writes the file in place (through a symbolic link if it is one, as dotfile managers make),
// or removes it when exarchos's entries were all it held.
func (s *Settings) Save() error {
	path := s.Path
	if p, err := filepath.EvalSymlinks(path); err == nil {
		path = p
	}
	if s.Empty() {
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		_ = os.Remove(filepath.Dir(path)) // the .claude directory, if install created it; fails when not empty
		return nil
	}
	return atomicfile.Write(path, s.Bytes(), s.mode)
}

func (s *Settings) hooks() (object, error) {
	raw, ok := s.top.get("hooks")
	if !ok {
		return nil, nil
	}
	h, err := parseObject(raw)
	if err != nil {
		return nil, fmt.Errorf("%s: \"hooks\" is not a JSON object: fix it by hand, then run the command again", s.Path)
	}
	return h, nil
}

// ourGroup is the matcher group exarchos adds for one event.
func ourGroup(command string, e ClaudeEntry) json.RawMessage {
	handler := object{
		{Key: "type", Value: mustJSON("command")},
		{Key: "command", Value: mustJSON(command)},
		{Key: "timeout", Value: mustJSON(e.Timeout)},
	}
	if e.Block {
		handler = append(handler, member{Key: "onFailure", Value: mustJSON("block")})
	}
	var g object
	if e.Matcher != "" {
		g = append(g, member{Key: "matcher", Value: mustJSON(e.Matcher)})
	}
	g = append(g, member{Key: "hooks", Value: marshalArray([]json.RawMessage{handler.marshal()})})
	return g.marshal()
}

// upgradeBlock sets "onFailure": "block" on exarchos's handlers in groups that lack it, in place,
// keeping every other member as written. It reports whether anything changed.
func upgradeBlock(groups []json.RawMessage) bool {
	changed := false
	for i, group := range groups {
		g, err := parseObject(group)
		if err != nil {
			continue
		}
		raw, _ := g.get("hooks")
		handlers, err := parseArray(raw)
		if err != nil {
			continue
		}
		groupChanged := false
		for j, h := range handlers {
			if !IsHookCommand(handlerCommand(h)) {
				continue
			}
			ho, err := parseObject(h)
			if err != nil {
				continue
			}
			if v, ok := ho.get("onFailure"); ok && string(bytes.TrimSpace(v)) == `"block"` {
				continue
			}
			ho.set("onFailure", mustJSON("block"))
			handlers[j] = ho.marshal()
			groupChanged = true
		}
		if groupChanged {
			g.set("hooks", marshalArray(handlers))
			groups[i] = g.marshal()
			changed = true
		}
	}
	return changed
}

// handlerCommand is the command of one hook handler, or "".
func handlerCommand(h json.RawMessage) string {
	var v struct {
		Command string `json:"command"`
	}
	_ = json.Unmarshal(h, &v)
	return v.Command
}

func hasOurs(group json.RawMessage) bool {
	g, err := parseObject(group)
	if err != nil {
		return false
	}
	raw, _ := g.get("hooks")
	handlers, _ := parseArray(raw)
	return slices.ContainsFunc(handlers, func(h json.RawMessage) bool { return IsHookCommand(handlerCommand(h)) })
}

// withoutOurs is the group without exarchos's handlers; false when none is left.
func withoutOurs(group json.RawMessage) (json.RawMessage, bool) {
	if !hasOurs(group) {
		return group, true
	}
	g, _ := parseObject(group)
	raw, _ := g.get("hooks")
	handlers, _ := parseArray(raw)
	handlers = slices.DeleteFunc(handlers, func(h json.RawMessage) bool { return IsHookCommand(handlerCommand(h)) })
	if len(handlers) == 0 {
		return nil, false
	}
	g.set("hooks", marshalArray(handlers))
	return g.marshal(), true
}

// object is a JSON object with its members in file order and their values as written.
type object []member

type member struct {
	Key   string
	Value json.RawMessage
}

func parseObject(b []byte) (object, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, fmt.Errorf("expected a JSON object")
	}
	o := object{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := t.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		o.set(key, v)
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, fmt.Errorf("content after the JSON object")
	}
	return o, nil
}

func parseArray(b json.RawMessage) ([]json.RawMessage, error) {
	if len(bytes.TrimSpace(b)) == 0 {
		return nil, nil
	}
	var a []json.RawMessage
	err := json.Unmarshal(b, &a)
	return a, err
}

func (o object) get(key string) (json.RawMessage, bool) {
	for _, m := range o {
		if m.Key == key {
			return m.Value, true
		}
	}
	return nil, false
}

func (o *object) set(key string, v json.RawMessage) {
	for i, m := range *o {
		if m.Key == key {
			(*o)[i].Value = v
			return
		}
	}
	*o = append(*o, member{Key: key, Value: v})
}

func (o *object) delete(key string) {
	*o = slices.DeleteFunc(*o, func(m member) bool { return m.Key == key })
}

func (o object) marshal() json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(mustJSON(m.Key))
		b.WriteByte(':')
		b.Write(m.Value)
	}
	b.WriteByte('}')
	return b.Bytes()
}

func marshalArray(items []json.RawMessage) json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('[')
	for i, it := range items {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(it)
	}
	b.WriteByte(']')
	return b.Bytes()
}

func mustJSON(v any) json.RawMessage {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(err) // only strings and numbers are encoded here
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}
