package hookrun_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/exarchos/git-exarchos/app"
	"github.com/exarchos/git-exarchos/gitstore"
	"github.com/exarchos/git-exarchos/hookrun"
	"github.com/exarchos/git-exarchos/internal/gittest"
	"github.com/exarchos/git-exarchos/saga"
	"github.com/exarchos/git-exarchos/workflow"
)

// hookAnswer runs the Claude Code handler as Claude Code does (one call, payload on stdin) and
// returns its decoded answer.
type hookAnswer struct {
	Continue bool   `json:"continue"`
	Decision string `json:"decision"`
	Reason   string `json:"reason"`
	Specific *struct {
		PermissionDecision       string `json:"permissionDecision"`
		PermissionDecisionReason string `json:"permissionDecisionReason"`
	} `json:"hookSpecificOutput"`
}

func (a hookAnswer) denied() string {
	if a.Specific != nil && a.Specific.PermissionDecision == "deny" {
		return a.Specific.PermissionDecisionReason
	}
	if a.Decision == "block" {
		return a.Reason
	}
	return ""
}

var toolUse int

// testMonitor is how the hook starts a file-system monitor in these tests (withMonitor sets one;
// nil starts none), passed as the CLI passes its own.
var testMonitor func(root string) error

func callHook(t *testing.T, session, cwd, event, tool string, input any) hookAnswer {
	t.Helper()
	toolUse++
	ti, err := json.Marshal(input)
	require.NoError(t, err)
	payload, err := json.Marshal(map[string]any{"session_id": session, "cwd": cwd, "hook_event_name": event,
		"tool_name": tool, "tool_input": json.RawMessage(ti), "tool_use_id": fmt.Sprintf("toolu_%d", toolUse)})
	require.NoError(t, err)
	var out, errOut bytes.Buffer
	require.NoError(t, hookrun.ClaudeHook(hookrun.ClaudeHookOptions{Stdin: bytes.NewReader(payload), Stdout: &out, Stderr: &errOut, StartMonitor: testMonitor}))
	var a hookAnswer
	require.NoError(t, json.Unmarshal(out.Bytes(), &a), "answer %q (stderr %q)", out.String(), errOut.String())
	return a
}

func write(path string) map[string]string {
	return map[string]string{"file_path": path, "content": "x"}
}
func bash(cmd string) map[string]string { return map[string]string{"command": cmd} }

// loginRepo is a repository on branch login with a feature workflow in ideate, its branch index
// written by init, and the session store in a temporary directory.
func loginRepo(t *testing.T) (string, *app.Repo) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	dir, r := newRepo(t, "main")
	gittest.CommitFile(t, dir, "main.go", "package main\n")
	gittest.Git(t, dir, "", "switch", "-q", "-c", "login")
	_, err := r.CreateWorkflow(workflow.Init{Feature: "login", Type: "feature", Branch: "login"})
	require.NoError(t, err)
	return dir, r
}

func countEvents(t *testing.T, r *app.Repo, feature, typ string) int {
	t.Helper()
	evs, _, err := r.Store.Events(feature, gitstore.EventFilter{})
	require.NoError(t, err)
	n := 0
	for _, e := range evs {
		if e.Type == typ {
			n++
		}
	}
	return n
}

