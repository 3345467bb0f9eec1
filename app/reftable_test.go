package app

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/exarchos/git-exarchos/hookrun"
	"github.com/exarchos/git-exarchos/internal/gittest"
)

// TestHookReftableWithOldGitFailsClosed (issue 28): a repository whose refs are kept in reftable,
// with a git too old to read it, is neither refused as unsupported nor read as having no
// workflow: the hook denies policed tools with git's own error and the fix (a newer git), for a
// session bound before and for a new one; a command says the same and exits with an error.
func TestHookReftableWithOldGitFailsClosed(t *testing.T) {
	if _, err := gittest.Run(t.TempDir(), "", "init", "-q", "--ref-format=reftable", "probe"); err == nil {
		t.Skip("the installed git reads reftable repositories; TestRepositoryShapes/reftable runs every command family in one")
	}
	for _, k := range []string{"CLAUDECODE", "CLAUDE_CODE_SESSION_ID", "CLAUDE_CODE_ENTRYPOINT", "AI_AGENT", "CLAUDE_PROJECT_DIR"} {
		t.Setenv(k, "")
	}
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	dir, r := newRepo(t, "login")
	_, err := Init(r, InitOptions{Feature: "login", Type: "feature"})
	require.NoError(t, err)
	hook := func(session, tool, input string) string {
		var out bytes.Buffer
		payload := fmt.Sprintf(`{"session_id":%q,"cwd":%q,"hook_event_name":"PreToolUse","tool_name":%q,"tool_input":%s}`, session, dir, tool, input)
		require.NoError(t, hookrun.ClaudeHook(hookrun.ClaudeHookOptions{Stdin: bytes.NewReader([]byte(payload)), Stdout: &out, Stderr: os.Stderr}))
		return out.String()
	}
	write := fmt.Sprintf(`{"file_path":%q}`, filepath.Join(dir, "main.go"))
	assert.Contains(t, hook("bound-before", "Write", write), `"permissionDecision":"deny"`, "ideate refuses code")

	gittest.Git(t, dir, "", "config", "core.repositoryFormatVersion", "1")
	gittest.Git(t, dir, "", "config", "extensions.refStorage", "reftable")
	for _, session := range []string{"bound-before", "new-session"} {
		out := hook(session, "Write", write)
		assert.Contains(t, out, `"permissionDecision":"deny"`, session)
		assert.Contains(t, out, "install git 2.45 or later", session)
		out = hook(session, "Bash", `{"command":"echo hi > main.go"}`)
		assert.Contains(t, out, `"permissionDecision":"deny"`, session)
	}

	r, err = Open(dir)
	require.NoError(t, err, "opened, not refused as unsupported")
	_, err = ListWorkflows(r, ListOptions{All: true})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "refstorage", "git's own words")
	assert.Contains(t, err.Error(), "install git 2.45 or later")
	_, _, err = r.State("login")
	assert.ErrorContains(t, err, "install git 2.45 or later")
}
