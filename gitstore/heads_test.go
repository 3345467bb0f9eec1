package gitstore

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/exarchos/git-exarchos/internal/gittest"
)

// TestHeads: the refs alone, loose or packed, with odd refs under the prefix left out.
func TestHeads(t *testing.T) {
	dir := gittest.NewRepo(t, "sha1")
	s := openStore(t, dir)
	mustCreate(t, s, "login")
	mustCreate(t, s, "other")
	gittest.Git(t, dir, "", "update-ref", "refs/exarchos/Not_Ours", "HEAD")
	want := map[string]string{
		"login": gittest.Git(t, dir, "", "rev-parse", "refs/exarchos/login"),
		"other": gittest.Git(t, dir, "", "rev-parse", "refs/exarchos/other"),
	}
	heads, err := s.Heads()
	require.NoError(t, err)
	assert.Equal(t, want, heads)

	gittest.Git(t, dir, "", "pack-refs", "--all")
	appendN(t, s, "login", 1) // a loose ref overriding the packed one
	want["login"] = gittest.Git(t, dir, "", "rev-parse", "refs/exarchos/login")
	heads, err = s.Heads()
	require.NoError(t, err)
	assert.Equal(t, want, heads)
}

// TestListReadsWhatGitReads: list's summary of each workflow is what git shows of its head commit
// (committer time and trailers), for enough workflows that the refs and commits are read in
// parallel; a ref whose commit is not stored is left out (fsck names it), not an error, and a
// junk file beside the refs changes nothing.
func TestListReadsWhatGitReads(t *testing.T) {
	dir := gittest.NewRepo(t, "sha1")
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
		// What git reads, for every workflow in one process (one git log per field and workflow
		// was 400 processes, a sixth of the package's time).
		refs := []string{"log", "--no-walk=unsorted", "--format=%H%x00%(trailers:key=Exarchos-Phase,valueonly)%x00%(trailers:key=Exarchos-Type,valueonly)%x00%(trailers:key=Exarchos-Events,valueonly)%x00%ct%x01"}
		for _, w := range list {
			refs = append(refs, RefName(w.Feature))
		}
		out := gittest.Git(t, dir, "", refs...)
		byCommit := map[string][]string{}
		for _, rec := range strings.Split(out, "\x01") {
			if f := strings.Split(strings.TrimSpace(rec), "\x00"); len(f) == 5 {
				byCommit[f[0]] = f[1:]
			}
		}
		require.Len(t, byCommit, 40)
		heads := map[string]string{}
		for _, line := range strings.Split(gittest.Git(t, dir, "", "for-each-ref", "--format=%(refname) %(objectname)", "refs/exarchos/wf-*"), "\n") {
			ref, sha, _ := strings.Cut(line, " ")
			heads[ref] = sha
		}
		for _, w := range list {
			assert.Equal(t, heads[RefName(w.Feature)], w.Head)
			g := byCommit[w.Head]
			require.NotNil(t, g, "git has no commit for %s", w.Feature)
			assert.Equal(t, strings.TrimSpace(g[0]), w.Phase)
			assert.Equal(t, strings.TrimSpace(g[1]), w.Type)
			assert.Equal(t, strings.TrimSpace(g[2]), fmt.Sprint(w.Events))
			assert.Equal(t, strings.TrimSpace(g[3]), fmt.Sprint(w.Updated.Unix()))
		}
		assert.EqualValues(t, 4, list[7].Events)
	}
	check()
	ghost := filepath.Join(dir, ".git/refs/exarchos/ghost")
	require.NoError(t, os.Remove(ghost)) // git refuses to repack with it
	gittest.Git(t, dir, "", "pack-refs", "--all")
	gittest.Git(t, dir, "", "repack", "-adq") // commits read from a pack, as deltas
	require.NoError(t, os.WriteFile(ghost, []byte(missing+"\n"), 0o644))
	check()
}
