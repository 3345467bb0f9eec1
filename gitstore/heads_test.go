package gitstore

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
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

// TestListReadsWhatGitReads: list's summary of each workflow is what git shows of its head commit
// (committer time and trailers), for enough workflows that the refs and commits are read in
// parallel; a ref whose commit is not stored is left out (fsck names it), not an error, and a
// junk file beside the refs changes nothing.
func TestListReadsWhatGitReads(t *testing.T) {
	dir := newRepo(t)
	s := openStore(t, dir)
	for i := 0; i < 40; i++ {
		mustCreate(t, s, fmt.Sprintf("wf-%02d", i))
	}
	appendN(t, s, "wf-07", 3)
	missing := strings.Repeat("1", 40)
	require.NoError(t, os.WriteFile(filepath.Join(dir, ".git/refs/exarchos/ghost"), []byte(missing+"\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, ".git/refs/exarchos/.DS_Store"), []byte("junk"), 0o644))

	check := func() {
		s := openStore(t, dir)
		defer s.Close()
		list, err := s.List()
		require.NoError(t, err)
		require.Len(t, list, 40)
		for _, w := range list {
			ref := RefName(w.Feature)
			assert.Equal(t, git(t, dir, "rev-parse", ref), w.Head)
			assert.Equal(t, git(t, dir, "log", "-1", "--format=%(trailers:key=Exarchos-Phase,valueonly)", ref), w.Phase)
			assert.Equal(t, git(t, dir, "log", "-1", "--format=%(trailers:key=Exarchos-Type,valueonly)", ref), w.Type)
			assert.Equal(t, git(t, dir, "log", "-1", "--format=%(trailers:key=Exarchos-Events,valueonly)", ref), fmt.Sprint(w.Events))
			assert.Equal(t, git(t, dir, "log", "-1", "--format=%ct", ref), fmt.Sprint(w.Updated.Unix()))
		}
		assert.EqualValues(t, 4, list[7].Events)
	}
	check()
	ghost := filepath.Join(dir, ".git/refs/exarchos/ghost")
	require.NoError(t, os.Remove(ghost)) // git refuses to repack with it
	git(t, dir, "pack-refs", "--all")
	git(t, dir, "repack", "-adq") // commits read from a pack, as deltas
	require.NoError(t, os.WriteFile(ghost, []byte(missing+"\n"), 0o644))
	check()
}