// TestHookSessionBinding: the first call binds the session to its workflow (recorded once, as an
// event); switching branch, a detached HEAD, a scratch worktree or a cwd outside the repository
// then lift nothing, until a human releases the session.
func TestHookSessionBinding(t *testing.T) {
	dir, r := loginRepo(t)
	outside := t.TempDir()
	scratch := filepath.Join(t.TempDir(), "scratch")

	require.Contains(t, callHook(t, "s1", dir, "PreToolUse", "Write", write(filepath.Join(dir, "main.go"))).denied(), "not allowed while workflow login")
	assert.Equal(t, 1, countEvents(t, r, "login", workflow.EventHookSessionBound))

	gittest.Git(t, dir, "", "switch", "-q", "-c", "elsewhere")
	assert.Contains(t, callHook(t, "s1", dir, "PreToolUse", "Write", write(filepath.Join(dir, "main.go"))).denied(), "workflow login", "another branch")
	gittest.Git(t, dir, "", "switch", "-q", "--detach", "HEAD")
	assert.Contains(t, callHook(t, "s1", dir, "PreToolUse", "Write", write(filepath.Join(dir, "main.go"))).denied(), "workflow login", "detached HEAD")
	gittest.Git(t, dir, "", "worktree", "add", "-q", "-b", "scratch", scratch)
	assert.Contains(t, callHook(t, "s1", scratch, "PreToolUse", "Write", write(filepath.Join(scratch, "main.go"))).denied(), "workflow login", "scratch worktree")
	assert.Contains(t, callHook(t, "s1", outside, "PreToolUse", "Write", write(filepath.Join(dir, "main.go"))).denied(), "workflow login", "cwd outside")
	assert.Contains(t, callHook(t, "s1", outside, "PreToolUse", "mcp__github__create_file", map[string]string{}).denied(), "workflow login", "MCP write tool in ideate")
	assert.Equal(t, 1, countEvents(t, r, "login", workflow.EventHookSessionBound), "bound once")

	// Another session, started on the scratch branch, is bound to nothing there.
	assert.Empty(t, callHook(t, "s2", scratch, "PreToolUse", "Write", write(filepath.Join(scratch, "main.go"))).denied())

	// The agent may not release itself; a human may.
	assert.Contains(t, callHook(t, "s1", dir, "PreToolUse", "Bash", bash("git exarchos hooks release --session s1")).denied(), "only a human")
	assert.Contains(t, callHook(t, "s1", dir, "PreToolUse", "Bash", bash("rm -f "+hookrun.SessionFile("s1"))).denied(), "may not change")
	_, err := hookrun.HooksRelease(hookrun.HooksReleaseOptions{Session: "s1"})
	require.NoError(t, err)
	assert.Empty(t, callHook(t, "s1", scratch, "PreToolUse", "Write", write(filepath.Join(scratch, "main.go"))).denied())
}

