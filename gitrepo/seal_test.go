package gitrepo

import (
	"bytes"
	"os"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSealKey: the key is made once, 0600, and processes (here goroutines) creating it at once
// all end up with the one that was linked into place; a seal holds only for its data and key.
func TestSealKey(t *testing.T) {
	dir := t.TempDir()
	_, err := SealKey(dir, false)
	require.Error(t, err, "no key and not asked to create one")
	keys := make([][]byte, 8)
	var wg sync.WaitGroup
	for i := range keys {
		wg.Add(1)
		go func() {
			defer wg.Done()
			k, err := SealKey(dir, true)
			assert.NoError(t, err)
			keys[i] = k
		}()
	}
	wg.Wait()
	for _, k := range keys {
		require.True(t, bytes.Equal(k, keys[0]), "every creator reads the one key")
	}
	fi, err := os.Stat(SealKeyFile(dir))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Len(t, entries, 1, "no temporary file left behind")

	seal := Seal(keys[0], []byte("refs/exarchos/login abc"))
	assert.True(t, Sealed(keys[0], []byte("refs/exarchos/login abc"), seal))
	assert.False(t, Sealed(keys[0], []byte("refs/exarchos/login abd"), seal), "other data")
	assert.False(t, Sealed(bytes.Repeat([]byte{1}, 32), []byte("refs/exarchos/login abc"), seal), "another key")
	assert.False(t, Sealed(nil, []byte("x"), Seal(nil, []byte("x"))), "no key seals nothing")
	require.NoError(t, os.WriteFile(SealKeyFile(dir), []byte("short"), 0o600))
	_, err = SealKey(dir, true)
	assert.Error(t, err, "a damaged key is an error, not replaced")
}
