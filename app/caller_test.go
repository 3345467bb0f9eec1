package app

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/exarchos/git-exarchos/hookrun"
	"github.com/exarchos/git-exarchos/internal/agentenv"
	"github.com/exarchos/git-exarchos/trust"
	"github.com/exarchos/git-exarchos/workflow"
)

// ActAsAgent makes the commands this test runs in process run as Claude Code's Bash tool runs
// them: in session, and — when agent is not empty — inside the subagent agent, which the hook
// learns as the real client tells it: a PreToolUse payload carrying agent_id and agent_type for
// a Bash call that runs git exarchos.
func ActAsAgent(t testing.TB, dir, session, agent string) {
	t.Helper()
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	t.Setenv("CLAUDE_CODE_SESSION_ID", session)
	t.Setenv("CLAUDECODE", "1")
	t.Setenv("AI_AGENT", "claude-code")
	if agent == "" {
		return
	}
	payload, _ := json.Marshal(map[string]any{
		"session_id": session, "hook_event_name": "PreToolUse", "cwd": dir, "tool_name": "Bash",
		"tool_use_id": "toolu_" + agent, "agent_id": agent, "agent_type": "code-reviewer",
		"tool_input": map[string]string{"command": "git exarchos review"},
	})
	var out, errb bytes.Buffer
	if err := hookrun.ClaudeHook(hookrun.ClaudeHookOptions{Stdin: bytes.NewReader(payload), Stdout: &out, Stderr: &errb}); err != nil {
		t.Fatalf("hook: %v %s", err, errb.String())
	}
}

// ActAsHuman runs what follows in the user's own terminal: no agent variables.
func ActAsHuman(t testing.TB) {
	t.Helper()
	for _, kv := range agentenv.Process() {
		if k, _, _ := strings.Cut(kv, "="); len(agentenv.Strip([]string{kv})) == 0 {
			t.Setenv(k, "") // restored when the test ends
			os.Unsetenv(k)
		}
	}
}

func TestCallerNamesTheSubagentTheHookSaw(t *testing.T) {
	dir := t.TempDir()
	ActAsAgent(t, dir, "s-1", "")
	if c := hookrun.CallerFromEnv(agentenv.Process()); c != (workflow.Caller{Session: "s-1"}) {
		t.Fatalf("main agent: %+v", c)
	}
	ActAsAgent(t, dir, "s-1", "a-rev")
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
	ActAsAgent(t, dir, "s-1", "a-rev")
	// Another session's tickets name nobody here.
	t.Setenv("CLAUDE_CODE_SESSION_ID", "s-2")
	if c := hookrun.CallerFromEnv(agentenv.Process()); c.Agent != "" || c.Session != "s-2" {
		t.Fatalf("other session: %+v", c)
	}
}

// UseCheckerPaths makes the signature checker be looked for in paths for the rest of the test.
func UseCheckerPaths(t testing.TB, paths ...string) {
	t.Helper()
	old := trust.SSHKeygenPaths
	trust.SSHKeygenPaths = paths
	t.Cleanup(func() { trust.SSHKeygenPaths = old })
}
