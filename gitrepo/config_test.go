package gitrepo

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/exarchos/git-exarchos/internal/gittest"
)

// isolatedConfig gives the test its own HOME and XDG config and no system config.
func isolatedConfig(t *testing.T) (home string) {
	home = t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	return home
}

func TestConfigFilesAgreeWithGit(t *testing.T) {
	home := isolatedConfig(t)
	require.NoError(t, os.MkdirAll(filepath.Join(home, ".config", "git"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(home, ".config", "git", "config"),
		[]byte("[user]\n\tname = XDG Name\n[exarchos \"feature\"]\n\tmaxFixCycles = 5\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(home, ".gitconfig"),
		[]byte("[user]\n\tname = \"Global Name\"\n\temail = global@example.com\n[exarchos]\n\tstopGuard\n\trequireChecks = yes\n[core]\n\tpager = less\n"), 0o644))
	dir := t.TempDir()
	gittest.Git(t, dir, "", "init", "-q")
	gittest.Git(t, dir, "", "config", "user.email", "repo@example.com")
	gittest.Git(t, dir, "", "config", "core.repositoryformatversion", "1")
	gittest.Git(t, dir, "", "config", "extensions.worktreeConfig", "true")
	gittest.Git(t, dir, "", "config", "--worktree", "exarchos.debug.maxFixCycles", "1")
	gittest.Git(t, dir, "", "remote", "add", "origin", "https://example.com/r.git")
	gittest.Git(t, dir, "", "config", "--add", "remote.origin.fetch", "+refs/exarchos/*:refs/exarchos-remotes/origin/*")
	gittest.Git(t, dir, "", "config", "branch.Feature-X.remote", "upstream")
	gittest.Git(t, dir, "", "config", "branch.feature-x.remote", "origin")

	s := openRepo(t, dir)
	fromFiles, ok := s.readConfigFiles()
	require.True(t, ok)
	assert.Equal(t, s.configFromGit(), fromFiles, "the file reader sees what git sees")
	actor, err := s.Actor()
	require.NoError(t, err)
	assert.Equal(t, "Global Name <repo@example.com>", actor)
	assert.True(t, s.ConfigBool("exarchos.stopGuard"))
	assert.Equal(t, 5, s.ConfigInt("exarchos.feature.maxFixCycles", 0))
	assert.Equal(t, 1, s.ConfigInt("exarchos.debug.maxFixCycles", 0))
	// One reader for every key: multi-valued keys in order, subsections case-sensitive as in git.
	assert.Equal(t, []string{"+refs/heads/*:refs/remotes/origin/*", "+refs/exarchos/*:refs/exarchos-remotes/origin/*"}, s.ConfigAll("Remote.origin.Fetch"))
	for key, want := range map[string]string{"branch.Feature-X.remote": "upstream", "branch.feature-x.remote": "origin", "BRANCH.Feature-X.REMOTE": "upstream"} {
		got, ok := s.Config(key)
		assert.True(t, ok, key)
		assert.Equal(t, want, got, key)
		assert.Equal(t, gittest.Git(t, dir, "", "config", "--get", key), got, key)
	}
	// A value added through AddConfig is seen at once.
	require.NoError(t, s.AddConfig("remote.origin.fetch", "+refs/notes/*:refs/notes/*"))
	assert.Len(t, s.ConfigAll("remote.origin.fetch"), 3)
}

func TestConfigFallsBackToGit(t *testing.T) {
	home := isolatedConfig(t)
	require.NoError(t, os.WriteFile(filepath.Join(home, "extra"), []byte("[user]\n\tname = Included\n\temail = inc@example.com\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(home, ".gitconfig"), []byte("[include]\n\tpath = "+filepath.Join(home, "extra")+"\n"), 0o644))
	dir := t.TempDir()
	gittest.Git(t, dir, "", "init", "-q")
	s := openRepo(t, dir)
	_, ok := s.readConfigFiles()
	assert.False(t, ok, "includes are git's to resolve")
	actor, err := s.Actor()
	require.NoError(t, err)
	assert.Equal(t, "Included <inc@example.com>", actor)

	t.Setenv("GIT_CONFIG_COUNT", "1")
	t.Setenv("GIT_CONFIG_KEY_0", "user.name")
	t.Setenv("GIT_CONFIG_VALUE_0", "From Env")
	s = openRepo(t, dir)
	_, ok = s.readConfigFiles()
	assert.False(t, ok)
	actor, err = s.Actor()
	require.NoError(t, err)
	assert.Equal(t, "From Env <inc@example.com>", actor)
}

// TestConfigBoolAsGit (issue 28): booleans read as `git config --type=bool` reads them, from the
// files and from git alike: `key =` is false, a bare `key` true, integers by their value.
func TestConfigBoolAsGit(t *testing.T) {
	isolatedConfig(t)
	dir := t.TempDir()
	gittest.Git(t, dir, "", "init", "-q")
	gittest.Git(t, dir, "", "config", "user.name", "T")
	gittest.Git(t, dir, "", "config", "user.email", "t@example.com")
	values := map[string]string{"empty": " =", "bare": "", "zero": " = 0", "one": " = 1", "two": " = 2", "minus": " = -1",
		"kilo": " = 1k", "zerok": " = 0k", "no": " = no", "on": " = On", "false": " = FALSE", "yes": " = yes"}
	f, err := os.OpenFile(filepath.Join(dir, ".git", "config"), os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	f.WriteString("[exarchos]\n")
	for k, v := range values {
		f.WriteString("\t" + k + v + "\n")
	}
	require.NoError(t, f.Close())
	s := openRepo(t, dir)
	fromGit := openRepo(t, dir)
	fromGit.config = fromGit.configFromGit()
	for k := range values {
		want := gittest.Git(t, dir, "", "config", "--type=bool", "exarchos."+k) == "true"
		assert.Equal(t, want, s.ConfigBool("exarchos."+k), "exarchos.%s (files)", k)
		assert.Equal(t, want, fromGit.ConfigBool("exarchos."+k), "exarchos.%s (git)", k)
		v, _ := s.Config("exarchos." + k)
		assert.Equal(t, gittest.Git(t, dir, "", "config", "exarchos."+k), v, "exarchos.%s as a string", k)
	}
}

// A git installed in /usr is known wherever its binary is found: on PATH, or in its exec-path,
// which git puts first on PATH when it runs `git exarchos` (so every command would otherwise
// ask git for the whole config). Another git's system config may be elsewhere: git is asked.
func TestSystemGitKnownInItsExecPath(t *testing.T) {
	for path, want := range map[string]bool{
		"/usr/bin/git": true, "/bin/git": true, "/usr/lib/git-core/git": true, "/usr/libexec/git-core/git": true,
		"/usr/local/bin/git": false, "/usr/local/libexec/git-core/git": false, "/opt/homebrew/bin/git": false, "/tmp/x/git": false,
	} {
		require.Equal(t, want, systemGit(path), path)
	}
	onPath, err := exec.LookPath("git")
	require.NoError(t, err)
	if r, err := filepath.EvalSymlinks(onPath); err != nil || !systemGit(r) {
		t.Skipf("git on PATH is %s, not a /usr install", onPath)
	}
	execPath := gittest.Git(t, t.TempDir(), "", "--exec-path")
	if _, err := os.Stat(filepath.Join(execPath, "git")); err == nil {
		require.True(t, systemGit(filepath.Join(execPath, "git")), "the exec-path copy of a /usr git: %s", execPath)
	}
}
