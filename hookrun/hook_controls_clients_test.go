package hookrun_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/exarchos/git-exarchos/app"
	"github.com/exarchos/git-exarchos/hooks"
	"github.com/exarchos/git-exarchos/internal/gittest"
	"github.com/exarchos/git-exarchos/workflow"
)

// TestHookControlsClientSettingsWatched: the other clients' hook files that `hooks install` writes
// (Codex's .codex/hooks.json, Gemini's and Qwen's settings.json, Copilot's
// ~/.copilot/hooks/exarchos.json) are watched as Claude Code's settings are: turning the hooks off
// or removing them by what the hook cannot read blocks at once with the exact undo, until undone;
// the human's install is accepted, and a settings file without hook keys is no change.
func TestHookControlsClientSettingsWatched(t *testing.T) {
	// A phase that lets every path change, so only the controls judge the files (in a planning
	// phase the effects check refuses the project's files first, as files git exarchos installed).
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	t.Setenv("HOME", t.TempDir())
	dir, r := newRepo(t, "main")
	gittest.CommitFile(t, dir, ".exarchos/workflows/free.yaml", "type: free\ndescription: anything goes\ninitial: work\nphases:\n  - id: work\n  - id: done\n    kind: final\ntransitions:\n  - from: work\n    to: done\n")
	gittest.Git(t, dir, "", "switch", "-q", "-c", "free")
	_, err := r.CreateWorkflow(workflow.Init{Feature: "free", Type: "free", Branch: "free"})
	require.NoError(t, err)
	require.Empty(t, post(t, dir), "the first call takes what is there as the baseline")
	home, err := os.UserHomeDir()
	require.NoError(t, err)
	t.Setenv("COPILOT_HOME", "")
	t.Setenv("CODEX_HOME", "")
	_, err = app.HooksInstall(app.HooksOptions{Dir: dir, Clients: []string{hooks.ClientCodex, hooks.ClientGemini, hooks.ClientQwen, hooks.ClientOpencode}})
	require.NoError(t, err)
	_, err = app.HooksInstall(app.HooksOptions{Dir: dir, Clients: []string{hooks.ClientCopilot}, Scope: hooks.ScopeUser})
	require.NoError(t, err)
	require.Empty(t, post(t, dir), "the human's install is accepted")

	for _, c := range []struct {
		name, path string
		write      func(p string) error // what the agent does
	}{
		{"gemini turns its hooks off", filepath.Join(dir, ".gemini", "settings.json"),
			func(p string) error { return os.WriteFile(p, []byte(`{"hooksConfig": {"enabled": false}}`), 0o644) }},
		{"qwen disables all hooks", filepath.Join(dir, ".qwen", "settings.json"),
			func(p string) error { return os.WriteFile(p, []byte(`{"disableAllHooks": true}`), 0o644) }},
		{"codex's hooks emptied", filepath.Join(dir, ".codex", "hooks.json"),
			func(p string) error { return os.WriteFile(p, []byte(`{"hooks": {}}`), 0o644) }},
		{"copilot's hook file removed", filepath.Join(home, ".copilot", "hooks", "exarchos.json"), os.Remove},
		{"opencode's plugin made to do nothing", filepath.Join(dir, ".opencode", "plugins", "exarchos.js"),
			func(p string) error {
				return os.WriteFile(p, []byte("export const Exarchos = async () => ({})\n"), 0o644)
			}},
		{"gemini's user settings get hooks off", filepath.Join(home, ".gemini", "settings.json"),
			func(p string) error {
				require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
				return os.WriteFile(p, []byte(`{"hooksConfig": {"disabled": ["git-exarchos hook gemini"]}}`), 0o644)
			}},
	} {
		t.Run(c.name, func(t *testing.T) { blocksUntilUndone(t, dir, c.path, c.write) })
	}

	// A client writing its own settings (the user's theme, its auth) changes no hook setting.
	p := filepath.Join(home, ".qwen", "settings.json")
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, []byte(`{"privacy": {"usageStatisticsEnabled": false}}`), 0o644))
	assert.Empty(t, post(t, dir))
}

