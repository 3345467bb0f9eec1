package gitstore

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/exarchos/git-exarchos/gitrepo"
	"github.com/exarchos/git-exarchos/internal/gittest"
)

// TestCommonPathStartsNoGit: appending, reading a state and listing, loose and after `git gc`,
// find every object in the fast path: the fallback to git (gitrepo/catfile.go) costs them nothing.
func TestCommonPathStartsNoGit(t *testing.T) {
	dir := gittest.NewRepo(t, "sha1")
	for _, gc := range []bool{false, true} {
		s := openStore(t, dir)
		if !gc {
			mustCreate(t, s, "w")
		}
		appendN(t, s, "w", 3)
		_, err := s.State("w", proj)
		require.NoError(t, err)
		_, err = s.List()
		require.NoError(t, err)
		bad, err := s.BadRefs()
		require.NoError(t, err)
		assert.Empty(t, bad)
		assert.False(t, s.git.(*gitrepo.Repo).Objects().GitStarted(), "gc=%v", gc)
		gittest.Git(t, dir, "", "gc", "-q")
	}
}

// TestLogRefusesASegmentThatIsNotItsID (issue 28): a segment object whose content is not what its
// id says is an error for every reader of the log, not a shorter log.
func TestLogRefusesASegmentThatIsNotItsID(t *testing.T) {
	dir := gittest.NewRepo(t, "sha1")
	s := openStore(t, dir)
	mustCreate(t, s, "w")
	appendN(t, s, "w", 5)
	seg := mustHash(gittest.Git(t, dir, "", "rev-parse", "refs/exarchos/w:events/00000000.jsonl"))
	other := mustHash(gittest.Git(t, dir, "{\"id\":\"x\"}\n", "hash-object", "-w", "--stdin"))
	path := s.git.(*gitrepo.Repo).Objects().LoosePath(seg)
	require.NoError(t, os.Chmod(path, 0o644))
	b, err := os.ReadFile(s.git.(*gitrepo.Repo).Objects().LoosePath(other))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, b, 0o644))
	s = openStore(t, dir)
	_, _, err = s.Events("w", EventFilter{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "hashes to "+other.String())
}
