package gitrepo

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/exarchos/git-exarchos/internal/gittest"
)

// TestRefLockQueuesWritersOfThisProcess (issue 41: gitstore's pessimistic writers failed under
// -race): a goroutine waiting for a ref's lock that another goroutine of this process holds longer
// than lockWait gets it once released, in turn, instead of polling the file against its own
// process's writers until ErrLocked. The lock file stays the guard against other processes.
func TestRefLockQueuesWritersOfThisProcess(t *testing.T) {
	dir := gittest.NewRepo(t, "sha1")
	common := filepath.Join(dir, ".git")
	head := mustHash(gittest.Git(t, dir, "", "rev-parse", "HEAD"))
	const ref = "refs/exarchos/queued"
	held, err := LockRef(common, ref)
	require.NoError(t, err)
	require.FileExists(t, filepath.Join(common, ref+".lock"))

	got := make(chan error, 1)
	go func() {
		l, err := LockRef(common, ref)
		if err == nil {
			err = l.Commit(head)
		}
		got <- err
	}()
	select {
	case err := <-got:
		t.Fatalf("the waiter did not wait for the lock held in this process: %v", err)
	case <-time.After(lockWait + 500*time.Millisecond): // held past the file lock's own deadline
	}
	held.Release()
	require.NoError(t, <-got)
	h, ok, err := ReadRef(common, ref)
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, head, h)
	require.NoFileExists(t, filepath.Join(common, ref+".lock"))
}
