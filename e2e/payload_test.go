package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/exarchos/git-exarchos/hooks"
	"github.com/exarchos/git-exarchos/internal/modelserver"
)

// handlerReads are the payload fields the handler reads for each event (hooks.Input); the client
// must send them, or the hook decides on empty values.
var handlerReads = map[string][]string{
	hooks.PreToolUse:    {"session_id", "cwd", "hook_event_name", "tool_name", "tool_input", "tool_use_id"},
	hooks.PostToolUse:   {"session_id", "cwd", "hook_event_name", "tool_name", "tool_input", "tool_use_id"},
	hooks.SessionStart:  {"session_id", "cwd", "hook_event_name", "source"},
	hooks.SubagentStart: {"session_id", "cwd", "hook_event_name", "agent_id", "agent_type"},
	hooks.SubagentStop:  {"session_id", "cwd", "hook_event_name", "stop_hook_active", "agent_id"},
	hooks.Stop:          {"session_id", "cwd", "hook_event_name", "stop_hook_active"},
	hooks.SessionEnd:    {"session_id", "cwd", "hook_event_name", "reason"},
	hooks.PreCompact:    {"session_id", "cwd", "hook_event_name", "trigger"},
	hooks.TaskCompleted: {"session_id", "cwd", "hook_event_name", "task_id", "task_subject", "task_description"},
}

// The payload fields the pinned client really sends for each event the handler answers, recorded
// in e2e/testdata/hook-payloads.json: a client that adds, drops or renames a field fails here,
// not silently in the hook. A logging hook in the user's settings records every payload beside
// the plugin's handler; the session runs a tool, a subagent, and a compaction.
func TestHookPayloadFieldsOfThePinnedClient(t *testing.T) {
	e := NewEnv(t)
	log := filepath.Join(t.TempDir(), "payloads.jsonl")
	e.ExtraEnv = append(e.ExtraEnv, "PAYLOAD_LOG="+log)
	logger := map[string]any{"type": "command", "command": `sh -c 'cat >> "$PAYLOAD_LOG"; echo >> "$PAYLOAD_LOG"'`}
	events := map[string]any{}
	for ev := range handlerReads {
		group := map[string]any{"hooks": []any{logger}}
		if ev == hooks.PreToolUse || ev == hooks.PostToolUse {
			group["matcher"] = "*"
		}
		events[ev] = []any{group}
	}
	settings, _ := json.Marshal(map[string]any{"hooks": events})
	writeFile(t, filepath.Join(e.Home, ".claude", "settings.json"), string(settings))
	e.Git(e.Dir, "switch", "-q", "-c", "login")
	e.MustHuman("init", "login", "--type", "feature")

	s := e.Session()
	s.AllowedTools = append(append([]string{}, DefaultTools...), "ToolSearch", "TaskCreate", "TaskUpdate")
	s.Run("look around", []modelserver.Turn{
		{Agent: mainAgent, ToolUses: []modelserver.ToolUse{Bash("b", "git exarchos status login")}},
		// Claude Code's task list, deferred behind ToolSearch: a task marked completed fires TaskCompleted.
		{Agent: mainAgent, ToolUses: []modelserver.ToolUse{{ID: "ts", Name: "ToolSearch", Input: map[string]any{"query": "select:TaskCreate,TaskUpdate", "max_results": 5}}}},
		{Agent: mainAgent, ToolUses: []modelserver.ToolUse{{ID: "tc", Name: "TaskCreate", Input: map[string]any{"subject": "look around", "description": "read the workflow"}}}},
		{Agent: mainAgent, ToolUses: []modelserver.ToolUse{{ID: "tu", Name: "TaskUpdate", Input: map[string]any{"taskId": "1", "status": "completed"}}}},
		{Agent: mainAgent, ToolUses: []modelserver.ToolUse{{ID: "sub", Name: "Task", Input: map[string]any{
			"description": "look", "subagent_type": "exarchos:reviewer", "run_in_background": false, "prompt": "Say hello.",
		}}}},
		{Agent: reviewerAgent, Text: "hello"},
		{Agent: mainAgent, Text: "done"},
	})
	// A compaction: the client summarises the conversation, then starts again from the summary.
	// Its requests carry tools but not the main agent's appended marker: matched by the client's
	// own prompt.
	s.Resume("/compact", []modelserver.Turn{
		{Agent: "You are Claude Code", Text: "<summary>Looked around workflow login.</summary>"},
	})

	got := map[string][]string{}
	f, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(bytes.NewReader(f))
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var p map[string]json.RawMessage
		if len(bytes.TrimSpace(sc.Bytes())) == 0 || json.Unmarshal(sc.Bytes(), &p) != nil {
			continue
		}
		var ev string
		_ = json.Unmarshal(p["hook_event_name"], &ev)
		for k := range p {
			if !slices.Contains(got[ev], k) {
				got[ev] = append(got[ev], k)
			}
		}
	}
	for ev := range got {
		sort.Strings(got[ev])
	}
	for ev, fields := range handlerReads {
		if got[ev] == nil {
			continue // an event this session did not cause is not recorded
		}
		for _, f := range fields {
			if !slices.Contains(got[ev], f) {
				t.Errorf("%s payload lacks %s, which the handler reads (it sent %v)", ev, f, got[ev])
			}
		}
	}
	doc, _ := json.MarshalIndent(map[string]any{
		"client": clientVersion(t, e),
		"note":   "top-level fields of each hook payload the client sent (TestHookPayloadFieldsOfThePinnedClient; go test ./e2e -run TestHookPayloadFieldsOfThePinnedClient -update rewrites it)",
		"events": got,
	}, "", "  ")
	if err := compareDoc(filepath.Join("e2e", "testdata", "hook-payloads.json"), string(doc)+"\n"); err != nil {
		t.Error(err)
	}
	// The plugin's PreCompact handler recorded the checkpoint.
	if cp := e.MustHuman("log", "login", "--type", "hook.checkpoint"); !strings.Contains(cp, "hook.checkpoint") {
		t.Errorf("no hook.checkpoint after /compact:\n%s", cp)
	}
	if !bytes.Contains(f, []byte(`"source":"compact"`)) {
		t.Error("no SessionStart with source compact after the compaction")
	}
	for _, ev := range []string{hooks.PreToolUse, hooks.PostToolUse, hooks.SessionStart, hooks.SubagentStart, hooks.SubagentStop, hooks.Stop, hooks.PreCompact, hooks.SessionEnd, hooks.TaskCompleted} {
		if got[ev] == nil {
			t.Errorf("no %s payload recorded: the session no longer causes it", ev)
		}
	}
}

