package gitstore

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/exarchos/git-exarchos/workflow"
)

// withPackThreshold makes packed reads go through git cat-file (0) or go-git (huge).
func withPackThreshold(t testing.TB, n int64) {
	old := bigPackIndex
	bigPackIndex = n
	t.Cleanup(func() { bigPackIndex = old })
}

func TestPackedReadsThroughCatFileAndGoGit(t *testing.T) {
	for _, threshold := range []int64{0, 1 << 40} {
		t.Run(fmt.Sprintf("threshold=%d", threshold), func(t *testing.T) {
			withPackThreshold(t, threshold)
			dir := newRepo(t)
			s := openStore(t, dir)
			mustCreate(t, s, "packed")
			appendN(t, s, "packed", 300)
			_, err := s.Append("packed", proj, workflow.NewEvent{Type: "note", ID: "key-1"})
			require.NoError(t, err)
			git(t, dir, "gc", "--prune=now", "--quiet")
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
			assert.Equal(t, "packed", list[0].Feature)
			problems, err := s.Verify("packed", proj)
			require.NoError(t, err)
			assert.Empty(t, problems)
			// Dedup reads the packed index bucket; a new append builds on packed objects.
			res, err := s.Append("packed", proj, workflow.NewEvent{Type: "note", ID: "key-1"}, workflow.NewEvent{Type: "note"})
			require.NoError(t, err)
			assert.Len(t, res.Appended, 1)
			assert.Len(t, res.Duplicates, 1)
			git(t, dir, "fsck", "--strict", "--no-dangling")
			if threshold == 0 {
				require.NotNil(t, s.st.batch, "cat-file was used")
			} else {
				require.Nil(t, s.st.batch, "go-git was used")
			}
		})
	}
}

func TestMissingObjectThroughCatFile(t *testing.T) {
	withPackThreshold(t, 0)
	dir := newRepo(t)
	s := openStore(t, dir)
	mustCreate(t, s, "gone")
	git(t, dir, "gc", "--quiet")
	s = openStore(t, dir)
	defer s.Close()
	_, _, err := s.st.raw([20]byte{1, 2, 3})
	require.Error(t, err)
	// The batch process survives a miss and answers the next question.
	_, err = s.State("gone", proj)
	require.NoError(t, err)
}

// BenchmarkStateLargePack reads a workflow's state in a repository whose pack holds 60,000 other
// objects, through go-git (which loads the whole pack index first) and through git cat-file.
func BenchmarkStateLargePack(b *testing.B) {
	dir := newRepo(b)
	s := openStore(b, dir)
	mustCreate(b, s, "w")
	appendN(b, s, "w", 1000)
	// 60,000 small blobs in one pack, as in a mid-sized project.
	var stdin []byte
	for i := 0; i < 60000; i++ {
		content := fmt.Sprintf("file %d\n", i)
		stdin = fmt.Appendf(stdin, "blob\nmark :%d\ndata %d\n%s\n", i+1, len(content), content)
	}
	gitStdinB(b, dir, string(stdin), "fast-import", "--quiet")
	git(b, dir, "gc", "--quiet")
	for _, c := range []struct {
		name      string
		threshold int64
	}{{"go-git", 1 << 40}, {"cat-file", 0}} {
		b.Run(c.name, func(b *testing.B) {
			withPackThreshold(b, c.threshold)
			for i := 0; i < b.N; i++ {
				s := openStore(b, dir)
				if _, err := s.State("w", proj); err != nil {
					b.Fatal(err)
				}
				s.Close()
			}
		})
	}
}
