package hookrun_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/exarchos/git-exarchos/hookrun"
	"github.com/exarchos/git-exarchos/internal/agentenv"
	"github.com/exarchos/git-exarchos/internal/apptest"
	"github.com/exarchos/git-exarchos/workflow"
)

func TestCallerNamesTheSubagentTheHookSaw(t *testing.T) {
	dir := t.TempDir()
	apptest.ActAsAgent(t, dir, "s-1", "")
	if c := hookrun.CallerFromEnv(agentenv.Process()); c != (workflow.Caller{Session: "s-1"}) {
		t.Fatalf("main agent: %+v", c)
	}
	apptest.ActAsAgent(t, dir, "s-1", "a-rev")
	if c := hookrun.CallerFromEnv(agentenv.Process()); c.Session != "s-1" || c.Agent != "a-rev" || c.AgentType != "code-reviewer" {
		t.Fatalf("subagent: %+v", c)
	}
	// A second agent's call in flight at once: nobody can be named.
	payload, _ := json.Marshal(map[string]any{"session_id": "s-1", "hook_event_name": "PreToolUse", "cwd": dir, "tool_name": "Bash",
		"tool_use_id": "toolu_main", "tool_input": map[string]string{"command": "git exarchos review f spec pass"}})
	var out bytes.Buffer
	_ = hookrun.ClaudeHook(hookrun.ClaudeHookOptions{Stdin: bytes.NewReader(payload), Stdout: &out, Stderr: &out})
	if c := hookrun.CallerFromEnv(agentenv.Process()); c.Agent != "" {
		t.Fatalf("two agents in flight named %+v", c)
	}
	// PostToolUse takes the main agent's ticket away; the subagent is named again.
	payload, _ = json.Marshal(map[string]any{"session_id": "s-1", "hook_event_name": "PostToolUse", "cwd": dir, "tool_name": "Bash",
		"tool_use_id": "toolu_main", "tool_input": map[string]string{"command": "git exarchos review f spec pass"}})
	_ = hookrun.ClaudeHook(hookrun.ClaudeHookOptions{Stdin: bytes.NewReader(payload), Stdout: &out, Stderr: &out})
	if c := hookrun.CallerFromEnv(agentenv.Process()); c.Agent != "a-rev" {
		t.Fatalf("after PostToolUse: %+v", c)
	}
	// A failed call (a refused command exits non-zero) ends in PostToolUseFailure: its ticket goes
	// too, or the main agent's refused transition would keep the reviewer unnamed.
	for _, event := range []string{"PreToolUse", "PostToolUseFailure"} {
		payload, _ = json.Marshal(map[string]any{"session_id": "s-1", "hook_event_name": event, "cwd": dir, "tool_name": "Bash",
			"tool_use_id": "toolu_main_failed", "tool_input": map[string]string{"command": "git exarchos transition f synthesize"}})
		_ = hookrun.ClaudeHook(hookrun.ClaudeHookOptions{Stdin: bytes.NewReader(payload), Stdout: &out, Stderr: &out})
		if c := hookrun.CallerFromEnv(agentenv.Process()); (c.Agent == "a-rev") != (event == "PostToolUseFailure") {
			t.Fatalf("after %s: %+v", event, c)
		}
	}
	// SubagentStop takes the subagent's tickets away (a failed call has no PostToolUse).
	payload, _ = json.Marshal(map[string]any{"session_id": "s-1", "hook_event_name": "SubagentStop", "cwd": dir, "agent_id": "a-rev", "agent_type": "code-reviewer"})
	_ = hookrun.ClaudeHook(hookrun.ClaudeHookOptions{Stdin: bytes.NewReader(payload), Stdout: &out, Stderr: &out})
	if c := hookrun.CallerFromEnv(agentenv.Process()); c.Agent != "" {
		t.Fatalf("after SubagentStop: %+v", c)
	}
	apptest.ActAsAgent(t, dir, "s-1", "a-rev")
	// Another session's tickets name nobody here.
	t.Setenv("CLAUDE_CODE_SESSION_ID", "s-2")
	if c := hookrun.CallerFromEnv(agentenv.Process()); c.Agent != "" || c.Session != "s-2" {
		t.Fatalf("other session: %+v", c)
	}
}
