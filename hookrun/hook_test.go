package hookrun

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/exarchos/git-exarchos/internal/gittest"
)

// TestDeadlineIsTheCallersOption: the deadline is ClaudeHookOptions', not a package variable: a
// call that overruns it is refused (a tool event fails closed), and the same call under the
// default deadline is answered by the policies (no workflow here: no opinion).
func TestDeadlineIsTheCallersOption(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	dir := gittest.NewRepoOnBranch(t, "main")
	payload, err := json.Marshal(map[string]any{"session_id": "s-deadline", "cwd": dir, "hook_event_name": "PreToolUse",
		"tool_name": "Write", "tool_use_id": "toolu_1", "tool_input": map[string]string{"file_path": filepath.Join(dir, "main.go"), "content": "x"}})
	require.NoError(t, err)
	// An overrun leaves the handler running; the repository is removed only once every handler is
	// done (this cleanup runs before the temporary directory's).
	var handlers sync.WaitGroup
	t.Cleanup(handlers.Wait)
	answer := func(deadline time.Duration) string {
		var out, errOut bytes.Buffer
		handlers.Add(1)
		require.NoError(t, ClaudeHook(ClaudeHookOptions{Stdin: bytes.NewReader(payload), Stdout: &out, Stderr: &errOut, Deadline: deadline, handled: handlers.Done}))
		return out.String()
	}
	assert.Contains(t, answer(time.Nanosecond), "no answer within 1ns", "an overrun is a refusal")
	assert.Contains(t, answer(time.Nanosecond), `"permissionDecision":"deny"`)
	assert.NotContains(t, answer(0), "no answer within", "zero is DefaultDeadline")
	assert.NotContains(t, answer(0), `"deny"`)
}
