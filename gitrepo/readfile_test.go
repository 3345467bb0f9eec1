package gitrepo

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
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