// TestHookFailsClosed: junk under refs/exarchos/ affects only itself; when the bound workflow
// itself cannot be read, or the session's binding is damaged, every policed call is refused with
// the repair (a read-only tool passes); unreadable input exits 2 (a block).
func TestHookFailsClosed(t *testing.T) {
	dir, _ := loginRepo(t)
	refs := filepath.Join(dir, ".git", "refs", "exarchos")
	require.NoError(t, os.WriteFile(filepath.Join(refs, ".DS_Store"), []byte("\x00\x01junk"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(refs, "empty"), nil, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(refs, "sym"), []byte("ref: refs/heads/main\n"), 0o644))
	for i := range 50 {
		require.NoError(t, os.WriteFile(filepath.Join(refs, fmt.Sprintf("Junk %d", i)), []byte("nope"), 0o644))
	}
	// With the index and without it (rebuilt once from the refs, skipping what is not a workflow).
	for _, fresh := range []bool{false, true} {
		if fresh {
			require.NoError(t, os.RemoveAll(filepath.Join(dir, ".git", "exarchos-cache")))
		}
		session := fmt.Sprintf("junk-%v", fresh)
		assert.Contains(t, callHook(t, session, dir, "PreToolUse", "Write", write(filepath.Join(dir, "main.go"))).denied(), "not allowed while workflow login")
		assert.Empty(t, callHook(t, session, dir, "PreToolUse", "Read", write(filepath.Join(dir, "main.go"))).denied())
	}

	// The bound workflow's own ref broken: refused, with the repair.
	require.NoError(t, os.WriteFile(filepath.Join(refs, "login"), []byte("garbage\n"), 0o644))
	for _, tool := range []string{"Write", "Bash"} {
		reason := callHook(t, "junk-true", dir, "PreToolUse", tool, bash("ls")).denied()
		assert.Contains(t, reason, "cannot read the workflow this session works on", tool)
		assert.Contains(t, reason, "git exarchos fsck", tool)
	}
	assert.Empty(t, callHook(t, "junk-true", dir, "PreToolUse", "Read", write("x")).denied(), "a read-only tool is not policed")
	// A damaged binding: refused, never forgotten.
	require.NoError(t, os.WriteFile(hookrun.SessionFile("broken"), []byte("{"), 0o600))
	assert.Contains(t, callHook(t, "broken", dir, "PreToolUse", "Write", write("x")).denied(), "damaged")

	var out, errOut bytes.Buffer
	err := hookrun.ClaudeHook(hookrun.ClaudeHookOptions{Stdin: strings.NewReader("{not json"), Stdout: &out, Stderr: &errOut})
	assert.True(t, errors.Is(err, hookrun.ErrHookBlock))
	assert.Contains(t, errOut.String(), "refusing")
}

// TestHookJudgesEffects: in a phase that restricts what may change, PostToolUse compares the
// working tree, the index and the branch with the allowed paths, on a real repository, and blocks
// with the paths and how to undo them.
func TestHookJudgesEffects(t *testing.T) {
	dir, _ := loginRepo(t)
	post := func(tool string) string {
		return callHook(t, "e1", dir, "PostToolUse", tool, bash("whatever")).denied()
	}
	assert.Empty(t, post("Bash"), "clean")

	// Documents are what planning may change.
	gittest.WriteFile(t, dir, "docs/design.md", "# design\n")
	gittest.WriteFile(t, dir, "NOTES.md", "notes\n")
	assert.Empty(t, post("Bash"))
	assert.Empty(t, post("mcp__fs__write"))

	// Code written by a command the PreToolUse check could not see coming.
	gittest.WriteFile(t, dir, "src/new.go", "package src\n")
	reason := post("Bash")
	assert.Contains(t, reason, "src/new.go (untracked)")
	assert.Contains(t, reason, "rm -- src/new.go")
	assert.Contains(t, reason, "may change only docs/**, *.md")
	assert.Contains(t, post("mcp__fs__write"), "src/new.go", "an MCP tool's effects")
	assert.Contains(t, post("SomeFutureTool"), "src/new.go", "an unknown tool's effects")
	assert.Empty(t, post("Read"), "read-only tools are not judged")
	require.NoError(t, os.Remove(filepath.Join(dir, "src/new.go")))

	gittest.WriteFile(t, dir, "main.go", "package main // changed\n")
	assert.Contains(t, post("Bash"), "main.go (worktree)")
	gittest.Git(t, dir, "", "add", "main.go")
	reason = post("Bash")
	assert.Contains(t, reason, "main.go (index)")
	assert.Contains(t, reason, "git restore --source=HEAD --staged --worktree -- main.go")
	gittest.Git(t, dir, "", "commit", "-q", "-m", "sneak")
	assert.Contains(t, post("Bash"), "main.go (branch)")
	gittest.Git(t, dir, "", "reset", "-q", "--hard", "HEAD~1")
	assert.Empty(t, post("Bash"), "undone")
}

// TestHookTurnCapAndStaleLock: a spent turn cap leaves status, transitions, transition and submit
// allowed (and says so); a call that cannot be counted because of a stale lock is refused.
func TestHookTurnCapAndStaleLock(t *testing.T) {
	dir, _ := loginRepo(t)
	def := "type: capped\ndescription: capped\ninitial: work\nphases:\n  - id: work\n    turnCap: 2\n  - id: done\n    kind: final\ntransitions:\n  - from: work\n    to: done\n"
	gittest.Git(t, dir, "", "switch", "-q", "main") // definitions are read from the base branch
	gittest.CommitFile(t, dir, ".exarchos/workflows/capped.yaml", def)
	gittest.Git(t, dir, "", "switch", "-q", "-c", "capped")
	r, err := app.Open(dir)
	require.NoError(t, err)
	_, err = r.CreateWorkflow(workflow.Init{Feature: "capped", Type: "capped", Branch: "capped"})
	require.NoError(t, err)

	for range 2 {
		assert.Empty(t, callHook(t, "c1", dir, "PreToolUse", "Read", write("main.go")).denied())
	}
	reason := callHook(t, "c1", dir, "PreToolUse", "Read", write("main.go")).denied()
	assert.Contains(t, reason, "turn budget")
	assert.Contains(t, reason, "status, transitions, transition and submit stay allowed")
	for _, cmd := range []string{"git exarchos status capped", "git exarchos transitions capped", "git exarchos transition capped done", "git-exarchos submit capped --file c.json"} {
		assert.Empty(t, callHook(t, "c1", dir, "PreToolUse", "Bash", bash(cmd)).denied(), cmd)
	}
	assert.Contains(t, callHook(t, "c1", dir, "PreToolUse", "Bash", bash("git exarchos status capped && ls")).denied(), "turn budget")

	// A stale lock on the workflow's ref: the call cannot be counted, so it is refused.
	_, err = hookrun.HooksRelease(hookrun.HooksReleaseOptions{Session: "c1"})
	require.NoError(t, err)
	_, err = hookRuntime(r).Update("capped", func(*gitstore.Snapshot) ([]workflow.NewEvent, error) {
		return []workflow.NewEvent{{Type: workflow.EventBudgetExtended, Data: workflow.BudgetData{Phase: "work", Turns: 5, Reason: "test", Actor: "human"}}}, nil
	})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, ".git", "refs", "exarchos", "capped.lock"), []byte("x"), 0o644))
	reason = callHook(t, "c2", dir, "PreToolUse", "Read", write("main.go")).denied()
	assert.Contains(t, reason, "could not record this call")
}

