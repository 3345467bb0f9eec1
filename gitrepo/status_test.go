package gitrepo

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/exarchos/git-exarchos/internal/gittest"
)

// statusRepo makes a worktree holding every kind of entry `git status` reports: staged and
// unstaged changes, a staged rename, a deletion, a type change, paths with spaces, a newline,
// quotes and a tab, an untracked directory's file, an ignored file, a conflicted path (a merge
// stopped on it), and a submodule with changes of its own.
func statusRepo(t *testing.T) string {
	t.Helper()
	sub := gittest.NewRepo(t, "sha1")
	dir := gittest.NewRepo(t, "sha1")
	write(t, dir, "both.txt", "base\n")
	write(t, dir, "mod.txt", "one\n")
	write(t, dir, "old name.txt", "renamed content, long enough to be found as a rename\n")
	write(t, dir, "gone.txt", "x\n")
	write(t, dir, "link", "a file, then a symlink\n")
	write(t, dir, ".gitignore", "*.log\n")
	gittest.Git(t, dir, "", "add", "-A")
	gittest.Git(t, dir, "", "-c", "protocol.file.allow=always", "submodule", "add", "-q", sub, "sub")
	gittest.Git(t, dir, "", "commit", "-q", "-m", "base")
	gittest.Git(t, dir, "", "switch", "-q", "-c", "other")
	write(t, dir, "both.txt", "theirs\n")
	gittest.Git(t, dir, "", "commit", "-q", "-am", "theirs")
	gittest.Git(t, dir, "", "switch", "-q", "main")
	write(t, dir, "both.txt", "ours\n")
	gittest.Git(t, dir, "", "commit", "-q", "-am", "ours")
	_, err := gittest.Run(dir, "", "merge", "-q", "other")
	require.Error(t, err, "the merge stops on both.txt")

	// unstaged
	write(t, dir, "mod.txt", "two\n")
	// staged, a space
	write(t, dir, "new file.txt", "new\n")
	// untracked, a newline
	write(t, dir, "line\nbreak.txt", "x\n")
	// untracked, quotes and a tab
	write(t, dir, `say "hi"`+"\t.txt", "x\n")
	// in an untracked directory
	write(t, dir, "deep/dir/untracked.txt", "x\n")
	// ignored: never listed
	write(t, dir, "debug.log", "ignored\n")
	gittest.Git(t, dir, "", "add", "new file.txt")
	// staged rename
	gittest.Git(t, dir, "", "mv", "old name.txt", "new name.txt")
	// unstaged deletion
	require.NoError(t, os.Remove(filepath.Join(dir, "gone.txt")))
	require.NoError(t, os.Remove(filepath.Join(dir, "link")))
	// type change
	require.NoError(t, os.Symlink("mod.txt", filepath.Join(dir, "link")))
	// in the submodule
	require.NoError(t, os.WriteFile(filepath.Join(dir, "sub", "README"), []byte("changed\n"), 0o644))
	return dir
}

func TestParseStatusOfRealGit(t *testing.T) {
	dir := statusRepo(t)
	head := gittest.Git(t, dir, "", "rev-parse", "HEAD")
	type want struct {
		from             string
		staged, unstaged byte
		unmerged, sub    bool
	}
	common := map[string]want{
		"both.txt":               {staged: 'U', unstaged: 'U', unmerged: true},
		"mod.txt":                {staged: '.', unstaged: 'M'},
		"new file.txt":           {staged: 'A', unstaged: '.'},
		"line\nbreak.txt":        {staged: '?', unstaged: '?'},
		`say "hi"` + "\t.txt":    {staged: '?', unstaged: '?'},
		"deep/dir/untracked.txt": {staged: '?', unstaged: '?'},
		"gone.txt":               {staged: '.', unstaged: 'D'},
		"link":                   {staged: '.', unstaged: 'T'},
		"sub":                    {staged: '.', unstaged: 'M', sub: true},
	}
	with := func(extra map[string]want) map[string]want {
		out := map[string]want{}
		for k, v := range common {
			out[k] = v
		}
		for k, v := range extra {
			out[k] = v
		}
		return out
	}
	for _, tc := range []struct {
		name string
		args []string
		want map[string]want
	}{
		{"renames off (StatusIn)", statusArgs("--no-renames"), with(map[string]want{
			"old name.txt": {staged: 'D', unstaged: '.'},
			"new name.txt": {staged: 'A', unstaged: '.'},
		})},
		{"renames on (WorktreeStatus)", statusArgs("--ignore-submodules=none"), with(map[string]want{
			"new name.txt": {from: "old name.txt", staged: 'R', unstaged: '.'},
		})},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := GitIn(dir, tc.args...)
			require.NoError(t, err)
			rep, err := ParseStatus(out)
			require.NoError(t, err)
			require.Equal(t, head, rep.Head)
			got := map[string]want{}
			for _, e := range rep.Entries {
				_, dup := got[e.Path]
				require.False(t, dup, "%q listed twice", e.Path)
				got[e.Path] = want{from: e.From, staged: e.Staged, unstaged: e.Unstaged, unmerged: e.Unmerged, sub: e.Submodule}
			}
			require.Equal(t, tc.want, got)
		})
	}

	// The two readers built on it agree with git's own counts.
	rep, err := StatusIn(dir)
	require.NoError(t, err)
	require.Len(t, rep.Paths(), len(common)+2)
	loc, err := Discover(dir)
	require.NoError(t, err)
	st, err := loc.WorktreeStatus(dir)
	require.NoError(t, err)
	require.Equal(t, Status{Staged: 2, Modified: 4, Untracked: 3, Conflicts: 1}, Status{Staged: st.Staged, Modified: st.Modified, Untracked: st.Untracked, Conflicts: st.Conflicts})
	require.Equal(t, "2 staged, 4 modified, 3 untracked, 1 conflicted", st.String())
}

func TestParseStatusUnbornAndClean(t *testing.T) {
	dir := t.TempDir()
	gittest.Git(t, dir, "", "init", "-q", "-b", "main")
	rep, err := StatusIn(dir)
	require.NoError(t, err)
	require.Empty(t, rep.Head, "a new repository: no HEAD commit")
	require.Empty(t, rep.Entries)

	dir = gittest.NewRepo(t, "sha1")
	rep, err = StatusIn(dir)
	require.NoError(t, err)
	require.Equal(t, gittest.Git(t, dir, "", "rev-parse", "HEAD"), rep.Head)
	require.Empty(t, rep.Entries)
}

// What git never prints is refused, not guessed: a hook or guard reading it fails closed.
func TestParseStatusRefusesWhatItCannotRead(t *testing.T) {
	for _, out := range []string{
		"1 .M N... 100644 100644 100644 abc abc\x00",          // no path
		"2 R. N... 100644 100644 100644 abc abc R100 new\x00", // no source path
		"u UU N... 100644 100644 100644 100644 a b c\x00",     // too few fields
		"1 .MX N... 100644 100644 100644 abc abc p\x00",       // XY of three letters
		"?\x00",                   // no path
		"X something\x00",         // unknown kind
		" M porcelain-v1.txt\x00", // v1, not v2
		"1 .M N... 100644 100644 100644 abc abc\x00ok\x00",            // a record cut in two
		"2 R. N... 100644 100644 100644 abc abc R100 new\x00\x00rest", // empty source path
	} {
		_, err := ParseStatus(out)
		require.Error(t, err, "%q", out)
	}
}
