package gitrepo

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestReadFile: the three-call reader returns exactly the file, whatever its size against the
// hint, and a missing file is fs.ErrNotExist (ScanRefs skips a ref deleted under it on that).
func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	for _, size := range []int{0, 1, 63, 64, 128, 4096, 100_000} {
		want := bytes.Repeat([]byte("x"), size)
		path := filepath.Join(dir, "f")
		require.NoError(t, os.WriteFile(path, want, 0o644))
		for _, hint := range []int{0, 128, 1 << 20} {
			got, err := readFile(path, hint)
			require.NoError(t, err)
			assert.Equal(t, want, got, "size %d hint %d", size, hint)
		}
		got, err := readFileInto(path, []byte("keep:"))
		require.NoError(t, err)
		assert.Equal(t, append([]byte("keep:"), want...), got)
	}
	_, err := readFile(filepath.Join(dir, "missing"), 128)
	assert.ErrorIs(t, err, fs.ErrNotExist)
	_, err = readFile(dir, 128) // a directory: an error, not an empty file
	assert.Error(t, err)
}

// TestParallel: every index runs exactly once, in turn below the threshold and on goroutines above.
func TestParallel(t *testing.T) {
	for _, c := range []struct{ n, below int }{{0, 16}, {1, 0}, {5, 16}, {16, 16}, {1000, 16}, {1000, 0}} {
		runs := make([]atomic.Int32, c.n)
		Parallel(c.n, c.below, func(i int) { runs[i].Add(1) })
		for i := range runs {
			assert.EqualValues(t, 1, runs[i].Load(), "n %d: index %d", c.n, i)
		}
	}
}

// TestReadPackedRef: one ref is found by its whole name among refs that share its prefix or
// suffix, in any position of packed-refs; a name only a prefix of another is not found.
func TestReadPackedRef(t *testing.T) {
	dir := t.TempDir()
	a, b, c := strings.Repeat("a", 40), strings.Repeat("b", 40), strings.Repeat("c", 40)
	packed := "# pack-refs with: peeled fully-peeled sorted \n" +
		a + " refs/exarchos/bench\n" +
		b + " refs/exarchos/bench-1\n" +
		c + " refs/exarchos/xbench\n" +
		b + " refs/exarchos/last"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "packed-refs"), []byte(packed), 0o644))
	for name, want := range map[string]string{
		"refs/exarchos/bench": a, "refs/exarchos/bench-1": b, "refs/exarchos/xbench": c, "refs/exarchos/last": b,
		"refs/exarchos/ben": "", "refs/exarchos/bench-": "", "refs/exarchos/las": "",
	} {
		h, ok, err := ReadRef(dir, name)
		require.NoError(t, err)
		assert.Equal(t, want != "", ok, name)
		if ok {
			assert.Equal(t, want, h.String(), name)
		}
	}
}

// TestPackedRefsReadAgainWhenChanged: the packed-refs kept in memory is dropped when the file is
// replaced (git renames a new one in) or rewritten in place with the same size.
func TestPackedRefsReadAgainWhenChanged(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "packed-refs")
	read := func() string {
		h, ok, err := ReadRef(dir, "refs/exarchos/f")
		require.NoError(t, err)
		require.True(t, ok)
		return h.String()
	}
	for i, c := range []string{"a", "b", "c", "d"} {
		id := strings.Repeat(c, 40)
		content := []byte(id + " refs/exarchos/f\n")
		if i%2 == 0 { // replaced, as git does
			tmp := path + ".new"
			require.NoError(t, os.WriteFile(tmp, content, 0o644))
			require.NoError(t, os.Rename(tmp, path))
		} else { // rewritten in place, same size
			require.NoError(t, os.WriteFile(path, content, 0o644))
		}
		assert.Equal(t, id, read(), "version %d", i)
		assert.Equal(t, id, read(), "version %d, read again", i)
	}
	require.NoError(t, os.Remove(path))
	_, ok, err := ReadRef(dir, "refs/exarchos/f")
	require.NoError(t, err)
	assert.False(t, ok, "a deleted packed-refs holds nothing")
}