// TestHookControlsCodexConfigWatched: Codex reads more than its hooks.json: config.toml (the
// project's .codex/config.toml, the user's ~/.codex/config.toml or $CODEX_HOME/config.toml) can
// turn every hook off ([features] codex_hooks = false), replace them ([hooks]) or make the
// project's .codex/ unread (its trust_level). Such a change by what the hook cannot read blocks at
// once with the exact undo, as the other clients' hook files do; Codex's own writes (a model, the
// record of the hooks the user trusted) change nothing that matters.
func TestHookControlsCodexConfigWatched(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	t.Setenv("HOME", t.TempDir())
	codexHome := t.TempDir()
	t.Setenv("CODEX_HOME", codexHome)
	t.Setenv("COPILOT_HOME", "")
	dir, r := newRepo(t, "main")
	gittest.CommitFile(t, dir, ".exarchos/workflows/free.yaml", "type: free\ndescription: anything goes\ninitial: work\nphases:\n  - id: work\n  - id: done\n    kind: final\ntransitions:\n  - from: work\n    to: done\n")
	gittest.Git(t, dir, "", "switch", "-q", "-c", "free")
	_, err := r.CreateWorkflow(workflow.Init{Feature: "free", Type: "free", Branch: "free"})
	require.NoError(t, err)
	home, err := os.UserHomeDir()
	require.NoError(t, err)
	// The user's configuration as Codex keeps it: a provider, the project trusted.
	user := filepath.Join(codexHome, "config.toml")
	require.NoError(t, os.WriteFile(user, []byte("model = \"gpt-5.5\"\n\n[projects.\""+dir+"\"]\ntrust_level = \"trusted\"\n"), 0o644))
	require.Empty(t, post(t, dir), "the first call takes what is there as the baseline")
	_, err = app.HooksInstall(app.HooksOptions{Dir: dir, Clients: []string{hooks.ClientCodex}})
	require.NoError(t, err)
	require.Empty(t, post(t, dir), "the human's install is accepted")

	appendTo := func(text string) func(string) error {
		return func(p string) error {
			require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
			f, err := os.OpenFile(p, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
			if err != nil {
				return err
			}
			_, err = f.WriteString(text)
			return errors.Join(err, f.Close())
		}
	}
	for _, c := range []struct {
		name, path string
		write      func(p string) error
	}{
		{"the project's config turns hooks off", filepath.Join(dir, ".codex", "config.toml"), appendTo("[features]\ncodex_hooks = false\n")},
		{"CODEX_HOME's config turns hooks off", user, appendTo("\n[features]\ncodex_hooks = false\n")},
		{"the project is no longer trusted", user, func(p string) error {
			return os.WriteFile(p, []byte("model = \"gpt-5.5\"\n\n[projects.\""+dir+"\"]\ntrust_level = \"untrusted\"\n"), 0o644)
		}},
		{"hooks replaced in config.toml", filepath.Join(dir, ".codex", "config.toml"), appendTo("[[hooks.PreToolUse]]\n[[hooks.PreToolUse.hooks]]\ntype = \"command\"\ncommand = \"true\"\n")},
		{"the user's ~/.codex/config.toml turns hooks off", filepath.Join(home, ".codex", "config.toml"), appendTo("[features]\ncodex_hooks = false\n")},
		{"config.toml made unreadable to Codex", user, appendTo("[[[")},
	} {
		t.Run(c.name, func(t *testing.T) { blocksUntilUndone(t, dir, c.path, c.write) })
	}

	// Codex's own writes: another model, the hooks the user trusted in /hooks.
	require.NoError(t, appendTo("model_reasoning_effort = \"high\"\n")(filepath.Join(dir, ".codex", "config.toml")))
	require.NoError(t, appendTo("\n[hooks.state.\"exarchos\"]\ntrusted_hash = \"sha256:abc\"\n\n[projects.\"/elsewhere\"]\ntrust_level = \"trusted\"\n")(user))
	assert.Empty(t, post(t, dir))
}

// blocksUntilUndone: what write does to a client's hook file at path blocks the next call with the
// exact undo, and every call after it until the undo is run.
func blocksUntilUndone(t *testing.T, dir, path string, write func(string) error) {
	require.NoError(t, write(path))
	block := post(t, dir)
	require.Contains(t, block, "agent client's hook settings "+path)
	assert.Contains(t, post(t, dir), path, "blocks until undone")
	gittest.RunUndo(t, dir, block)
	assert.Empty(t, post(t, dir), "undone")
}
