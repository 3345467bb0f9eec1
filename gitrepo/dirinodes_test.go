package gitrepo

import (
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDirInodes: the listing names every entry with the inode stat reports, and a file replaced
// by a rename (git's lock protocol) shows a new inode under the same name.
func TestDirInodes(t *testing.T) {
	if runtime.GOOS != "linux" {
		_, err := DirInodes(t.TempDir())
		require.Error(t, err)
		return
	}
	dir := t.TempDir()
	for i := range 600 { // more than one getdents buffer
		require.NoError(t, os.WriteFile(filepath.Join(dir, "ref-"+string(rune('a'+i%26))+string(rune('a'+i/26))), []byte("x\n"), 0o644))
	}
	require.NoError(t, os.Mkdir(filepath.Join(dir, "sub"), 0o755))
	got, err := DirInodes(dir)
	require.NoError(t, err)
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, got, len(entries))
	for _, e := range entries {
		fi, err := os.Lstat(filepath.Join(dir, e.Name()))
		require.NoError(t, err)
		assert.Equal(t, fi.Sys().(*syscall.Stat_t).Ino, got[e.Name()], e.Name())
	}
	p := filepath.Join(dir, "ref-aa")
	require.NoError(t, os.WriteFile(p+".lock", []byte("y\n"), 0o644))
	require.NoError(t, os.Rename(p+".lock", p))
	again, err := DirInodes(dir)
	require.NoError(t, err)
	assert.NotEqual(t, got["ref-aa"], again["ref-aa"])
	assert.Equal(t, got["ref-ab"], again["ref-ab"])
	_, err = DirInodes(filepath.Join(dir, "missing"))
	assert.Error(t, err)
}

// BenchmarkRefsDirListing is the check a recent index stamp costs with 1,000 loose refs (one
// directory listing with inodes), next to stamping each ref (one fstatat each, as a full check).
func BenchmarkRefsDirListing(b *testing.B) {
	dir := b.TempDir()
	names := make([]string, 1000)
	for i := range names {
		names[i] = "workflow-" + strconv.Itoa(i)
		require.NoError(b, os.WriteFile(filepath.Join(dir, names[i]), []byte("0123456789012345678901234567890123456789\n"), 0o644))
	}
	b.Run("DirInodes", func(b *testing.B) {
		for range b.N {
			if _, err := DirInodes(dir); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("ReadDirAndStampEach", func(b *testing.B) {
		for range b.N {
			d, err := os.Open(dir)
			require.NoError(b, err)
			entries, err := d.ReadDir(-1)
			require.NoError(b, err)
			listed := make([]string, len(entries))
			for i, e := range entries {
				listed[i] = e.Name()
			}
			stampFiles(d, listed, time.Now())
			d.Close()
		}
	})
}
