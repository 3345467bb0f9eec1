package gitrepo

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/exarchos/git-exarchos/internal/gittest"
)

// routeRefsThroughGit sends every ref through git for the rest of the test.
func routeRefsThroughGit(t *testing.T) {
	was := RouteRefsThroughGit(true)
	t.Cleanup(func() { RouteRefsThroughGit(was) })
}

// TestRefsThroughGitAgreeWithFiles: with refs sent to git, reads, lists and compare-and-swap
// writes give what the files path gives, on loose and packed refs, and a lost race is ErrStale.
func TestRefsThroughGitAgreeWithFiles(t *testing.T) {
	dir := gittest.NewRepo(t, "sha1")
	head := mustHash(gittest.Git(t, dir, "", "rev-parse", "HEAD"))
	tree := mustHash(gittest.Git(t, dir, "", "rev-parse", "HEAD^{tree}"))
	gittest.Git(t, dir, "", "update-ref", "refs/exarchos/packed", head.String())
	gittest.Git(t, dir, "", "pack-refs", "--all")
	gittest.Git(t, dir, "", "update-ref", "refs/exarchos/loose", head.String())
	gittest.Git(t, dir, "", "update-ref", "refs/exarchos/Bad", head.String())
	common := filepath.Join(dir, ".git")
	valid := func(rest string) bool { return strings.ToLower(rest) == rest }

	wantRefs, wantOrder, wantBad, err := ScanRefs(common, "refs/exarchos/", valid)
	require.NoError(t, err)
	wantHead, _, err := ReadRef(common, "refs/heads/main")
	require.NoError(t, err)

	routeRefsThroughGit(t)
	refs, order, bad, err := ScanRefs(common, "refs/exarchos/", valid)
	require.NoError(t, err)
	assert.Equal(t, wantRefs, refs)
	assert.Equal(t, wantOrder, order)
	require.Len(t, bad, len(wantBad))
	assert.Equal(t, "refs/exarchos/Bad", bad[0].Name)
	assert.Equal(t, "git update-ref -d 'refs/exarchos/Bad'", bad[0].Fix)

	h, ok, err := ReadRef(common, "refs/heads/main")
	require.NoError(t, err)
	assert.True(t, ok)
	assert.Equal(t, wantHead, h)
	_, ok, err = ReadRef(common, "refs/exarchos/pack") // a prefix of a ref is not that ref
	require.NoError(t, err)
	assert.False(t, ok)

	// create, update, stale, delete
	c2 := mustHash(gittest.Git(t, dir, "", "commit-tree", "-p", head.String(), "-m", "two", tree.String()))
	require.NoError(t, CasRef(common, "refs/exarchos/new", head, ZeroHash))
	assert.ErrorIs(t, CasRef(common, "refs/exarchos/new", head, ZeroHash), ErrStale, "create over an existing ref")
	assert.ErrorIs(t, CasRef(common, "refs/exarchos/new", c2, c2), ErrStale, "old value not held")
	require.NoError(t, CasRef(common, "refs/exarchos/new", c2, head))
	assert.Equal(t, c2.String(), strings.TrimSpace(gittest.Git(t, dir, "", "rev-parse", "refs/exarchos/new")))
	assert.ErrorIs(t, CasRef(common, "refs/exarchos/packed", ZeroHash, c2), ErrStale, "delete from the wrong value")
	require.NoError(t, CasRef(common, "refs/exarchos/packed", ZeroHash, head))
	_, ok, err = ReadRef(common, "refs/exarchos/packed")
	require.NoError(t, err)
	assert.False(t, ok)

	// A lock another process holds is ErrLocked, with git's words.
	lockFile := filepath.Join(common, "refs", "exarchos", "new.lock")
	require.NoError(t, os.WriteFile(lockFile, nil, 0o644))
	err = CasRef(common, "refs/exarchos/new", head, c2)
	assert.ErrorIs(t, err, ErrLocked)
	assert.ErrorContains(t, err, "new.lock")
	require.NoError(t, os.Remove(lockFile))

	// The lock is a compare-and-swap from the value it saw.
	l, err := LockRef(common, "refs/exarchos/loose")
	require.NoError(t, err)
	gittest.Git(t, dir, "", "update-ref", "refs/exarchos/loose", c2.String())
	assert.ErrorIs(t, l.Commit(head), ErrStale, "the ref moved after the lock saw it")
	l, err = LockRef(common, "refs/exarchos/loose")
	require.NoError(t, err)
	require.NoError(t, l.Commit(head))
	l.Release()
	assert.Equal(t, head.String(), strings.TrimSpace(gittest.Git(t, dir, "", "rev-parse", "refs/exarchos/loose")))
	gittest.Git(t, dir, "", "fsck", "--strict", "--no-progress")
}

// canMakeReftable reports whether the installed git makes reftable repositories (2.45 or later).
func canMakeReftable(t *testing.T) bool {
	probe := filepath.Join(t.TempDir(), "probe")
	_, err := gittest.Run(t.TempDir(), "", "init", "-q", "--ref-format=reftable", probe)
	return err == nil
}

