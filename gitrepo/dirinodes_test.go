package gitrepo

import (
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"

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
