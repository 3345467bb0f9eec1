package hookrun

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/exarchos/git-exarchos/internal/gittest"
	"github.com/exarchos/git-exarchos/workflow"
)

// Issue 38 items 5–10: what a determined agent tries that the hook can see. Each test drives the
// hook as the real client does (one process call, the payload on stdin) in the environment
// Claude Code gives its commands.

// actAsClaude sets the variables Claude Code's commands carry (2.1.x), the hook's own included.
func actAsClaude(t *testing.T, dir, session string) {
	t.Helper()
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	t.Setenv("CLAUDECODE", "1")
	t.Setenv("CLAUDE_CODE_SESSION_ID", session)
	t.Setenv("CLAUDE_CODE_ENTRYPOINT", "cli")
	t.Setenv("AI_AGENT", "claude-code")
	t.Setenv("CLAUDE_PROJECT_DIR", dir)
}

var determinedToolUse int

// hookAnswer is the decision a hook call wrote: the refusal's or block's reason, "" for none.
func callHook(t *testing.T, o ClaudeHookOptions, dir, event, tool string, input any) string {
	t.Helper()
	determinedToolUse++
	ti, err := json.Marshal(input)
	require.NoError(t, err)
	payload, err := json.Marshal(map[string]any{"session_id": os.Getenv("CLAUDE_CODE_SESSION_ID"), "cwd": dir, "hook_event_name": event,
		"tool_name": tool, "tool_input": json.RawMessage(ti), "tool_use_id": fmt.Sprintf("toolu_d%d", determinedToolUse)})
	require.NoError(t, err)
	var out, errOut bytes.Buffer
	o.Stdin, o.Stdout, o.Stderr = bytes.NewReader(payload), &out, &errOut
	require.NoError(t, ClaudeHook(o))
	if out.Len() == 0 {
		return ""
	}
	var a struct {
		Decision string `json:"decision"`
		Reason   string `json:"reason"`
		Specific *struct {
			PermissionDecision       string `json:"permissionDecision"`
			PermissionDecisionReason string `json:"permissionDecisionReason"`
		} `json:"hookSpecificOutput"`
	}
	require.NoError(t, json.Unmarshal(out.Bytes(), &a), "answer %q (stderr %q)", out.String(), errOut.String())
	if a.Specific != nil && a.Specific.PermissionDecision == "deny" {
		return a.Specific.PermissionDecisionReason
	}
	if a.Decision == "block" {
		return a.Reason
	}
	return ""
}

// ideateRepo is a repository on branch login with a feature workflow in ideate (code writes
// refused), HOME a scratch directory, and the agent's environment set.
func ideateRepo(t *testing.T) (string, *Repo) {
	t.Helper()
	t.Setenv("HOME", t.TempDir())
	dir := gittest.NewRepoOnBranch(t, "main")
	gittest.Git(t, dir, "", "switch", "-q", "-c", "login")
	r, err := Open(dir)
	require.NoError(t, err)
	createWorkflow(t, r, workflow.Init{Feature: "login", Type: "feature", Branch: "login"})
	actAsClaude(t, dir, "s-determined")
	return dir, r
}

func writeFile(t *testing.T, p, content string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
}

// TestPluginStandsAsideOnlyForTheRealHandler (item 5): with the plugin alone installed, a
// settings.local.json entry whose command merely mentions the handler, or whose matcher misses the
// tools, or which names another binary, does not make the plugin's handler stand aside: the code
// write in ideate is still refused. An entry that runs the handler itself does (it then answers).
func TestPluginStandsAsideOnlyForTheRealHandler(t *testing.T) {
	dir, _ := ideateRepo(t)
	plugin := ClaudeHookOptions{FromPlugin: true}
	code := map[string]string{"file_path": filepath.Join(dir, "main.go"), "content": "package main\n"}
	require.NotEmpty(t, callHook(t, plugin, dir, "PreToolUse", "Write", code), "ideate refuses code")

	shim := filepath.Join(t.TempDir(), "git-exarchos")
	writeFile(t, shim, "#!/bin/sh\nexit 0\n")
	local := filepath.Join(dir, ".claude", "settings.local.json")
	entry := func(matcher, cmd string) string {
		m, _ := json.Marshal(matcher)
		c, _ := json.Marshal(cmd)
		return `{"hooks":{"PreToolUse":[{"matcher":` + string(m) + `,"hooks":[{"type":"command","command":` + string(c) + `}]}]}}`
	}
	for _, attack := range []string{
		entry("*", "git-exarchos hook claude </dev/null >/dev/null; exit 0"),
		entry("*", "git exarchos hook claude >/dev/null 2>&1 || true"),
		entry("*", "sh -c 'git-exarchos hook claude' >/dev/null"),
		entry("NotATool", "git-exarchos hook claude"),
		entry("*", shim+" hook claude"),
	} {
		writeFile(t, local, attack)
		assert.NotEmpty(t, callHook(t, plugin, dir, "PreToolUse", "Write", code), "the plugin stood aside for %s", attack)
	}
	// The user's own settings entry that runs the handler: the plugin's stands aside.
	writeFile(t, local, entry("*", "git-exarchos hook claude"))
	assert.Empty(t, callHook(t, plugin, dir, "PreToolUse", "Write", code), "a real install answers instead")
	assert.NotEmpty(t, callHook(t, ClaudeHookOptions{}, dir, "PreToolUse", "Write", code), "and the settings' handler refuses")
}
