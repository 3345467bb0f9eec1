package gittest

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
)

// WriteFile writes content to name under dir, making its directories.
func WriteFile(t testing.TB, dir, name, content string) {
	t.Helper()
	p := filepath.Join(dir, name)
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
}

// AppendFile appends content to the file at p (created, with its directories, when missing), as a
// script appending a line does.
func AppendFile(t testing.TB, p, content string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	f, err := os.OpenFile(p, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	require.NoError(t, err)
	_, err = f.WriteString(content)
	require.NoError(t, err)
	require.NoError(t, f.Close())
}

// RunUndo runs, in dir, the undo a hook's block names: the command between the backquotes after
// "(undo: ".
func RunUndo(t testing.TB, dir, block string) {
	t.Helper()
	m := regexp.MustCompile("\\(undo: `([^`]*)`\\)").FindStringSubmatch(block)
	require.NotNil(t, m, "no undo in %q", block)
	cmd := exec.Command("sh", "-c", m[1])
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s: %s", m[1], out)
}

// NewProjectRepo makes a repository on main with an identity and a small project committed:
// README, src/a.go, src/b.go, and a .gitignore that ignores *.log.
func NewProjectRepo(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	Git(t, dir, "", "init", "-q", "-b", "main")
	Git(t, dir, "", "config", "user.name", "Test")
	Git(t, dir, "", "config", "user.email", "t@example.com")
	WriteFile(t, dir, "README", "hello\n")
	WriteFile(t, dir, "src/a.go", "package a\n")
	WriteFile(t, dir, "src/b.go", "package b\n")
	WriteFile(t, dir, ".gitignore", "*.log\n")
	Git(t, dir, "", "add", ".")
	Git(t, dir, "", "commit", "-q", "-m", "initial")
	return dir
}

// Env is the environment for a git-exarchos process a test starts: the caller's without its
// GIT_* and EXARCHOS_* variables, no system git config, and a fixed identity.
func Env() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GIT_") && !strings.HasPrefix(kv, "EXARCHOS_") {
			env = append(env, kv)
		}
	}
	return append(env, "GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=Test", "GIT_AUTHOR_EMAIL=t@example.com",
		"GIT_COMMITTER_NAME=Test", "GIT_COMMITTER_EMAIL=t@example.com")
}

var (
	faultsOnce sync.Once
	faultsDir  string
	faultsExe  string
	faultsErr  error
)

// FaultsBinary builds git-exarchos with the test-only fault points (-tags exarchos_faults), once
// per test binary: the shipped binary has none. RunIsolated removes it when the tests end.
func FaultsBinary(t testing.TB) string {
	t.Helper()
	faultsOnce.Do(func() {
		if faultsDir, faultsErr = os.MkdirTemp("", "exarchos-faults-"); faultsErr != nil {
			return
		}
		faultsExe = filepath.Join(faultsDir, "git-exarchos")
		cmd := exec.Command("go", "build", "-tags", "exarchos_faults", "-o", faultsExe, "github.com/exarchos/git-exarchos/cmd/git-exarchos")
		if out, err := cmd.CombinedOutput(); err != nil {
			faultsErr = fmt.Errorf("go build -tags exarchos_faults: %v\n%s", err, out)
		}
	})
	require.NoError(t, faultsErr)
	return faultsExe
}

// KilledBySIGKILL reports whether err is the exit of a process SIGKILL ended (a crash test's kill).
func KilledBySIGKILL(err error) bool {
	var ee *exec.ExitError
	return errors.As(err, &ee) && ee.Sys().(syscall.WaitStatus).Signal() == syscall.SIGKILL
}
