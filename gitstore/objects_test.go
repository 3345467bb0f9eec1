package gitstore

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/exarchos/git-exarchos/gitrepo"
	"github.com/exarchos/git-exarchos/internal/gittest"
	"github.com/exarchos/git-exarchos/workflow"
)

var formats = []gitrepo.ObjectFormat{gitrepo.SHA1, gitrepo.SHA256}

// TestPackedReads: after `git gc` (and an aggressive repack, which stores most objects as deltas
// of others) every read and write goes through the pack reader, in both hashes, and git finds
// nothing wrong with what was written on top.
func TestPackedReads(t *testing.T) {
	for _, f := range formats {
		for _, gc := range [][]string{{"gc", "--prune=now", "--quiet"}, {"repack", "-adf", "--depth=50", "--window=250", "-q"}} {
			t.Run(f.String()+"/"+gc[0], func(t *testing.T) {
				dir := gittest.NewRepo(t, f.String())
				s := openStore(t, dir)
				require.Equal(t, f, s.git.ObjectFormat())
				mustCreate(t, s, "packed")
				appendN(t, s, "packed", 300)
				_, err := s.Append("packed", proj, workflow.NewEvent{Type: "note", ID: "key-1"})
				require.NoError(t, err)
				for i := 0; i < 20; i++ {
					mustCreate(t, s, fmt.Sprintf("other-%02d", i))
				}
				gittest.Git(t, dir, "", gc...)
				gittest.Git(t, dir, "", "prune", "--expire=now")
				loose, _ := filepath.Glob(filepath.Join(dir, ".git/objects/??/*"))
				require.Empty(t, loose, "everything is packed")

				s = openStore(t, dir)
				defer s.Close()
				snap, err := s.State("packed", proj)
				require.NoError(t, err)
				assert.EqualValues(t, 302, snap.Events)
				evs, _, err := s.Events("packed", EventFilter{SinceSeq: 257})
				require.NoError(t, err)
				assert.Len(t, evs, 46)
				list, err := s.List()
				require.NoError(t, err)
				require.Len(t, list, 21)
				for _, w := range list {
					assert.Equal(t, gittest.Git(t, dir, "", "rev-parse", RefName(w.Feature)), w.Head)
				}
				problems, err := s.Verify("packed", proj)
				require.NoError(t, err)
				assert.Empty(t, problems)
				// Dedup reads the packed index bucket; a new append builds on packed objects.
				res, err := s.Append("packed", proj, workflow.NewEvent{Type: "note", ID: "key-1"}, workflow.NewEvent{Type: "note"})
				require.NoError(t, err)
				assert.Len(t, res.Appended, 1)
				assert.Len(t, res.Duplicates, 1)
				gittest.Git(t, dir, "", "fsck", "--strict", "--no-dangling")
				// Every object git can read, the pack reader reads the same.
				for _, id := range strings.Fields(gittest.Git(t, dir, "", "rev-list", "--objects", "--no-object-names", "--all")) {
					typ, content, err := s.git.ReadRaw(mustHash(id))
					require.NoError(t, err, id)
					assert.Equal(t, gittest.Git(t, dir, "", "cat-file", "-t", id), typ.String())
					assert.Equal(t, f.Sum(typ, content).String(), id)
				}
			})
		}
	}
}

func TestMissingPackedObject(t *testing.T) {
	for _, f := range formats {
		t.Run(f.String(), func(t *testing.T) {
			dir := gittest.NewRepo(t, f.String())
			s := openStore(t, dir)
			mustCreate(t, s, "gone")
			gittest.Git(t, dir, "", "gc", "--quiet")
			s = openStore(t, dir)
			defer s.Close()
			missing := f.Sum(plumbing.BlobObject, []byte("never stored"))
			_, _, err := s.git.ReadRaw(missing)
			require.True(t, errors.Is(err, plumbing.ErrObjectNotFound), "%v", err)
			_, err = s.State("gone", proj)
			require.NoError(t, err)
		})
	}
}

// BenchmarkStateLargePack reads a workflow's state in a repository whose pack holds 60,000 other
// objects: the index is searched, never loaded, so the cost does not grow with the pack.
func BenchmarkStateLargePack(b *testing.B) {
	dir := gittest.NewRepo(b, "sha1")
	s := openStore(b, dir)
	mustCreate(b, s, "w")
	appendN(b, s, "w", 1000)
	// 60,000 small blobs in one pack, as in a mid-sized project.
	var stdin []byte
	for i := 0; i < 60000; i++ {
		content := fmt.Sprintf("file %d\n", i)
		stdin = fmt.Appendf(stdin, "blob\nmark :%d\ndata %d\n%s\n", i+1, len(content), content)
	}
	gittest.Git(b, dir, string(stdin), "fast-import", "--quiet")
	gittest.Git(b, dir, "", "gc", "--quiet")
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s := openStore(b, dir)
		if _, err := s.State("w", proj); err != nil {
			b.Fatal(err)
		}
		s.Close()
	}
}
