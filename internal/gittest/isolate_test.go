package gittest

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestIsolateHidesTheUsersSetup: a developer who followed the README has git-exarchos and
// git-exarchos-mcp on PATH (beside other tools) and a git config of their own that would change
// what git does (signing every commit, an identity). Isolated, neither is seen; the other tools
// in the same directory and git itself still are.
func TestIsolateHidesTheUsersSetup(t *testing.T) {
	for _, k := range []string{"HOME", "XDG_CONFIG_HOME", "GIT_CONFIG_NOSYSTEM", "GIT_CONFIG_GLOBAL", "PATH", "GOCACHE", "GOMODCACHE", "GOPATH", "GOENV"} {
		t.Setenv(k, os.Getenv(k))
	}
	installed := t.TempDir()
	for _, name := range []string{"git-exarchos", "git-exarchos-mcp", "othertool"} {
		require.NoError(t, os.WriteFile(filepath.Join(installed, name), []byte("#!/bin/sh\nexit 0\n"), 0o755))
	}
	userHome := t.TempDir()
	cfg := "[user]\n\tname = The User\n[commit]\n\tgpgsign = true\n"
	require.NoError(t, os.WriteFile(filepath.Join(userHome, ".gitconfig"), []byte(cfg), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(userHome, "global"), []byte(cfg), 0o644))
	os.Setenv("HOME", userHome)
	os.Setenv("GIT_CONFIG_GLOBAL", filepath.Join(userHome, "global"))
	os.Setenv("PATH", installed+string(os.PathListSeparator)+os.Getenv("PATH"))

	restore, err := Isolate()
	require.NoError(t, err)
	defer restore()

	for _, name := range InstalledNames {
		if p, err := exec.LookPath(name); err == nil {
			t.Errorf("%s still found on PATH at %s", name, p)
		}
	}
	_, err = exec.LookPath("othertool")
	require.NoError(t, err, "a tool beside the installed binaries must stay on PATH")
	out, err := exec.Command("git", "config", "--global", "--list").CombinedOutput()
	require.Error(t, err, "the user's global git config is still read: %s", out)
	require.NotEqual(t, userHome, os.Getenv("HOME"))
	dir := NewRepo(t, "sha1") // commits, which commit.gpgsign = true would make fail
	require.NotEmpty(t, Git(t, dir, "", "rev-parse", "HEAD"))
}
