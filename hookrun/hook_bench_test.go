package hookrun_test

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/exarchos/git-exarchos/hookrun"
	"github.com/exarchos/git-exarchos/internal/apptest"
)

// BenchmarkClaudeHookBound: one PreToolUse answer in-process for a session bound to a workflow,
// the path every tool call takes (go test ./hookrun -run XXX -bench ClaudeHookBound -benchtime 200x).
func BenchmarkClaudeHookBound(b *testing.B) {
	b.Setenv("XDG_STATE_HOME", b.TempDir())
	dir, _ := apptest.NewSagaRepo(b) // workflow login, in ideate, bound to main
	for _, tc := range []struct{ name, session, event, tool, input string }{
		{"Write-denied", "bench", "PreToolUse", "Write", fmt.Sprintf(`{"file_path":%q}`, filepath.Join(dir, "main.go"))},
		{"Read", "bench", "PreToolUse", "Read", `{"file_path":"main.go"}`},
		{"Bash", "bench", "PreToolUse", "Bash", `{"command":"go test ./... 2>&1 | tail -5"}`},
		// No session: the workflow is found through the branch index (hookrun/hook_index.go) on every call.
		{"Write-denied-by-branch", "", "PreToolUse", "Write", fmt.Sprintf(`{"file_path":%q}`, filepath.Join(dir, "main.go"))},
		// After the call: the effects check (git status, or the monitor's kept answer) and the
		// controls' stamps (hookrun/hook_controls.go).
		{"PostToolUse-Bash", "bench", "PostToolUse", "Bash", `{"command":"go test ./... 2>&1 | tail -5"}`},
	} {
		payload := []byte(fmt.Sprintf(`{"session_id":%q,"cwd":%q,"hook_event_name":%q,"tool_name":%q,"tool_input":%s}`, tc.session, dir, tc.event, tc.tool, tc.input))
		b.Run(tc.name, func(b *testing.B) {
			for b.Loop() {
				require.NoError(b, hookrun.ClaudeHook(hookrun.ClaudeHookOptions{Stdin: bytes.NewReader(payload), Stdout: io.Discard, Stderr: io.Discard}))
			}
		})
	}
}
