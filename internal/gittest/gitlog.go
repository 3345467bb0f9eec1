package gittest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// LogGit puts a `git` first on PATH, for the rest of the test, that records each command line it
// is run with and then runs the real git; it returns what reads the record: one entry per git
// process started since, its arguments joined by spaces. A test asserts with it how many git
// processes a command starts, so that a question asked twice cannot creep back. The test may not
// run in parallel (t.Setenv).
func LogGit(t testing.TB) func() []string {
	t.Helper()
	real, err := exec.LookPath("git")
	require.NoError(t, err)
	dir := t.TempDir()
	record := filepath.Join(dir, "argv")
	script := "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\037' \"$a\"; done >>" + shellQuote(record) +
		"\nprintf '\\036' >>" + shellQuote(record) + "\nexec " + shellQuote(real) + " \"$@\"\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "git"), []byte(script), 0o755))
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	return func() []string {
		b, err := os.ReadFile(record)
		if os.IsNotExist(err) || len(b) == 0 {
			return nil
		}
		require.NoError(t, err)
		var out []string
		for _, call := range strings.Split(strings.TrimSuffix(string(b), "\x1e"), "\x1e") {
			out = append(out, strings.Join(strings.Split(strings.TrimSuffix(call, "\x1f"), "\x1f"), " "))
		}
		return out
	}
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
