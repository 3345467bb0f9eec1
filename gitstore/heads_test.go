package gitstore

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestHeads: the refs alone, loose or packed, with odd refs under the prefix left out.
func TestHeads(t *testing.T) {
	dir := newRepo(t)
	s := openStore(t, dir)
	mustCreate(t, s, "login")
	mustCreate(t, s, "other")
	git(t, dir, "update-ref", "refs/exarchos/Not_Ours", "HEAD")
	want := map[string]string{
		"login": git(t, dir, "rev-parse", "refs/exarchos/login"),
		"other": git(t, dir, "rev-parse", "refs/exarchos/other"),
	}
	heads, err := s.Heads()
	require.NoError(t, err)
	assert.Equal(t, want, heads)

	git(t, dir, "pack-refs", "--all")
	appendN(t, s, "login", 1) // a loose ref overriding the packed one
	want["login"] = git(t, dir, "rev-parse", "refs/exarchos/login")
	heads, err = s.Heads()
	require.NoError(t, err)
	assert.Equal(t, want, heads)
}