func clientVersion(t *testing.T, e *Env) string {
	out, err := e.run(e.Dir, e.Claude, "--version")
	if err != nil {
		t.Fatalf("claude --version: %v\n%s", err, out)
	}
	return strings.TrimSpace(out)
}

// The plugin and a settings install together handle every event once: the plugin's handler stands
// aside. SessionEnd records one hook.session-ended event per session, so two would show a double.
func TestPluginAndSettingsHooksHandleEachEventOnce(t *testing.T) {
	e := NewEnv(t)
	e.Git(e.Dir, "switch", "-q", "-c", "login")
	e.MustHuman("init", "login", "--type", "feature")
	e.MustHuman("hooks", "install", "--claude")
	res := e.Session().Run("hi", []modelserver.Turn{
		{Agent: mainAgent, ToolUses: []modelserver.ToolUse{{ID: "w", Name: "Write", Input: map[string]any{"file_path": filepath.Join(e.Dir, "main.go"), "content": "x"}}}},
		{Agent: mainAgent, Expect: ExpectResult("w", yes, "Write is not allowed"), Text: "done"},
	})
	text, _, _ := res.ToolResult("w")
	if n := strings.Count(text, "Write is not allowed"); n != 1 {
		t.Errorf("the refusal reached the model %d times:\n%s", n, text)
	}
	ended := e.MustHuman("log", "login", "--type", "hook.session-ended")
	denied := e.MustHuman("log", "login", "--type", "tool.denied")
	if n := strings.Count(ended, "hook.session-ended"); n != 1 {
		t.Errorf("%d hook.session-ended events, want 1:\n%s", n, ended)
	}
	if n := strings.Count(denied, "tool.denied"); n != 1 {
		t.Errorf("%d tool.denied events, want 1:\n%s", n, denied)
	}
	// The settings install is the one that ran: without it, the plugin's handler decides alone.
	e.MustHuman("hooks", "uninstall", "--claude")
	e.Session().Run("hi", []modelserver.Turn{
		{Agent: mainAgent, ToolUses: []modelserver.ToolUse{{ID: "w2", Name: "Write", Input: map[string]any{"file_path": filepath.Join(e.Dir, "main.go"), "content": "x"}}}},
		{Agent: mainAgent, Expect: ExpectResult("w2", yes, "Write is not allowed"), Text: "done"},
	})
	if n := strings.Count(e.MustHuman("log", "login", "--type", "hook.session-ended"), "hook.session-ended"); n != 2 {
		t.Errorf("%d hook.session-ended events after the second session, want 2", n)
	}
}
