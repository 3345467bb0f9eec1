package gitrepo

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/exarchos/git-exarchos/internal/gittest"
)

// TestCommonPathStartsNoGit: what the fast path finds (loose, packed) is read without a process;
// a miss that git agrees with is ErrObjectNotFound.
func TestCommonPathStartsNoGit(t *testing.T) {
	dir := gittest.NewRepo(t, "sha1")
	loose := gitHash(t, dir, "", nil, "hash-object", "-w", "--stdin") // empty blob, loose
	head := mustHash(gittest.Git(t, dir, "", "rev-parse", "HEAD"))
	r := openRepo(t, dir)
	_, err := r.ReadObject(loose, plumbing.BlobObject)
	require.NoError(t, err)
	_, err = r.GetCommit(head)
	require.NoError(t, err)
	assert.True(t, r.Objects().HasLocal(head))
	assert.False(t, r.Objects().GitStarted(), "the fast path found everything")

	missing := mustHash("0123456789012345678901234567890123456789")
	_, _, err = r.Objects().Raw(missing)
	assert.ErrorIs(t, err, plumbing.ErrObjectNotFound)
	assert.False(t, r.Objects().Exists(missing))
	assert.True(t, r.Objects().GitStarted(), "a miss is asked of git")
}

// TestFallbackReadsWhatTheFastPathCannot: a pack whose index is version 1 (which the fast path does
// not read) is read through git, on the same process for every object.
func TestFallbackReadsWhatTheFastPathCannot(t *testing.T) {
	dir := gittest.NewRepo(t, "sha1")
	gittest.Git(t, dir, "", "-c", "pack.indexVersion=1", "repack", "-adq")
	idx, _ := filepath.Glob(filepath.Join(dir, ".git", "objects", "pack", "*.idx"))
	require.Len(t, idx, 1)
	b, err := os.ReadFile(idx[0])
	require.NoError(t, err)
	require.NotEqual(t, "\377tOc", string(b[:4]), "a version 1 index has no magic")
	head := mustHash(gittest.Git(t, dir, "", "rev-parse", "HEAD"))
	tree := mustHash(gittest.Git(t, dir, "", "rev-parse", "HEAD^{tree}"))
	r := openRepo(t, dir)
	assert.False(t, r.Objects().HasLocal(head))
	c, err := r.GetCommit(head)
	require.NoError(t, err)
	assert.Equal(t, tree, c.Tree)
	_, err = r.GetTree(tree)
	require.NoError(t, err)
	assert.True(t, r.Objects().Exists(head))
	assert.Equal(t, 1, r.Objects().git.starts, "one process answers every miss")
	require.NoError(t, r.Close())
}

// TestAlternatesReadInTheFastPath: objects in an alternate (and in its own alternate) are read
// without git, loose or packed; a relative alternates line is relative to the objects directory.
func TestAlternatesReadInTheFastPath(t *testing.T) {
	base := gittest.NewRepo(t, "sha1")
	blob := gitHash(t, base, "in base\n", nil, "hash-object", "-w", "--stdin")
	mid := t.TempDir()
	gittest.Git(t, mid, "", "init", "-q", "--bare")
	rel, err := filepath.Rel(filepath.Join(mid, "objects"), filepath.Join(base, ".git", "objects"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(mid, "objects", "info", "alternates"), []byte("# a comment\n"+rel+"\n"), 0o644))
	top := t.TempDir()
	gittest.Git(t, top, "", "init", "-q")
	require.NoError(t, os.WriteFile(filepath.Join(top, ".git", "objects", "info", "alternates"), []byte(filepath.Join(mid, "objects")+"\n"), 0o644))
	r := openRepo(t, top)
	content, err := r.ReadObject(blob, plumbing.BlobObject)
	require.NoError(t, err)
	assert.Equal(t, "in base\n", string(content))
	gittest.Git(t, base, "", "gc", "-q")
	r = openRepo(t, top)
	head := mustHash(gittest.Git(t, base, "", "rev-parse", "HEAD"))
	_, err = r.GetCommit(head)
	require.NoError(t, err)
	assert.True(t, r.Objects().HasLocal(blob))
	assert.False(t, r.Objects().GitStarted())
	_, _, err = r.Objects().Raw(mustHash("0123456789012345678901234567890123456789"))
	assert.True(t, errors.Is(err, plumbing.ErrObjectNotFound))
}
