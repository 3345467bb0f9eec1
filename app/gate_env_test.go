package app

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/exarchos/git-exarchos/internal/gittest"
)

// TestGateFilesFromBase (issue 38 item 9): whatever spelling a gate names its files with (a
// script by its path, through sh or bash, make's Makefile, npm's package.json), the base's
// version is what runs in the checkout; a file the branch did not change, or one the base does
// not have, is left as the commit holds it.
func TestGateFilesFromBase(t *testing.T) {
	dir, _ := newRepo(t, "main")
	base := map[string]string{"check.sh": "exit 1\n", "scripts/lint.sh": "exit 1\n", "Makefile": "check:\n\tfalse\n", "package.json": `{"scripts":{"test":"false"}}`, "same.sh": "exit 0\n"}
	for p, c := range base {
		gittest.CommitFile(t, dir, p, c)
	}
	gittest.Git(t, dir, "", "switch", "-q", "-c", "topic")
	for p := range base {
		if p != "same.sh" {
			gittest.WriteFile(t, dir, p, "exit 0 # the branch's\n")
		}
	}
	gittest.WriteFile(t, dir, "new.sh", "exit 0\n")
	gittest.Git(t, dir, "", "add", "-A")
	gittest.Git(t, dir, "", "commit", "-qm", "lenient")
	r, err := Open(dir)
	require.NoError(t, err)
	commit := gittest.Git(t, dir, "", "rev-parse", "HEAD")
	for gate, want := range map[string][]string{
		"./check.sh":                      {"check.sh"},
		"sh ./check.sh":                   {"check.sh"},
		"bash scripts/lint.sh --strict":   {"scripts/lint.sh"},
		"./check.sh && ./scripts/lint.sh": {"check.sh", "scripts/lint.sh"},
		"make -s check":                   {"Makefile"},
		"npm test":                        {"package.json"},
		"sh same.sh":                      nil,
		"sh new.sh":                       nil,
		"go test ./...":                   nil,
		`sh -c "./check.sh"`:              {"check.sh"},
		"test -f built.txt || ./check.sh": {"check.sh"},
	} {
		co, done, err := r.CleanCheckout(commit)
		require.NoError(t, err)
		got, err := r.gateFilesFromBase(co, gate)
		require.NoError(t, err)
		assert.ElementsMatch(t, want, got, "%s", gate)
		for _, p := range want {
			b, err := os.ReadFile(filepath.Join(co, p))
			require.NoError(t, err)
			assert.Equal(t, base[p], string(b), "%s: %s is the base's", gate, p)
		}
		done()
	}
}

// TestGatePath: the gate's PATH keeps the user's directories and drops the relative ones and
// those a session can plant a program in unseen.
func TestGatePath(t *testing.T) {
	wt, tmp := t.TempDir(), os.TempDir()
	path := strings.Join([]string{filepath.Join(wt, ".bin"), "/usr/local/bin", "bin", "", filepath.Join(tmp, "shim"), "/usr/bin", wt}, string(filepath.ListSeparator))
	assert.Equal(t, "/usr/local/bin"+string(filepath.ListSeparator)+"/usr/bin", gatePath(path, []string{wt, tmp}))
}