// TestReftableRefsGoThroughGit: a repository whose refs are kept in reftable is opened, not
// refused; where the installed git reads it, refs are read and moved through git; where it does
// not, the error is git's own and names the fix, a newer git.
func TestReftableRefsGoThroughGit(t *testing.T) {
	if canMakeReftable(t) {
		dir := t.TempDir()
		gittest.Git(t, dir, "", "init", "-q", "--ref-format=reftable", "-b", "main", ".")
		gittest.Git(t, dir, "", "config", "user.name", "T")
		gittest.Git(t, dir, "", "config", "user.email", "t@example.com")
		_, err := openRepo(t, dir).Facts().BranchTip("main")
		var missing *MissingBranchError
		require.ErrorAs(t, err, &missing)
		assert.True(t, missing.Unborn, "HEAD names main in the reftable, not in its file")
		gittest.Git(t, dir, "", "commit", "-q", "--allow-empty", "-m", "one")
		head := mustHash(gittest.Git(t, dir, "", "rev-parse", "HEAD"))
		r := openRepo(t, dir)
		assert.True(t, r.RefsThroughGit())
		assert.Equal(t, "main", r.CurrentBranch())
		assert.Equal(t, head.String(), r.HeadCommit())
		require.NoError(t, r.UpdateRef("refs/exarchos/f", head, ZeroHash))
		h, ok, err := r.Ref("refs/exarchos/f")
		require.NoError(t, err)
		assert.True(t, ok)
		assert.Equal(t, head, h)
		assert.Equal(t, head.String(), strings.TrimSpace(gittest.Git(t, dir, "", "rev-parse", "refs/exarchos/f")))
		assert.NoFileExists(t, filepath.Join(dir, ".git", "refs", "exarchos", "f"), "written to the reftable, not a file")
		return
	}
	dir := gittest.NewRepo(t, "sha1")
	gittest.Git(t, dir, "", "config", "core.repositoryFormatVersion", "1")
	gittest.Git(t, dir, "", "config", "extensions.refStorage", "reftable")
	r := openRepo(t, dir)
	assert.True(t, r.RefsThroughGit())
	_, _, err := r.Ref("refs/heads/main")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "refstorage", "git's own words")
	assert.Contains(t, err.Error(), "install git 2.45 or later")
	_, _, _, err = r.Refs("refs/exarchos/", nil)
	assert.ErrorContains(t, err, "install git 2.45 or later")
	assert.ErrorContains(t, r.UpdateRef("refs/exarchos/f", mustHash(strings.Repeat("1", 40)), ZeroHash), "install git 2.45 or later")
	_, err = os.Stat(filepath.Join(dir, ".git", "refs", "exarchos", "f"))
	assert.ErrorIs(t, err, os.ErrNotExist, "nothing written")
}

// TestReftableSnapshotIsNeverStale: in a reftable repository, the refs one call resolves come
// from one `git for-each-ref` while reftable/tables.list keeps its stamp, and a ref written by
// plain git since is read as git reads it.
func TestReftableSnapshotIsNeverStale(t *testing.T) {
	if !canMakeReftable(t) {
		t.Skip("the installed git cannot make a reftable repository (git 2.45 or later can)")
	}
	dir := t.TempDir()
	gittest.Git(t, dir, "", "init", "-q", "--ref-format=reftable", "-b", "main", ".")
	gittest.Git(t, dir, "", "config", "user.name", "T")
	gittest.Git(t, dir, "", "config", "user.email", "t@example.com")
	gittest.Git(t, dir, "", "commit", "-q", "--allow-empty", "-m", "one")
	one := mustHash(gittest.Git(t, dir, "", "rev-parse", "HEAD"))
	gittest.Git(t, dir, "", "commit", "-q", "--allow-empty", "-m", "two")
	two := mustHash(gittest.Git(t, dir, "", "rev-parse", "HEAD"))
	for _, f := range []string{"a", "b", "c"} {
		gittest.Git(t, dir, "", "update-ref", "refs/exarchos/"+f, one.String())
	}
	common := filepath.Join(dir, ".git")
	list := filepath.Join(common, "reftable", "tables.list")
	settle := func() {
		past := time.Now().Add(-2 * time.Second)
		require.NoError(t, os.Chtimes(list, past, past))
	}
	openRepo(t, dir) // notes the ref storage
	settle()

	runs := refsGitRuns.Load()
	for _, f := range []string{"a", "b", "c", "missing"} {
		h, ok, err := ReadRef(common, "refs/exarchos/"+f)
		require.NoError(t, err)
		assert.Equal(t, f != "missing", ok, f)
		if ok {
			assert.Equal(t, one, h, f)
		}
	}
	refs, _, _, err := ScanRefs(common, "refs/exarchos/", nil)
	require.NoError(t, err)
	assert.Len(t, refs, 3)
	assert.Equal(t, int64(1), refsGitRuns.Load()-runs, "one git process for the call's refs")

	// A write by plain git: read at once (tables.list is young, so git is asked), and after it settles.
	gittest.Git(t, dir, "", "update-ref", "refs/exarchos/b", two.String())
	h, _, err := ReadRef(common, "refs/exarchos/b")
	require.NoError(t, err)
	assert.Equal(t, two, h, "just written")
	settle()
	h, _, err = ReadRef(common, "refs/exarchos/b")
	require.NoError(t, err)
	assert.Equal(t, two, h, "settled")
	gittest.Git(t, dir, "", "update-ref", "-d", "refs/exarchos/c")
	settle()
	_, ok, err := ReadRef(common, "refs/exarchos/c")
	require.NoError(t, err)
	assert.False(t, ok, "deleted by plain git")
}
