package app

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/exarchos/git-exarchos/internal/faults"
	"github.com/exarchos/git-exarchos/internal/gittest"
)

// TestHooksInstallKilledLeavesNoCopy (issue 28): `hooks install --claude` killed after writing the
// new settings and before renaming them into place leaves the old file and no copy in .claude/
// (which the project scope commits); run again, it installs.
func TestHooksInstallKilledLeavesNoCopy(t *testing.T) {
	exe := gittest.FaultsBinary(t)
	dir, _ := newRepo(t, "main")
	const old = "{\n  \"permissions\": {}\n}\n"
	gittest.WriteFile(t, dir, ".claude/settings.json", old)
	install := func(point string) error {
		cmd := exec.Command(exe, "hooks", "install", "--claude")
		cmd.Dir = dir
		cmd.Env = append(gittest.Env(), "HOME="+t.TempDir(), "CLAUDECODE=", "CLAUDE_CODE_SESSION_ID=", "CLAUDE_CODE_ENTRYPOINT=", "AI_AGENT=", "CLAUDE_PROJECT_DIR=", faults.Env+"="+point)
		out, err := cmd.CombinedOutput()
		if err != nil && !gittest.KilledBySIGKILL(err) {
			t.Fatalf("hooks install: %v\n%s", err, out)
		}
		return err
	}
	require.True(t, gittest.KilledBySIGKILL(install("0:atomicfile-written")))
	entries, err := os.ReadDir(filepath.Join(dir, ".claude"))
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	assert.Equal(t, []string{"settings.json"}, names, "no temporary copy is left")
	b, err := os.ReadFile(filepath.Join(dir, ".claude", "settings.json"))
	require.NoError(t, err)
	assert.Equal(t, old, string(b))
	require.NoError(t, install(""))
	b, err = os.ReadFile(filepath.Join(dir, ".claude", "settings.json"))
	require.NoError(t, err)
	assert.Contains(t, string(b), "hook claude")
}
