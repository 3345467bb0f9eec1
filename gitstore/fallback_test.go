package gitstore

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCommonPathStartsNoGit: appending, reading a state and listing, loose and after `git gc`,
// find every object in the fast path: the fallback to git (gitrepo/catfile.go) costs them nothing.
func TestCommonPathStartsNoGit(t *testing.T) {
	dir := newRepo(t)
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
		assert.False(t, s.Objects().GitStarted(), "gc=%v", gc)
		git(t, dir, "gc", "-q")
	}
}
