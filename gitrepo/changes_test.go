package gitrepo

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/exarchos/git-exarchos/internal/gittest"
)

// One diff answers both questions exactly as git's own filters do: every change for ChangedPaths,
// --diff-filter=AM for AddedOrModified (a deletion and a type change are not "added or modified").
func TestFactsDiffAgreesWithGit(t *testing.T) {
	dir := gittest.NewRepo(t, "sha1")
	write(t, dir, "mod.txt", "one\n")
	write(t, dir, "gone.txt", "x\n")
	write(t, dir, "link", "a file, then a symlink\n")
	write(t, dir, "old name.txt", "content long enough to be taken for a rename by git\n")
	gittest.Git(t, dir, "", "add", "-A")
	gittest.Git(t, dir, "", "commit", "-q", "-m", "base")
	from := gittest.Git(t, dir, "", "rev-parse", "HEAD")
	write(t, dir, "mod.txt", "two\n")
	write(t, dir, "new\nline \"quoted\".txt", "x\n")
	write(t, dir, "deep/new.txt", "x\n")
	require.NoError(t, os.Remove(filepath.Join(dir, "gone.txt")))
	require.NoError(t, os.Remove(filepath.Join(dir, "link")))
	require.NoError(t, os.Symlink("mod.txt", filepath.Join(dir, "link")))
	gittest.Git(t, dir, "", "mv", "old name.txt", "new name.txt")
	gittest.Git(t, dir, "", "add", "-A")
	gittest.Git(t, dir, "", "commit", "-q", "-m", "change")
	to := gittest.Git(t, dir, "", "rev-parse", "HEAD")

	gitList := func(args ...string) []string {
		out, err := GitIn(dir, append([]string{"diff", "--name-only", "-z", "--no-renames"}, args...)...)
		require.NoError(t, err)
		return strings.Split(strings.TrimSuffix(out, "\x00"), "\x00")
	}
	f := openRepo(t, dir).Facts()
	changed, err := f.ChangedPaths(from, to)
	require.NoError(t, err)
	require.Equal(t, gitList(from, to), changed)
	require.Len(t, changed, 7)
	added, err := f.AddedOrModified(from, to)
	require.NoError(t, err)
	require.Equal(t, gitList("--diff-filter=AM", from, to), added)
	require.ElementsMatch(t, []string{"mod.txt", "new\nline \"quoted\".txt", "deep/new.txt", "new name.txt"}, added)

	none, err := f.ChangedPaths(to, to)
	require.NoError(t, err)
	require.Empty(t, none)
	_, err = f.ChangedPaths(from, strings.Repeat("0", 39)+"1")
	require.Error(t, err, "a commit that does not exist")
}

func TestParseNameStatusRefusesWhatItCannotRead(t *testing.T) {
	for _, out := range []string{"M\x00", "M\x00a", "R100\x00a\x00b\x00", "\x00a\x00", "M\x00\x00"} {
		_, _, err := parseNameStatus(out)
		require.Error(t, err, "%q", out)
	}
}

// The worktree that has the branch: the one this process runs in without a git process, another
// through `git worktree list`; a worktree's status is asked again once the branch moved.
func TestFactsWorktreeOf(t *testing.T) {
	dir, linked := withLinkedWorktree(t, "nowhere")
	f := openRepo(t, dir).Facts()

	got, head, err := f.WorktreeOf("main")
	require.NoError(t, err)
	require.True(t, SamePath(dir, got), "%s", got)
	require.Equal(t, gittest.Git(t, dir, "", "rev-parse", "main"), head)
	got, head, err = f.WorktreeOf("side")
	require.NoError(t, err)
	require.True(t, SamePath(linked, got), "%s", got)
	require.Equal(t, gittest.Git(t, dir, "", "rev-parse", "side"), head)
	got, _, err = f.WorktreeOf("nowhere")
	require.NoError(t, err)
	require.Empty(t, got)

	// From inside the linked worktree, the main one is found through git.
	fl := openRepo(t, linked).Facts()
	got, _, err = fl.WorktreeOf("main")
	require.NoError(t, err)
	require.True(t, SamePath(dir, got), "%s", got)

	require.NoError(t, os.WriteFile(filepath.Join(linked, "dirty.txt"), []byte("x\n"), 0o644))
	dirty, err := f.WorktreeChanges("side")
	require.NoError(t, err)
	require.Equal(t, []string{"dirty.txt"}, dirty)
	gittest.Git(t, linked, "", "add", "dirty.txt")
	gittest.Git(t, linked, "", "commit", "-q", "-m", "dirty")
	dirty, err = f.WorktreeChanges("side")
	require.NoError(t, err)
	require.Empty(t, dirty, "the branch moved: its worktree's status is asked again")
}

