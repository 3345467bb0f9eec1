package hookrun_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/exarchos/git-exarchos/app"
	"github.com/exarchos/git-exarchos/hookrun"
	"github.com/exarchos/git-exarchos/internal/agentenv"
	"github.com/exarchos/git-exarchos/internal/apptest"
	"github.com/exarchos/git-exarchos/internal/gittest"
	"github.com/exarchos/git-exarchos/trust"
	"github.com/exarchos/git-exarchos/views"
)

// claudeEnv is the environment Claude Code gives every command it runs (seen with 2.1.x).
var claudeEnv = agentenv.Env{"PATH=/usr/bin", "CLAUDECODE=1", "CLAUDE_CODE_SESSION_ID=s-1", "CLAUDE_CODE_ENTRYPOINT=cli", "AI_AGENT=claude-code"}

// post runs PostToolUse for a Bash call (what the command did has already happened) and returns
// the block, "" when none.
func post(t *testing.T, dir string) string {
	t.Helper()
	return callHook(t, "s1", dir, "PostToolUse", "Bash", bash("python3 tool.py")).denied()
}

// controlsRepo is loginRepo with a scratch HOME (the user's settings are watched too) and the
// first PostToolUse made: the baseline.
func controlsRepo(t *testing.T) (string, *app.Repo) {
	dir, r := loginRepo(t)
	t.Setenv("HOME", t.TempDir())
	require.Empty(t, post(t, dir), "the first call takes what is there as the baseline")
	return dir, r
}

// TestHookControlsSettingsWatched: Claude Code's hook settings changed by what the hook cannot
// read (python writing settings.local.json, git checkout of an older settings.json) block at once
// with the exact undo, and keep blocking until it is run (issue 29 item 2).
func TestHookControlsSettingsWatched(t *testing.T) {
	dir, r := controlsRepo(t)
	local := filepath.Join(dir, ".claude", "settings.local.json")
	require.NoError(t, os.MkdirAll(filepath.Dir(local), 0o755))
	require.NoError(t, os.WriteFile(local, []byte(`{"disableAllHooks": true}`), 0o644))
	block := post(t, dir)
	require.Contains(t, block, "Claude Code's hook settings "+local+" was added")
	assert.Contains(t, post(t, dir), local, "blocks until undone")
	gittest.RunUndo(t, dir, block)
	assert.Empty(t, post(t, dir))

	// A tracked settings.json put back to an older revision by git.
	shared := filepath.Join(dir, ".claude", "settings.json")
	require.NoError(t, os.WriteFile(shared, []byte(`{"permissions": {}}`), 0o644))
	gittest.Git(t, dir, "", "add", ".claude/settings.json")
	gittest.Git(t, dir, "", "commit", "-q", "-m", "settings without hooks")
	old := gittest.Git(t, dir, "", "rev-parse", "HEAD")
	_, err := app.HooksAccept(r, hookrun.HooksAcceptOptions{Environ: []string{"PATH=/usr/bin"}}) // the user committed it
	require.NoError(t, err)
	_, err = app.HooksInstall(app.HooksOptions{Claude: true, Dir: dir})
	require.NoError(t, err)
	assert.Empty(t, hookRuntime(r).CheckControls(dir), "the agent's own hooks install is not a change from outside")
	gittest.Git(t, dir, "", "checkout", old, "--", ".claude/settings.json")
	block = post(t, dir)
	require.Contains(t, block, "Claude Code's hook settings "+shared+" changed")
	gittest.RunUndo(t, dir, block)
	assert.Empty(t, hookRuntime(r).CheckControls(dir)) // (the phase's effects check still sees the branch's commit)
	b, err := os.ReadFile(shared)
	require.NoError(t, err)
	assert.Contains(t, string(b), "exarchos hook claude", "the undo put the hooks back")

	// A permission the client adds to settings.local.json (creating it) changes no hook setting.
	require.NoError(t, os.WriteFile(local, []byte(`{"permissions": {"allow": ["Bash(go test:*)"]}}`), 0o644))
	assert.Empty(t, hookRuntime(r).CheckControls(dir))
	// Then the hooks turned off in it.
	require.NoError(t, os.WriteFile(local, []byte(`{"permissions": {"allow": ["Bash(go test:*)"]}, "disableAllHooks": true}`), 0o644))
	block = hookRuntime(r).CheckControls(dir)
	require.Contains(t, block, local+" changed (undo: `cp -- ")
	gittest.RunUndo(t, dir, block)
	b, err = os.ReadFile(local)
	require.NoError(t, err)
	assert.NotContains(t, string(b), "disableAllHooks", "the undo put back the file with its permission")
	assert.Contains(t, string(b), "go test")
	assert.Empty(t, hookRuntime(r).CheckControls(dir))
	// A file that does not parse is a change (Claude Code ignores it, hooks included).
	require.NoError(t, os.WriteFile(shared, []byte(`{"hooks": `), 0o644))
	assert.Contains(t, hookRuntime(r).CheckControls(dir), shared+" changed")
}

