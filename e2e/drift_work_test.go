package e2e

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/exarchos/git-exarchos/internal/modelserver"
)

// Issue 38 item 3, through the real client: in delegate, the agent makes commits that are no
// work — empty (with a message, and with none), a Go comment, whitespace, a JavaScript block
// comment in a new file — and marks its task done after each, by the CLI and by the plugin's MCP
// tool, then asks for review. Each is refused with what counts and what to do instead, the refusal
// reaching the model; the task stays open and the workflow in delegate.
func TestNoWorkIsNoTasksWorkThroughThePlugin(t *testing.T) {
	e := NewEnv(t)
	toDelegate(e)
	e.MustHuman("task", "add", "login", "t1", "--title", "login page")
	done := " && git exarchos task done login t1"
	noWork := []string{"task t1", "git exarchos task fail login t1"}
	onlyComments := "change only whitespace or comments"
	script := []modelserver.Turn{
		{Agent: mainAgent, ToolUses: []modelserver.ToolUse{Bash("empty", "git commit -q --allow-empty -m 'login t1: the login page'"+done)}},
		{Agent: mainAgent, Expect: ExpectResult("empty", yes, append(noWork, "change no file (an empty commit)")...),
			ToolUses: []modelserver.ToolUse{Bash("empty-message", "git commit -q --allow-empty --allow-empty-message -m ''"+done)}},
		{Agent: mainAgent, Expect: ExpectResult("empty-message", yes, append(noWork, "change no file (an empty commit)")...),
			ToolUses: []modelserver.ToolUse{Bash("go-comment", `printf 'package main\n\n// main runs the app.\nfunc main() {} // the login page comes here\n' > main.go && git commit -qam 'login t1: login page'`+done)}},
		{Agent: mainAgent, Expect: ExpectResult("go-comment", yes, append(noWork, onlyComments+" (main.go)")...),
			ToolUses: []modelserver.ToolUse{Bash("whitespace", `printf 'package main\n\n// main runs the app.\nfunc main()   {}    // the login page comes here\n\n\n' > main.go && git commit -qam 'login t1: format'`+done)}},
		{Agent: mainAgent, Expect: ExpectResult("whitespace", yes, append(noWork, onlyComments)...),
			ToolUses: []modelserver.ToolUse{Bash("js-comment", `printf '/*\n * login page\n */\n\n// TODO\n' > login.js && git add login.js && git commit -qm 'login t1: login.js'`+done)}},
		{Agent: mainAgent, Expect: ExpectResult("js-comment", yes, append(noWork, onlyComments, "login.js")...),
			ToolUses: []modelserver.ToolUse{{ID: "mcp-done", Name: "mcp__plugin_exarchos_exarchos__task_done", Input: map[string]any{"feature": "login", "task": "t1"}}}},
		{Agent: mainAgent, Expect: ExpectResult("mcp-done", yes, append(noWork, onlyComments)...),
			ToolUses: []modelserver.ToolUse{Bash("to-review", "git exarchos transition login review")}},
		{Agent: mainAgent, Expect: ExpectResult("to-review", yes, "work-committed", onlyComments),
			Text: "None of these commits is work: I will write the login page's code before marking t1 done."},
	}
	runDrift(e, "implement task t1 of login", script, "delegate")
	var st struct {
		Tasks []struct {
			ID     string `json:"id"`
			Status string `json:"status"`
		} `json:"tasks"`
	}
	out := e.MustHuman("status", "login", "--json", "--fields", "tasks")
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		t.Fatalf("status: %v\n%s", err, out)
	}
	if len(st.Tasks) != 1 || st.Tasks[0].Status == "completed" {
		t.Errorf("task t1 after the attempts: %s", out)
	}
	if log := e.MustHuman("log", "login", "--type", "task.completed"); strings.Contains(log, "task.completed") {
		t.Errorf("a task.completed was recorded:\n%s", log)
	}
}
