package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/exarchos/git-exarchos/internal/modelserver"
)

// Issue 40 item 7, through the pinned client: the model reaches Claude Code's deferred task tools
// through ToolSearch, creates a task naming workflow task t1 and marks it completed. The client
// runs the TaskCompleted hook, which refuses while t1 is open in the workflow: TaskUpdate fails
// with the reason and the fix, and the Claude task stays open. After `task done` recorded t1 on
// its commit, the same update passes. The payload the client sent is recorded
// (hook.task-completed) with the fields the handler reads.
func TestTaskCompletedHeldToTheWorkflowTask(t *testing.T) {
	e := NewEnv(t)
	log := filepath.Join(t.TempDir(), "payloads.jsonl")
	e.ExtraEnv = append(e.ExtraEnv, "PAYLOAD_LOG="+log)
	writeFile(t, filepath.Join(e.Home, ".claude", "settings.json"),
		`{"hooks":{"TaskCompleted":[{"hooks":[{"type":"command","command":"sh -c 'cat >> \"$PAYLOAD_LOG\"; echo >> \"$PAYLOAD_LOG\"'"}]}]}}`)
	e.Git(e.Dir, "switch", "-q", "-c", "login")
	e.MustHuman("init", "login", "--type", "feature")
	e.MustHuman("task", "add", "login", "t1", "--title", "session store")
	e.MustHuman("task", "start", "login", "t1")

	tools := append(append([]string{}, DefaultTools...), "ToolSearch", "TaskCreate", "TaskUpdate", "TaskList", "TaskGet")
	script := func(id string, check func(*modelserver.Request) error) []modelserver.Turn {
		return []modelserver.Turn{
			{Agent: mainAgent, ToolUses: []modelserver.ToolUse{{ID: id + "s", Name: "ToolSearch", Input: map[string]any{"query": "select:TaskCreate,TaskUpdate", "max_results": 5}}}},
			{Agent: mainAgent, ToolUses: []modelserver.ToolUse{{ID: id + "c", Name: "TaskCreate", Input: map[string]any{"subject": "t1: session store", "description": "the session store of workflow task t1"}}}},
			{Agent: mainAgent, ToolUses: []modelserver.ToolUse{{ID: id + "u", Name: "TaskUpdate", Input: map[string]any{"taskId": "1", "status": "completed"}}}},
			{Agent: mainAgent, Expect: check, Text: "done"},
		}
	}
	s := e.Session()
	s.AllowedTools = tools
	res := s.Run("track the work", script("a", ExpectResult("au", nil, "workflow login's task t1 is in progress", "git exarchos task done login t1")))
	text, _, _ := res.ToolResult("au")
	if !strings.Contains(text, "git exarchos task done login t1") {
		t.Fatalf("TaskUpdate's result does not carry the hook's refusal:\n%s", text)
	}
	if c, _, _ := res.ToolResult("ac"); !strings.Contains(c, "#1") {
		t.Fatalf("TaskCreate did not create task #1: %s", c)
	}
	if got := e.MustHuman("log", "login", "--type", "hook.task-completed"); !strings.Contains(got, "hook.task-completed") {
		t.Errorf("no hook.task-completed recorded:\n%s", got)
	}
	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatalf("the client ran no TaskCompleted hook: %v", err)
	}
	for _, f := range []string{`"hook_event_name":"TaskCompleted"`, `"task_id":"1"`, `"task_subject":"t1: session store"`, `"task_description":`} {
		if !strings.Contains(string(b), f) {
			t.Errorf("TaskCompleted payload lacks %s:\n%s", f, b)
		}
	}

	// The work committed and recorded: the same update passes.
	writeFile(t, filepath.Join(e.Dir, "store.go"), "package app\n")
	e.Git(e.Dir, "add", "store.go")
	e.Git(e.Dir, "commit", "-q", "-m", "store")
	e.MustHuman("task", "done", "login", "t1")
	s2 := e.Session()
	s2.AllowedTools = tools
	res = s2.Run("track the work", script("b", ExpectResult("bu", no, "Updated task #1")))
	if text, _, _ := res.ToolResult("bu"); strings.Contains(text, "git exarchos") {
		t.Errorf("refused after task done:\n%s", text)
	}
}
