// Package gittest holds the helpers tests of gitrepo and gitstore share: running git on a real
// temporary repository and making one.
//
// It may import the standard library, testing, testify and the other internal helpers, and only
// tests may import it.
package gittest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/exarchos/git-exarchos/internal/agentenv"
)

// Git runs git in dir (with stdin when not empty), without the caller's GIT_DIR-like variables
// or system config, fails the test on error and returns the trimmed combined output.
func Git(t testing.TB, dir, stdin string, args ...string) string {
	t.Helper()
	out, err := Run(dir, stdin, args...)
	require.NoError(t, err, "git %s: %s", strings.Join(args, " "), out)
	return out
}

// Run runs git as Git does and returns its trimmed combined output and its error, for a git
// that is expected to fail or whose failure is not what is tested (a gc racing the command, a
// probe of what the installed git can do).
func Run(dir, stdin string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(cleanEnv(), "GIT_CONFIG_NOSYSTEM=1")
	if stdin != "" {
		cmd.Stdin = strings.NewReader(stdin)
	}
	out, err := cmd.CombinedOutput()
	return strings.TrimSpace(string(out)), err
}

// NewRepo makes a repository in the given object format ("sha1" or "sha256") with an identity and
// one commit, on branch main.
func NewRepo(t testing.TB, objectFormat string) string {
	t.Helper()
	dir := t.TempDir()
	Git(t, dir, "", "init", "-q", "-b", "main", "--object-format="+objectFormat)
	Git(t, dir, "", "config", "user.name", "Test User")
	Git(t, dir, "", "config", "user.email", "test@example.com")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "README"), []byte("hello\n"), 0o644))
	Git(t, dir, "", "add", "README")
	Git(t, dir, "", "commit", "-q", "-m", "initial")
	return dir
}

func cleanEnv() []string {
	var out []string
	for _, kv := range agentenv.Strip(os.Environ()) {
		switch k, _, _ := strings.Cut(kv, "="); k {
		case "GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR", "GIT_INDEX_FILE":
			continue
		}
		out = append(out, kv)
	}
	return out
}

// NewRepoOnBranch makes a repository on branch with an identity and one empty commit.
func NewRepoOnBranch(t testing.TB, branch string) string {
	t.Helper()
	dir := t.TempDir()
	Git(t, dir, "", "init", "-q", "-b", branch)
	Git(t, dir, "", "config", "user.name", "Test User")
	Git(t, dir, "", "config", "user.email", "test@example.com")
	Git(t, dir, "", "commit", "-q", "--allow-empty", "-m", "initial")
	return dir
}

// CommitFile writes content to path in dir (making its directories) and commits it.
func CommitFile(t testing.TB, dir, path, content string) {
	t.Helper()
	WriteFile(t, dir, path, content)
	Git(t, dir, "", "add", path)
	Git(t, dir, "", "commit", "-q", "-m", "add "+path)
}

// NewTeam makes a bare remote (its main branch holding one commit) and n clones of it, each with
// its own identity (Dev i, dev<i>@example.com), under one temporary directory.
func NewTeam(t testing.TB, n int) (remote string, clones []string) {
	t.Helper()
	root := t.TempDir()
	remote = filepath.Join(root, "remote.git")
	Git(t, root, "", "init", "-q", "--bare", "-b", "main", remote)
	for i := 0; i < n; i++ {
		dir := filepath.Join(root, fmt.Sprintf("clone%d", i))
		Git(t, root, "", "clone", "-q", "file://"+remote, dir)
		Git(t, dir, "", "symbolic-ref", "HEAD", "refs/heads/main") // the remote is empty: no default branch yet
		Git(t, dir, "", "config", "user.name", fmt.Sprintf("Dev %d", i))
		Git(t, dir, "", "config", "user.email", fmt.Sprintf("dev%d@example.com", i))
		if i == 0 {
			require.NoError(t, os.WriteFile(filepath.Join(dir, "README"), []byte("hi\n"), 0o644))
			Git(t, dir, "", "add", "README")
			Git(t, dir, "", "commit", "-q", "-m", "initial")
			Git(t, dir, "", "push", "-q", "origin", "main")
		} else {
			Git(t, dir, "", "pull", "-q", "origin", "main")
		}
		clones = append(clones, dir)
	}
	return remote, clones
}

// StateBlobs are the state.json blobs at the tips of dir's workflow refs, by workflow: what two
// clones must agree on byte for byte after they sync.
func StateBlobs(t testing.TB, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	refs := Git(t, dir, "", "for-each-ref", "--format=%(refname)", "refs/exarchos/")
	for _, ref := range strings.Fields(refs) {
		out[strings.TrimPrefix(ref, "refs/exarchos/")] = Git(t, dir, "", "cat-file", "blob", ref+":state.json")
	}
	return out
}
