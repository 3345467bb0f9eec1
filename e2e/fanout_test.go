package e2e

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/exarchos/git-exarchos/internal/modelserver"
)

// stagedWorkflow is a repository-defined workflow whose phase checks runs two stages in parallel,
// each with its own envelope (test: Read and `go test`; lint: Glob and `golangci-lint`), and
// joins into review. The phase's own envelope (Bash only) holds once no stage runs.
const stagedWorkflow = `type: staged
initial: build
phases:
  - id: build
  - id: checks
    allowedTools: [Bash]
  - id: fix
  - id: review
  - id: done
    kind: final
  - id: cancelling
  - id: cancelled
    kind: final
stages:
  - id: test
    allowedTools: [Read, "Bash(go test:*)"]
  - id: lint
    allowedTools: [Glob, "Bash(golangci-lint:*)"]
fanouts:
  - {phase: checks, stages: [test, lint], join: review}
transitions:
  - {from: build, to: checks}
  - {from: checks, to: fix}
  - {from: fix, to: checks}
  - {from: review, to: fix}
  - {from: review, to: done}
  - {from: "*", to: cancelling, on: [cancel]}
  - {from: cancelling, to: cancelled, on: [cancel]}
`

// commitOnBase commits files on main and moves origin/main to it, as if fetched: what the
// repository defines is read from the base branch.
func commitOnBase(e *Env, files map[string]string, msg string) {
	e.T.Helper()
	for name, content := range files {
		writeFile(e.T, filepath.Join(e.Dir, name), content)
		e.Git(e.Dir, "add", name)
	}
	e.Git(e.Dir, "commit", "-q", "-m", msg)
	e.Git(e.Dir, "update-ref", "-m", "fetch: as if fetched from origin", "refs/remotes/origin/main", "HEAD")
}

// A fan-out through the real client and the plugin's hooks: while both stages run, what either
// allows passes and nothing else; the agent hands in a stage with `git exarchos stage done` (or
// the MCP tool), though no stage allows either, and that stage's tools drop out; the join passes
// once both completed. On the next visit a failing stage cancels its sibling: its tools drop out
// at once, its hand-in and the join are refused. Every refusal is asserted on what reached the
// model.
func TestFanOutStagesThroughTheClient(t *testing.T) {
	e := NewEnv(t)
	commitOnBase(e, map[string]string{".exarchos/workflows/staged.yaml": stagedWorkflow}, "staged workflow")
	e.Git(e.Dir, "switch", "-q", "-c", "rel")
	e.MustHuman("init", "rel", "--type", "staged")
	e.MustHuman("transition", "rel", "checks")
	readme := filepath.Join(e.Dir, "README.md")
	read := func(id string) modelserver.ToolUse {
		return modelserver.ToolUse{ID: id, Name: "Read", Input: map[string]any{"file_path": readme}}
	}
	glob := func(id string) modelserver.ToolUse {
		return modelserver.ToolUse{ID: id, Name: "Glob", Input: map[string]any{"pattern": "*.go"}}
	}
	both := "Its running stages (test, lint) allow, together, only Read, Bash(go test:*), Glob, Bash(golangci-lint:*)"
	script := []modelserver.Turn{
		{Agent: mainAgent, ToolUses: []modelserver.ToolUse{
			read("read-1"), glob("glob-1"),
			{ID: "write-1", Name: "Write", Input: map[string]any{"file_path": filepath.Join(e.Dir, "notes.txt"), "content": "x\n"}},
			Bash("rm-1", "rm -f main.go"),
		}},
		{Agent: mainAgent, Expect: expectAll(
			ExpectResult("read-1", no, "# app"),
			ExpectResult("glob-1", no, "main.go"),
			ExpectResult("write-1", yes, both),
			ExpectResult("rm-1", yes, both)),
			ToolUses: []modelserver.ToolUse{Bash("done-test", "git exarchos stage done rel test")}},
		// test completed: Read left with it, Glob remains; the join still waits for lint.
		{Agent: mainAgent, Expect: ExpectResult("done-test", no, "rel: stage test completed"),
			ToolUses: []modelserver.ToolUse{read("read-2"), glob("glob-2"), Bash("join-early", "git exarchos transition rel review")}},
		{Agent: mainAgent, Expect: expectAll(
			ExpectResult("read-2", yes, "Its running stages (lint) allow, together, only Glob, Bash(golangci-lint:*)"),
			ExpectResult("glob-2", no, "main.go"),
			ExpectResult("join-early", yes, "guard stages-completed: stage(s) lint still running", "fix: git exarchos stage done rel lint")),
			// lint through the MCP server's tool: neither stage allows it, handing in does.
			ToolUses: []modelserver.ToolUse{{ID: "done-lint", Name: "mcp__plugin_exarchos_exarchos__stage_done", Input: map[string]any{"feature": "rel", "stage": "lint"}}}},
		{Agent: mainAgent, Expect: ExpectResult("done-lint", no, "stage.completed"),
			ToolUses: []modelserver.ToolUse{Bash("join", "git exarchos transition rel review")}},
		// The next visit: test fails, lint is cancelled with it.
		{Agent: mainAgent, Expect: ExpectResult("join", no, "the staged workflow is in review"),
			ToolUses: []modelserver.ToolUse{Bash("again", "git exarchos transition rel fix && git exarchos transition rel checks")}},
		{Agent: mainAgent, Expect: ExpectResult("again", no, "the staged workflow is in checks"),
			ToolUses: []modelserver.ToolUse{Bash("fail-test", "git exarchos stage fail rel test --reason 'TestLogin fails'")}},
		{Agent: mainAgent, Expect: ExpectResult("fail-test", no, "rel: stage failed, 1 running stage(s) cancelled"),
			ToolUses: []modelserver.ToolUse{glob("glob-3"), Bash("done-cancelled", "git exarchos stage done rel lint"), Bash("join-failed", "git exarchos transition rel review")}},
		{Agent: mainAgent, Expect: expectAll(
			ExpectResult("glob-3", yes, "Glob is not allowed"),
			ExpectResult("done-cancelled", yes, "STAGE_CANCELLED: stage lint of rel was cancelled when stage test failed (TestLogin fails)"),
			ExpectResult("join-failed", yes, "guard stages-completed: stage test failed (TestLogin fails)", "fix: git exarchos transitions rel")),
			Text: "test fails: the fan-out does not join."},
	}
	res := e.Session().Run("run the checks of rel", script)
	if fin := res.Final(); fin == nil || fin["subtype"] != "success" {
		t.Fatalf("session ended with %v\n%s", fin, res.Stderr)
	}

	// As the human sees it: still in checks, test failed, lint cancelled, the refusals recorded.
	status := e.MustHuman("status", "rel")
	for _, want := range []string{"[failed] test (TestLogin fails)", "[cancelled] lint (when test failed)"} {
		if !strings.Contains(status, want) {
			t.Errorf("status lacks %q:\n%s", want, status)
		}
	}
	if n := strings.Count(e.MustHuman("log", "rel", "--type", "tool.denied"), "tool.denied"); n != 4 {
		t.Errorf("%d tool.denied events, want 4 (write-1, rm-1, read-2, glob-3)", n)
	}
}
