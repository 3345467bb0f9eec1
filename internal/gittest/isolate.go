package gittest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/exarchos/git-exarchos/internal/agentenv"
)

// InstalledNames are the programs `go install ./cmd/...` puts on a user's PATH. A test that found
// them there would test the user's installed build instead of the code under test (issue 32: the
// README's install line made TestMCPWithoutTheServerBinary find the installed server).
var InstalledNames = []string{"git-exarchos", "git-exarchos-mcp"}

// RunIsolated runs a package's tests the way CI runs them, whatever the developer's machine holds:
// HOME and XDG_CONFIG_HOME are an empty scratch directory (no ~/.gitconfig, no git config of the
// user's), git reads no system config, no GIT_* variable of the caller's leaks in, no agent
// client's variable either (agentenv.ClearProcess: a human decision refuses to run where one is set;
// tests that stand for an agent set them themselves), and PATH holds no installed git-exarchos or
// git-exarchos-mcp. Go's own caches keep their places, so a
// test that runs `go` still finds them warm. Call it from TestMain: os.Exit(gittest.RunIsolated(m)).
func RunIsolated(m *testing.M) int {
	restore, err := Isolate()
	if err != nil {
		fmt.Fprintln(os.Stderr, "isolate the tests' environment:", err)
		return 1
	}
	defer restore()
	defer func() {
		if faultsDir != "" {
			os.RemoveAll(faultsDir)
		}
	}()
	return m.Run()
}

// Isolate sets the process environment described at RunIsolated and returns what removes the
// scratch directories it made.
func Isolate() (func(), error) {
	// Go's caches default to places under HOME: pin them first, while HOME is still the user's.
	if gobin, err := exec.LookPath("go"); err == nil {
		out, err := exec.Command(gobin, "env", "GOCACHE", "GOMODCACHE", "GOPATH", "GOENV").Output()
		if err != nil {
			return nil, fmt.Errorf("go env: %w", err)
		}
		vals := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
		for i, k := range []string{"GOCACHE", "GOMODCACHE", "GOPATH", "GOENV"} {
			if i < len(vals) && vals[i] != "" {
				os.Setenv(k, vals[i])
			}
		}
	}
	home, err := os.MkdirTemp("", "exarchos-test-home-")
	if err != nil {
		return nil, err
	}
	shims, err := os.MkdirTemp("", "exarchos-test-path-")
	if err != nil {
		os.RemoveAll(home)
		return nil, err
	}
	restore := func() { os.RemoveAll(home); os.RemoveAll(shims) }
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "GIT_") {
			os.Unsetenv(k)
		}
	}
	agentenv.ClearProcess()
	os.Setenv("HOME", home)
	os.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	os.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	path, err := PathWithout(os.Getenv("PATH"), shims, InstalledNames...)
	if err != nil {
		restore()
		return nil, err
	}
	os.Setenv("PATH", path)
	return restore, nil
}

// PathWithout returns path with none of names findable. A directory holding one of them is
// replaced by a directory in shims of links to its other entries, so a git installed beside
// git-exarchos (/usr/local/bin) is still found.
func PathWithout(path, shims string, names ...string) (string, error) {
	var out []string
	for i, dir := range filepath.SplitList(path) {
		holds := false
		for _, n := range names {
			if fi, err := os.Stat(filepath.Join(dir, n)); err == nil && !fi.IsDir() {
				holds = true
			}
		}
		if !holds {
			out = append(out, dir)
			continue
		}
		entries, err := os.ReadDir(dir)
		if err != nil {
			return "", err
		}
		shim := filepath.Join(shims, fmt.Sprint(i))
		if err := os.MkdirAll(shim, 0o755); err != nil {
			return "", err
		}
		for _, e := range entries {
			if isOneOf(e.Name(), names) {
				continue
			}
			if err := os.Symlink(filepath.Join(dir, e.Name()), filepath.Join(shim, e.Name())); err != nil {
				return "", err
			}
		}
		out = append(out, shim)
	}
	return strings.Join(out, string(os.PathListSeparator)), nil
}

func isOneOf(name string, names []string) bool {
	for _, n := range names {
		if name == n || strings.TrimSuffix(name, ".exe") == n {
			return true
		}
	}
	return false
}
