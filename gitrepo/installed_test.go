package gitrepo

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/exarchos/git-exarchos/internal/gittest"
)

// TestInstalledRecord: what an installer recorded is recognised byte for byte, in any worktree of
// the repository; an edit, or the same content at another path, is not.
func TestInstalledRecord(t *testing.T) {
	dir := gittest.NewRepo(t, "sha1")
	loc, err := Discover(dir)
	require.NoError(t, err)
	content := []byte("{\"hooks\":{}}\n")
	same, err := loc.InstalledAsWritten(".mcp.json", content)
	require.NoError(t, err)
	require.False(t, same, "nothing recorded yet")
	require.NoError(t, loc.RecordInstalled(".mcp.json", content))
	require.NoError(t, loc.RecordInstalled(".mcp.json", content)) // recorded once
	b, err := os.ReadFile(filepath.Join(loc.CommonDir, "exarchos", "installed"))
	require.NoError(t, err)
	require.Equal(t, 1, strings.Count(string(b), "\n"))
	for _, c := range []struct {
		path    string
		content []byte
		want    bool
	}{{".mcp.json", content, true}, {".mcp.json", []byte("{\"hooks\":{} }\n"), false}, {".claude/settings.json", content, false}} {
		same, err := loc.InstalledAsWritten(c.path, c.content)
		require.NoError(t, err)
		require.Equal(t, c.want, same, "%s %q", c.path, c.content)
	}
	wt := filepath.Join(t.TempDir(), "wt")
	gittest.Git(t, dir, "", "worktree", "add", "-q", "-b", "other", wt)
	other, err := Discover(wt)
	require.NoError(t, err)
	same, err = other.InstalledAsWritten(".mcp.json", content)
	require.NoError(t, err)
	require.True(t, same, "a linked worktree shares the record")
}
