package e2e

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/exarchos/git-exarchos/internal/modelserver"
)

// The drift an agent falls into in a planning phase, through the real client and the plugin's
// hooks: every refusal reaches the model as the tool's result with its reason, a write made
// through Bash is reported after the fact with the undo, the human decisions are refused however
// they are spelled, and a subagent may do no more than its parent.
func TestDriftInAPlanningPhaseThroughThePlugin(t *testing.T) {
	e := NewEnv(t)
	e.Git(e.Dir, "switch", "-q", "-c", "login")
	e.MustHuman("init", "login", "--type", "feature")
	src := filepath.Join(e.Dir, "main.go")
	refused := "is not allowed while workflow login (feature) is in phase ideate"
	decisions := map[string]string{ // tool call id → a spelling of a human decision
		"d-approve":  "git exarchos approve login",
		"d-dashdash": "git exarchos -- approve login",
		"d-binary":   "git-exarchos reject login --gaps 'none'",
		"d-shell":    "bash -c 'git exarchos unblock login --reason r'",
		"d-env":      "env X=1 git exarchos grant login --tool Write --match main.go --once --reason r",
		"d-override": "git exarchos cleanup login --override --reason done",
		"d-heredoc":  "sh <<'EOF'\ngit exarchos approve login\nEOF",
	}
	var decisionCalls []modelserver.ToolUse
	var decisionChecks []func(*modelserver.Request) error
	for id, cmd := range decisions {
		decisionCalls = append(decisionCalls, Bash(id, cmd))
		decisionChecks = append(decisionChecks, ExpectResult(id, yes, "human decision"))
	}
	script := []modelserver.Turn{
		{Agent: mainAgent, ToolUses: []modelserver.ToolUse{
			{ID: "edit", Name: "Edit", Input: map[string]any{"file_path": src, "old_string": "func main() {}", "new_string": "func main() { println() }"}},
			{ID: "multiedit", Name: "MultiEdit", Input: map[string]any{"file_path": src, "edits": []map[string]any{{"old_string": "func main() {}", "new_string": "func main() { println() }"}}}},
			{ID: "write", Name: "Write", Input: map[string]any{"file_path": src, "content": "package main\n"}},
		}},
		{Agent: mainAgent, Expect: expectAll(
			ExpectResult("edit", yes, "Edit "+refused, "git exarchos transition login delegate"),
			// 2.1.332 has no MultiEdit tool any more: the client itself refuses it.
			ExpectResult("multiedit", yes, "No such tool available: MultiEdit"),
			ExpectResult("write", yes, "Write "+refused)),
			ToolUses: []modelserver.ToolUse{Bash("sed", "sed -i 's/func main/func Main/' main.go")}},
		// PostToolUse cannot undo the write; it blocks with what changed and the command that undoes it.
		{Agent: mainAgent, Expect: func(r *modelserver.Request) error {
			return expectText("main.go", "git restore --source=HEAD --staged --worktree -- main.go")(r)
		}, ToolUses: decisionCalls},
		{Agent: mainAgent, Expect: expectAll(decisionChecks...),
			ToolUses: []modelserver.ToolUse{{ID: "sub", Name: "Task", Input: map[string]any{
				"description": "implement early", "subagent_type": "exarchos:implementer", "run_in_background": false,
				"prompt": "Feature login: change main.go now.",
			}}}},
		// The subagent runs under the same phase and the same hooks.
		{Agent: implementerAgent, ToolUses: []modelserver.ToolUse{
			{ID: "sub-write", Name: "Write", Input: map[string]any{"file_path": src, "content": "package main\n"}},
			Bash("sub-approve", "git exarchos approve login"),
		}},
		{Agent: implementerAgent, Expect: expectAll(
			ExpectResult("sub-write", yes, "Write "+refused),
			ExpectResult("sub-approve", yes, "human decision")),
			Text: "Refused: the workflow is in ideate."},
		{Agent: mainAgent, Expect: ExpectResult("sub", nil, "Refused"), Text: "I will write the design first."},
	}
	e.Session().Run("implement login now", script)

	// Nothing moved: still ideate, no approval, no review; the refusals are in the audit trail.
	status := e.MustHuman("status", "login", "--json", "--fields", "phase,approvals")
	if !strings.Contains(status, `"phase":"ideate"`) || !strings.Contains(status, `"approvals":[]`) {
		t.Errorf("status after the drift: %s", status)
	}
	denied := e.MustHuman("log", "login", "--type", "tool.denied")
	if n := strings.Count(denied, "tool.denied"); n < 3+len(decisions)+2 {
		t.Errorf("%d tool.denied events, want at least %d:\n%s", n, 3+len(decisions)+2, denied)
	}
}