// TestHookControlsGitWatched: a git hook written by a script, an alias or core.hooksPath written
// into .git/config, and a config file it includes, block with the undo; an ordinary config change
// (an upstream) does not.
func TestHookControlsGitWatched(t *testing.T) {
	dir, r := controlsRepo(t)
	hook := filepath.Join(r.CommonDir(), "hooks", "post-checkout")
	require.NoError(t, os.WriteFile(hook, []byte("#!/bin/sh\ngit exarchos approve login\n"), 0o755))
	block := post(t, dir)
	require.Contains(t, block, "a git hook "+hook+" was added")
	gittest.RunUndo(t, dir, block)
	assert.Empty(t, post(t, dir))

	config := filepath.Join(r.CommonDir(), "config")
	gittest.AppendFile(t, config, "[alias]\n\tap = exarchos approve\n")
	block = post(t, dir)
	require.Contains(t, block, "git configuration that changes what git runs "+config+" changed")
	gittest.RunUndo(t, dir, block)
	assert.Empty(t, post(t, dir))

	gittest.AppendFile(t, config, "[core]\n\thooksPath = elsewhere\n")
	require.Contains(t, post(t, dir), "changes what git runs")
	gittest.RunUndo(t, dir, post(t, dir))
	assert.Empty(t, post(t, dir))

	// An include: the file it names is watched too.
	inc := filepath.Join(t.TempDir(), "inc.config")
	require.NoError(t, os.WriteFile(inc, []byte("[user]\n\tname = x\n"), 0o644))
	gittest.Git(t, dir, "", "config", "include.path", inc)
	require.Contains(t, post(t, dir), "changes what git runs", "adding an include")
	_, err := app.HooksAccept(r, hookrun.HooksAcceptOptions{Environ: []string{"PATH=/usr/bin"}})
	require.NoError(t, err)
	assert.Empty(t, post(t, dir))
	gittest.AppendFile(t, inc, "[alias]\n\tx = !git exarchos approve\n")
	block = post(t, dir)
	require.Contains(t, block, inc)

	// Not a control: an upstream setting.
	gittest.RunUndo(t, dir, block)
	require.Empty(t, post(t, dir))
	gittest.Git(t, dir, "", "config", "branch.login.remote", "origin")
	assert.Empty(t, post(t, dir))
}

