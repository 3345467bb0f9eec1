package gitrepo

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func openRepo(t testing.TB, dir string) *Repo {
	t.Helper()
	r, err := Open(dir)
	require.NoError(t, err)
	return r
}

// mustHash parses an object id printed by git.
func mustHash(s string) Hash {
	h, ok := ParseHash(strings.TrimSpace(s))
	if !ok {
		panic("not an object id: " + s)
	}
	return h
}
