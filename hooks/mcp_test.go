package hooks

import (
	"strings"
	"testing"

	"github.com/exarchos/git-exarchos/workflow"
)

// TestPolicyCoversMCPTools: the exarchos MCP server's tools (mcp__exarchos__<tool>, as Claude
// Code names them) are tool calls like any other: a phase's allow-list and deny-list apply to
// them, a glob rule can allow them, a grant lets one through, and the denial names the tool.
func TestPolicyCoversMCPTools(t *testing.T) {
	const transition = "mcp__exarchos__workflow_transition"
	def := &workflow.Definition{Type: "custom", Initial: "only-read", Phases: []workflow.Phase{
		{ID: "only-read", Kind: workflow.Normal, Tools: workflow.Envelope{AllowedTools: []string{"Read"}}},
		{ID: "exarchos-ok", Kind: workflow.Normal, Tools: workflow.Envelope{AllowedTools: []string{"Read", "mcp__exarchos__*"}}},
		{ID: "no-cancel", Kind: workflow.Normal, Tools: workflow.Envelope{Deny: []string{"mcp__exarchos__workflow_cancel"}}},
	}}
	bound := func(phase string) Bound {
		return Bound{Feature: "x", Def: def, Root: "/repo", State: workflow.State{Feature: "x", Type: "custom", Phase: phase, Branch: "x"}}
	}
	cases := []struct {
		phase, tool string
		denied      bool
	}{
		{"only-read", transition, true},
		{"only-read", "Read", false},
		{"exarchos-ok", transition, false},
		{"exarchos-ok", "mcp__exarchos__task_add", false},
		{"exarchos-ok", "mcp__other__task_add", true},
		{"no-cancel", "mcp__exarchos__workflow_cancel", true},
		{"no-cancel", transition, false},
	}
	for _, c := range cases {
		if got := CheckTool(bound(c.phase), c.tool, ToolInput{}, "/repo"); (got != "") != c.denied {
			t.Errorf("%s in %s: %q, want denied=%v", c.tool, c.phase, got, c.denied)
		}
	}
	reason := CheckTool(bound("only-read"), transition, ToolInput{}, "/repo")
	for _, want := range []string{transition + " is not allowed", "allows only Read", "git exarchos grant x --tool"} {
		if !strings.Contains(reason, want) {
			t.Errorf("denial %q does not say %q", reason, want)
		}
	}
	// A human's grant lets the refused MCP call through once.
	w := bound("no-cancel")
	w.State.Grants = []workflow.Grant{{ID: "g1", Tool: "mcp__exarchos__workflow_cancel"}}
	if v := Check(w, "mcp__exarchos__workflow_cancel", ToolInput{}, "/repo"); v.Deny != "" || v.Grant == nil {
		t.Errorf("granted MCP call: %+v", v)
	}
	// Built-in envelopes leave the exarchos tools alone: a planning phase refuses file writes,
	// not the workflow's own tools.
	if r := CheckTool(feature("plan"), "mcp__exarchos__workflow_set", ToolInput{}, "/repo"); r != "" {
		t.Errorf("plan refuses the exarchos set tool: %q", r)
	}
	// The hook is installed for every tool (matcher "*"), so MCP calls reach the policy.
	for _, e := range ClaudeEntries {
		if e.Event == PreToolUse && e.Matcher != "*" {
			t.Errorf("PreToolUse matcher %q does not cover MCP tools", e.Matcher)
		}
	}
}