// TestHookHoldsARefMovedOutside: a workflow ref rewound by git fast-import --force, moved by git
// update-ref, or pointed at a forged commit is reported at once and its workflow held (policed
// tools denied) until the ref is restored or a human accepts it; git exarchos's own writes are not.
func TestHookHoldsARefMovedOutside(t *testing.T) {
	dir, r := controlsRepo(t)
	src := filepath.Join(dir, "main.go")
	first := gittest.Git(t, dir, "", "rev-parse", "refs/exarchos/login")
	_, err := app.Set(r, app.SetOptions{Feature: "login", Assignments: []string{"notes.x=1"}})
	require.NoError(t, err)
	_, err = app.Set(r, app.SetOptions{Feature: "login", Assignments: []string{"notes.y=2"}})
	require.NoError(t, err)
	assert.Empty(t, post(t, dir), "git exarchos's own writes")
	second := gittest.Git(t, dir, "", "rev-parse", "refs/exarchos/login")

	// fast-import --force rewinds it.
	gittest.Git(t, dir, "reset refs/exarchos/login\nfrom "+first+"\n\n", "fast-import", "--force", "--quiet")
	block := post(t, dir)
	require.Contains(t, block, "refs/exarchos/login moved from "+second[:12])
	require.Contains(t, block, "workflow login is held")
	assert.Contains(t, callHook(t, "s1", dir, "PreToolUse", "Bash", bash("go test ./...")).denied(), "workflow login is held")
	assert.Contains(t, callHook(t, "s1", dir, "PreToolUse", "Write", write(src)).denied(), "held")
	assert.Empty(t, callHook(t, "s1", dir, "PreToolUse", "Read", map[string]string{"file_path": src}).denied(), "reading is not policed")
	require.Len(t, hookRuntime(r).RefRewrites(), 1)
	assert.Equal(t, second, hookRuntime(r).RefRewrites()[0].From)
	fsck, err := views.Fsck(r.Hook(), views.FsckOptions{})
	require.NoError(t, err)
	require.False(t, fsck.OK(), "fsck reports the rewind")
	assert.Contains(t, fsck.Problems[len(fsck.Problems)-1].Message, "moved from "+second[:12]+" to "+first[:12]+" by something other than git exarchos")

	// Restored: the hold lifts.
	gittest.Git(t, dir, "", "update-ref", "refs/exarchos/login", second, first)
	assert.Empty(t, post(t, dir))
	assert.Empty(t, hookRuntime(r).RefRewrites())
	assert.Empty(t, callHook(t, "s1", dir, "PreToolUse", "Bash", bash("go test ./...")).denied())

	// A forged commit (an event appended by a script) put on the ref.
	forged := gittest.Git(t, dir, "", "commit-tree", "-p", second, "-m", "forged", second+"^{tree}")
	gittest.Git(t, dir, "", "update-ref", "refs/exarchos/login", forged)
	require.Contains(t, post(t, dir), "workflow login is held")
	assert.Contains(t, hookRuntime(r).Held("login"), "git update-ref refs/exarchos/login "+second+" "+forged)

	// Only a human accepts it.
	_, err = app.HooksAccept(r, hookrun.HooksAcceptOptions{Environ: claudeEnv})
	var ar *trust.AgentRefusal
	require.ErrorAs(t, err, &ar)
	res, err := app.HooksAccept(r, hookrun.HooksAcceptOptions{Features: []string{"login"}, Environ: []string{"PATH=/usr/bin"}})
	require.NoError(t, err)
	require.Len(t, res.Accepted, 1)
	assert.Empty(t, hookRuntime(r).Held("login"))
	assert.Empty(t, post(t, dir))
}

// TestFsckFindsARefMovedOutside: fsck runs the hook's check itself, so a rewind between tool calls
// (or with no tool call since) is reported.
func TestFsckFindsARefMovedOutside(t *testing.T) {
	dir, r := controlsRepo(t)
	first := gittest.Git(t, dir, "", "rev-parse", "refs/exarchos/login")
	_, err := app.Set(r, app.SetOptions{Feature: "login", Assignments: []string{"notes.x=1"}})
	require.NoError(t, err)
	res, err := views.Fsck(r.Hook(), views.FsckOptions{})
	require.NoError(t, err)
	require.True(t, res.OK(), "%v", res.Problems)
	gittest.Git(t, dir, "", "update-ref", "refs/exarchos/login", first)
	res, err = views.Fsck(r.Hook(), views.FsckOptions{Feature: "login"})
	require.NoError(t, err)
	require.False(t, res.OK())
	assert.Contains(t, res.Problems[0].Fix, "git update-ref refs/exarchos/login ")
	assert.Contains(t, hookRuntime(r).Held("login"), "is held")
}

// BenchmarkCheckControls: the watch PostToolUse adds to every call, on its common path (nothing
// watched changed): go test ./hookrun -run XXX -bench CheckControls.
func BenchmarkCheckControls(b *testing.B) {
	b.Setenv("HOME", b.TempDir())
	dir, r := apptest.NewSagaRepo(b)
	_, err := app.HooksInstall(app.HooksOptions{Claude: true, Git: true, Dir: dir, Environ: []string{}})
	require.NoError(b, err)
	require.Empty(b, hookRuntime(r).CheckControls(dir))
	for b.Loop() {
		if hookRuntime(r).CheckControls(dir) != "" {
			b.Fatal("blocked")
		}
	}
}

// TestHookControlsBaselineAtSessionStart: SessionStart takes the baseline, so the session's very
// first tool call turning the hooks off is seen.
func TestHookControlsBaselineAtSessionStart(t *testing.T) {
	dir, _ := loginRepo(t)
	t.Setenv("HOME", t.TempDir())
	callHook(t, "s1", dir, "SessionStart", "", map[string]string{})
	local := filepath.Join(dir, ".claude", "settings.local.json")
	require.NoError(t, os.MkdirAll(filepath.Dir(local), 0o755))
	require.NoError(t, os.WriteFile(local, []byte(`{"disableAllHooks": true}`), 0o644))
	assert.Contains(t, post(t, dir), local+" was added")
}
