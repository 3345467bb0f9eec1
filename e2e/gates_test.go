package e2e

import (
	"strings"
	"testing"

	"github.com/exarchos/git-exarchos/internal/modelserver"
)

// gatedWorkflow runs one quality gate when a task completes.
const gatedWorkflow = `type: gated
initial: build
taskGates:
  - "test -f built.txt || { echo the build left no artifact; false; }"
phases:
  - id: build
  - id: done
    kind: final
  - id: cancelling
  - id: cancelled
    kind: final
transitions:
  - {from: build, to: done}
  - {from: "*", to: cancelling, on: [cancel]}
  - {from: cancelling, to: cancelled, on: [cancel]}
`

// Quality gates through the real client: the agent's `task done` runs the base branch's gate on
// the task's commit; its failure reaches the model as the Bash tool's error (and the MCP tool's)
// with the gate's output and the fix; after the fixing commit the same command completes the task.
func TestTaskGatesThroughTheClient(t *testing.T) {
	e := NewEnv(t)
	commitOnBase(e, map[string]string{".exarchos/workflows/gated.yaml": gatedWorkflow}, "gated workflow")
	e.Git(e.Dir, "switch", "-q", "-c", "w1")
	e.MustHuman("init", "w1", "--type", "gated")
	script := []modelserver.Turn{
		{Agent: mainAgent, ToolUses: []modelserver.ToolUse{Bash("done-1", "git exarchos task add w1 a --title 'build it' && git exarchos task start w1 a && "+
			"echo code > a.go && git add a.go && git commit -qm 'a: code' && git exarchos task done w1 a")}},
		{Agent: mainAgent, Expect: ExpectResult("done-1", yes,
			"task a stays open: its quality gates did not pass on ",
			"the build left no artifact",
			`fix: git commit -am "fix the gate" && git exarchos task done w1 a`),
			ToolUses: []modelserver.ToolUse{{ID: "done-mcp", Name: "mcp__plugin_exarchos_exarchos__task_done", Input: map[string]any{"feature": "w1", "task": "a"}}}},
		// The MCP server's task_done runs the same gate and answers with its output.
		{Agent: mainAgent, Expect: ExpectResult("done-mcp", yes, "the build left no artifact", "task-gates-passed"),
			ToolUses: []modelserver.ToolUse{Bash("done-2", "echo ok > built.txt && git add built.txt && git commit -qm 'a: the artifact' && git exarchos task done w1 a")}},
		{Agent: mainAgent, Expect: ExpectResult("done-2", no, "w1: task done"), Text: "Task a is done."},
	}
	res := e.Session().Run("do task a of w1", script)
	if fin := res.Final(); fin == nil || fin["subtype"] != "success" {
		t.Fatalf("session ended with %v\n%s", fin, res.Stderr)
	}
	tasks := e.MustHuman("status", "w1", "--json", "--fields", "tasks")
	if !strings.Contains(tasks, `"status":"completed"`) {
		t.Errorf("task a after the session: %s", tasks)
	}
	// Both runs recorded, each on its commit: the failure and the pass.
	runs := e.MustHuman("log", "w1", "--type", "validation.recorded", "--json")
	if !strings.Contains(runs, `"exitCode":1`) || !strings.Contains(runs, `"exitCode":0`) {
		t.Errorf("gate runs recorded: %s", runs)
	}
}