// TestHookSessionFollowsItsBranch: a session whose workflow ended (cancelled in ideate) is bound, on
// its next call, to the workflow now on its branch — it is not let loose (issue 29 item 2). A
// workflow it cannot read fails the call closed.
func TestHookSessionFollowsItsBranch(t *testing.T) {
	dir, r := loginRepo(t)
	src := filepath.Join(dir, "main.go")
	require.Contains(t, callHook(t, "s1", dir, "PreToolUse", "Write", write(src)).denied(), "workflow login")

	_, err := saga.Cancel(r.Saga(), saga.CancelOptions{Feature: "login", Reason: "start over"})
	require.NoError(t, err)
	gittest.Git(t, dir, "", "switch", "-q", "-c", "x")
	_, err = app.Init(r, app.InitOptions{Feature: "h2", Type: "feature"})
	require.NoError(t, err)

	assert.Contains(t, callHook(t, "s1", dir, "PreToolUse", "Write", write(src)).denied(), "workflow h2", "the session follows its branch to h2")
	assert.Contains(t, callHook(t, "s1", dir, "PreToolUse", "Edit", map[string]string{"file_path": src, "old_string": "a", "new_string": "b"}).denied(), "workflow h2")
	assert.Equal(t, 1, countEvents(t, r, "h2", workflow.EventHookSessionBound), "bound to h2, recorded")
	var rec struct{ Features []string }
	b, err := os.ReadFile(hookrun.SessionFile("s1"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &rec))
	assert.Equal(t, []string{"h2"}, rec.Features)
	// A new session is refused the same.
	assert.Contains(t, callHook(t, "s9", dir, "PreToolUse", "Write", write(src)).denied(), "workflow h2")

	// h2 ends too, and the branch has no workflow: the session is judged by its branch (nothing).
	_, err = saga.Cancel(r.Saga(), saga.CancelOptions{Feature: "h2", Reason: "done"})
	require.NoError(t, err)
	assert.Empty(t, callHook(t, "s1", dir, "PreToolUse", "Write", write(src)).denied())

	// A workflow on the branch that cannot be read: closed.
	_, err = app.Init(r, app.InitOptions{Feature: "h3", Type: "feature", Human: true}) // h2 was cancelled: the user's decision
	require.NoError(t, err)
	cache := filepath.Join(r.CommonDir(), "exarchos")
	require.NoError(t, os.RemoveAll(cache))
	gittest.Git(t, dir, "", "update-ref", "refs/exarchos/h3", gittest.Git(t, dir, "", "rev-parse", "HEAD"))
	assert.NotEmpty(t, callHook(t, "s1", dir, "PreToolUse", "Write", write(src)).denied(), "unreadable workflow on the branch: closed")
}
