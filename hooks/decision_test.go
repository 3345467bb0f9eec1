package hooks

import (
	"errors"
	"strings"
	"testing"

	"github.com/exarchos/git-exarchos/workflow"
)

// failingRecord is a repository whose writes fail, as with a stale lock on the workflow's ref.
type failingRecord struct{ fakeRepo }

func (f *failingRecord) Record(Bound, func(workflow.State) string, ...workflow.NewEvent) (string, error) {
	return "", errors.New("lock refs/exarchos/guide.lock: file exists")
}

// TestHandleDecisions is issue 14's table of the hook's decisions that do not depend on the Bash
// parser: file tools on protected paths, allow-lists in planning phases, failing closed, and the
// effects check's answer.
func TestHandleDecisions(t *testing.T) {
	capped := docsBound()
	capped.Def = &workflow.Definition{Type: "docs", Initial: "write", Phases: []workflow.Phase{{ID: "write", Tools: workflow.Envelope{TurnCap: 5}}}}
	cases := []struct {
		name  string
		repo  Repository
		in    Input
		want  string // substring of the refusal; "" allowed
		block bool   // a PostToolUse block rather than a PreToolUse deny
	}{
		{"Write a git hook, no workflow", &fakeRepo{}, pre("Write", "1", ToolInput{FilePath: "/repo/.git/hooks/pre-commit"}), "may not change", false},
		{"Edit Claude's settings, no workflow", &fakeRepo{}, pre("Edit", "2", ToolInput{FilePath: ".claude/settings.json"}), "may not change", false},
		{"Write a ref file", &fakeRepo{bound: []Bound{feature("delegate")}}, pre("Write", "3", ToolInput{FilePath: "/repo/.git/refs/exarchos/f"}), "may not change", false},
		{"Write a workflow definition", &fakeRepo{bound: []Bound{feature("delegate")}}, pre("Write", "4", ToolInput{FilePath: "/repo/.exarchos/workflows/x.yaml"}), "may not change", false},
		{"NotebookEdit the journal", &fakeRepo{}, pre("NotebookEdit", "5", ToolInput{NotebookPath: "/repo/.git/exarchos/journal/login.jsonl"}), "may not change", false},
		{"Write code in delegate", &fakeRepo{bound: []Bound{feature("delegate")}}, pre("Write", "6", ToolInput{FilePath: "/repo/main.go"}), "", false},
		{"an MCP write tool in plan", &fakeRepo{bound: []Bound{feature("plan")}}, pre("mcp__github__create_or_update_file", "7", ToolInput{}), "The phase allows only", false},
		{"an unknown tool in ideate", &fakeRepo{bound: []Bound{feature("ideate")}}, pre("FancyNewTool", "8", ToolInput{}), "not allowed while workflow login", false},
		{"an MCP tool in delegate", &fakeRepo{bound: []Bound{feature("delegate")}}, pre("mcp__github__create_or_update_file", "9", ToolInput{}), "", false},
		{"Read in plan", &fakeRepo{bound: []Bound{feature("plan")}}, pre("Read", "10", ToolInput{FilePath: "/repo/main.go"}), "", false},
		{"the workflow cannot be read: Write", &fakeRepo{err: errors.New("refs/exarchos/login holds \"x\"")}, pre("Write", "11", ToolInput{FilePath: "x"}), "cannot read the workflow this session works on", false},
		{"the workflow cannot be read: Bash", &fakeRepo{err: errors.New("boom")}, pre("Bash", "15", ToolInput{Command: "ls"}), "git exarchos fsck", false},
		{"the workflow cannot be read: an unknown tool", &fakeRepo{err: errors.New("boom")}, pre("FancyNewTool", "16", ToolInput{}), "git exarchos hooks release --session", false},
		{"the workflow cannot be read: Read passes", &fakeRepo{err: errors.New("boom")}, pre("Read", "17", ToolInput{FilePath: "x"}), "", false},
		{"the workflow cannot be read: Grep passes", &fakeRepo{err: errors.New("boom")}, pre("Grep", "18", ToolInput{}), "", false},
		{"the workflow cannot be read: PostToolUse", &fakeRepo{err: errors.New("boom")}, Input{HookEventName: PostToolUse, ToolName: "Bash"}, "git exarchos fsck", true},
		{"a call that cannot be counted", &failingRecord{fakeRepo{bound: []Bound{capped}}}, pre("Read", "12", ToolInput{FilePath: "x"}), "could not record this call", false},
		{"effects outside the allowed paths", &fakeRepo{bound: []Bound{feature("plan")}, changes: []Change{{Path: "docs/a.md", Where: "untracked"}, {Path: "main.go", Where: "worktree"}}}, Input{HookEventName: PostToolUse, ToolName: "Bash"}, "main.go (worktree)", true},
		{"effects inside the allowed paths", &fakeRepo{bound: []Bound{feature("plan")}, changes: []Change{{Path: "docs/a.md", Where: "untracked"}, {Path: "sub/README.md", Where: "index"}}}, Input{HookEventName: PostToolUse, ToolName: "Bash"}, "", true},
		{"effects unreadable", &fakeRepo{bound: []Bound{feature("plan")}, changesErr: errors.New("git status: index.lock")}, Input{HookEventName: PostToolUse, ToolName: "mcp__x__y"}, "could not read what changed", true},
		{"effects after a read-only tool are not looked at", &fakeRepo{bound: []Bound{feature("plan")}, changes: []Change{{Path: "main.go", Where: "worktree"}}}, Input{HookEventName: PostToolUse, ToolName: "Read"}, "", true},
		{"effects in delegate are not restricted", &fakeRepo{bound: []Bound{feature("delegate")}, changes: []Change{{Path: "main.go", Where: "worktree"}}}, Input{HookEventName: PostToolUse, ToolName: "Bash"}, "", true},
		{"a type the base branch does not define", &fakeRepo{bound: []Bound{{Feature: "x", State: workflow.State{Type: "gone", Phase: "a"}}}}, pre("Edit", "14", ToolInput{}), "which the base branch does not define", false},
		{"a type the base branch does not define: Glob passes", &fakeRepo{bound: []Bound{{Feature: "x", State: workflow.State{Type: "gone", Phase: "a"}}}}, pre("Glob", "19", ToolInput{}), "", false},
		{"a panic or a timeout: PreToolUse", nil, pre("Read", "13", ToolInput{}), "the hook failed", false},
	}
	for _, c := range cases {
		var out Output
		if c.repo == nil {
			out = Failed(c.in, "no answer within 5s")
		} else {
			out = Handle(c.in, c.repo, func(string) {})
		}
		got := ""
		switch {
		case out.Denied():
			got = out.Specific.PermissionDecisionReason
		case out.Decision == "block":
			got = out.Reason
			if !c.block {
				t.Errorf("%s: a block, want a PreToolUse deny", c.name)
			}
		}
		if c.want == "" && got != "" || c.want != "" && !strings.Contains(got, c.want) {
			t.Errorf("%s:\n got %q\nwant %q", c.name, got, c.want)
		}
	}
}