// A failed question is not kept: a commit that is missing now (not fetched yet, or moved by a gc
// under the reader) is asked about again, and the answer once it is there is the real one.
func TestFactsKeepNoFailure(t *testing.T) {
	origin := gittest.NewRepo(t, "sha1")
	clone := filepath.Join(t.TempDir(), "clone")
	gittest.Git(t, origin, "", "clone", "-q", origin, clone)
	base := gittest.Git(t, clone, "", "rev-parse", "HEAD")
	write(t, origin, "later.txt", "x\n")
	gittest.Git(t, origin, "", "add", "later.txt")
	gittest.Git(t, origin, "", "commit", "-q", "-m", "later")
	later := gittest.Git(t, origin, "", "rev-parse", "HEAD")

	f := openRepo(t, clone).Facts()
	_, err := f.ChangedPaths(base, later)
	require.Error(t, err, "not fetched yet")
	_, _, err = f.MergeBase(later, base)
	require.Error(t, err)
	gittest.Git(t, clone, "", "fetch", "-q", "origin")
	changed, err := f.ChangedPaths(base, later)
	require.NoError(t, err)
	require.Equal(t, []string{"later.txt"}, changed)
	mb, ok, err := f.MergeBase(later, base)
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, base, mb)
}

// Which worktree has a branch is asked of git once while the worktrees stay as they are, and
// again once one is added or switches branch.
func TestFactsWorktreeListAskedOnce(t *testing.T) {
	dir, linked := withLinkedWorktree(t, "other")
	calls := gittest.LogGit(t)
	r := openRepo(t, dir)
	lists := func() int {
		n := 0
		for _, c := range calls() {
			if strings.Contains(c, "worktree list") {
				n++
			}
		}
		return n
	}
	where := func(branch string) string {
		t.Helper()
		got, _, err := r.Facts().WorktreeOf(branch) // a new decision each time: the Repo keeps the answer
		require.NoError(t, err)
		return got
	}
	require.True(t, SamePath(linked, where("side")))
	require.Empty(t, where("other"))
	require.True(t, SamePath(linked, where("side")))
	require.Equal(t, 1, lists(), "one list for every branch asked about:\n%s", strings.Join(calls(), "\n"))

	gittest.Git(t, linked, "", "switch", "-q", "other")
	require.True(t, SamePath(linked, where("other")), "the worktree switched branch")
	require.Empty(t, where("side"))
	other := filepath.Join(t.TempDir(), "wt2")
	gittest.Git(t, dir, "", "worktree", "add", "-q", other, "side")
	require.True(t, SamePath(other, where("side")), "a worktree was added")
	require.Equal(t, 3, lists(), "one list after each change:\n%s", strings.Join(calls(), "\n"))
}

// withLinkedWorktree makes a repository on main with branch side checked out in a linked
// worktree (a path with a space), and the other branches named, checked out nowhere.
func withLinkedWorktree(t *testing.T, branches ...string) (dir, linked string) {
	t.Helper()
	dir = gittest.NewRepo(t, "sha1")
	for _, b := range append([]string{"side"}, branches...) {
		gittest.Git(t, dir, "", "branch", b)
	}
	linked = filepath.Join(t.TempDir(), "side wt")
	gittest.Git(t, dir, "", "worktree", "add", "-q", linked, "side")
	return dir, linked
}
