package hookrun_test

import (
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
	_, err = app.HooksInstall(app.HooksOptions{Dir: dir, Clients: []string{hooks.ClientCodex, hooks.ClientGemini, hooks.ClientQwen}})
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
		{"gemini's user settings get hooks off", filepath.Join(home, ".gemini", "settings.json"),
			func(p string) error {
				require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
				return os.WriteFile(p, []byte(`{"hooksConfig": {"disabled": ["git-exarchos hook gemini"]}}`), 0o644)
			}},
	} {
		t.Run(c.name, func(t *testing.T) {
			require.NoError(t, c.write(c.path))
			block := post(t, dir)
			require.Contains(t, block, "agent client's hook settings "+c.path)
			assert.Contains(t, post(t, dir), c.path, "blocks until undone")
			gittest.RunUndo(t, dir, block)
			assert.Empty(t, post(t, dir), "undone")
		})
	}

	// A client writing its own settings (the user's theme, its auth) changes no hook setting.
	p := filepath.Join(home, ".qwen", "settings.json")
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, []byte(`{"privacy": {"usageStatisticsEnabled": false}}`), 0o644))
	assert.Empty(t, post(t, dir))
}
