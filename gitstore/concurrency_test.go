package gitstore

import (
	"bufio"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/exarchos/git-exarchos/internal/gittest"
	"github.com/exarchos/git-exarchos/workflow"
)

// runWriters starts n writer processes appending per events each and waits for them.
func runWriters(t *testing.T, dir, mode, feature string, n, per int) {
	t.Helper()
	var cmds []*exec.Cmd
	outs := make([]*safeBuf, n)
	for i := 0; i < n; i++ {
		cmd := helperCmd(t, dir, mode, feature, per)
		outs[i] = &safeBuf{}
		cmd.Stdout, cmd.Stderr = outs[i], outs[i]
		require.NoError(t, cmd.Start())
		cmds = append(cmds, cmd)
	}
	for i, cmd := range cmds {
		require.NoError(t, cmd.Wait(), "writer %d: %s", i, outs[i].String())
	}
}

type safeBuf struct {
	mu sync.Mutex
	b  []byte
}

func (s *safeBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.b = append(s.b, p...)
	return len(p), nil
}
func (s *safeBuf) String() string { s.mu.Lock(); defer s.mu.Unlock(); return string(s.b) }

// assertDense checks the acceptance criteria: exactly want events, seq 1..want, unique ids, both
// fscks clean.
func assertDense(t *testing.T, dir, feature string, want int) {
	t.Helper()
	s := openStore(t, dir)
	events, snap, err := s.Events(feature, EventFilter{})
	require.NoError(t, err)
	require.Len(t, events, want)
	assert.EqualValues(t, want, snap.Events)
	ids := map[string]bool{}
	for i, e := range events {
		require.EqualValues(t, i+1, e.Seq)
		require.False(t, ids[e.ID], "duplicate id %s", e.ID)
		ids[e.ID] = true
	}
	problems, err := s.Verify(feature, proj)
	require.NoError(t, err)
	assert.Empty(t, problems)
	gittest.Git(t, dir, "", "fsck", "--strict", "--no-dangling")
}

func TestEightProcessesAppend(t *testing.T) {
	dir := gittest.NewRepo(t, "sha1")
	mustCreate(t, openStore(t, dir), "race")
	// 8 writers × 40 appends: every append after the first few races the other seven (each
	// writer's turn is one compare-and-swap); 100 each took 2.5 times as long and found no more.
	runWriters(t, dir, "plain", "race", 8, 40)
	assertDense(t, dir, "race", 321) // the create event plus 320
}

func TestEightProcessesAppendDuringGC(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: runs git gc in a loop")
	}
	dir := gittest.NewRepo(t, "sha1")
	mustCreate(t, openStore(t, dir), "gcrace")
	stop := gcLoop(t, dir)
	runWriters(t, dir, "plain", "gcrace", 8, 40) // as in TestEightProcessesAppend
	gcRuns := stop()
	t.Logf("gc loops run beside the writers: %d", gcRuns)
	require.Greater(t, gcRuns, 1)
	assertDense(t, dir, "gcrace", 321)
}

func TestKeyedWritersDoNotDuplicate(t *testing.T) {
	dir := gittest.NewRepo(t, "sha1")
	mustCreate(t, openStore(t, dir), "keys")
	// Four processes append the same 30 idempotency keys: each lands once.
	runWriters(t, dir, "keyed", "keys", 4, 30)
	assertDense(t, dir, "keys", 31)
}

func TestSIGKILLDuringAppends(t *testing.T) {
	dir := gittest.NewRepo(t, "sha1")
	mustCreate(t, openStore(t, dir), "kill")
	rng := rand.New(rand.NewSource(42))
	kills, locksLeft, tmpsLeft := 0, 0, map[string]bool{}
	for kills < 60 {
		cmd := helperCmd(t, dir, "slow", "kill", 1000)
		stdout, err := cmd.StdoutPipe()
		require.NoError(t, err)
		require.NoError(t, cmd.Start())
		// Wait for the writer to be mid-stream, then kill it at a random instant.
		sc := bufio.NewScanner(stdout)
		sc.Scan()
		time.Sleep(time.Duration(rng.Intn(4000)) * time.Microsecond)
		require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
		for sc.Scan() {
		}
		cmd.Wait()
		kills++

		// The ref always resolves to a valid commit whose log is whole.
		// Whatever the dead writer left (its ref lock, temporary objects) is reported as stale,
		// and every leftover file is.
		stale, err := openStore(t, dir).StaleFiles()
		require.NoError(t, err)
		reported := map[string]bool{}
		for _, f := range stale {
			for _, p := range f.Paths {
				reported[p] = true
			}
		}
		leftovers, _ := filepath.Glob(filepath.Join(dir, ".git/objects/*/tmp_obj_*"))
		newValues, _ := filepath.Glob(filepath.Join(dir, ".git/refs/exarchos/kill~*.lock"))
		for _, p := range newValues {
			require.True(t, reported[p], "unrenamed ref value %s left by a killed writer is reported", p)
			os.Remove(p)
		}
		for _, p := range leftovers {
			require.True(t, reported[p], "tmp object %s left by a killed writer is reported", p)
			tmpsLeft[p] = true
		}
		lock := filepath.Join(dir, ".git/refs/exarchos/kill.lock")
		if _, err := os.Stat(lock); err == nil {
			// Killed inside the few microseconds it holds the ref lock: the lock names a dead
			// owner, so fsck reports it and the next write removes it and goes on.
			locksLeft++
			require.True(t, reported[lock], "stale lock reported")
			_, err := openStore(t, dir).Append("kill", proj, workflow.NewEvent{Type: "note"})
			require.NoError(t, err)
			_, err = os.Stat(lock)
			require.True(t, os.IsNotExist(err))
		}
		s := openStore(t, dir)
		snap, err := s.State("kill", proj)
		require.NoError(t, err)
		problems, err := s.Verify("kill", proj)
		require.NoError(t, err)
		require.Empty(t, problems, "after kill %d", kills)
		if kills%20 == 0 {
			gittest.Git(t, dir, "", "fsck", "--strict", "--no-dangling")
		}
		_ = snap
	}
	t.Logf("%d kills, %d left a ref lock, %d temporary objects left", kills, locksLeft, len(tmpsLeft))
	// Appending resumes.
	s := openStore(t, dir)
	before, err := s.State("kill", proj)
	require.NoError(t, err)
	appendN(t, s, "kill", 3)
	after, err := s.State("kill", proj)
	require.NoError(t, err)
	assert.Equal(t, before.Events+3, after.Events)
	assertDense(t, dir, "kill", int(after.Events))
}

// TestPessimisticWritersTakeTheLock runs writers that skip the optimistic phase: each takes the
// ref's lock before reading, so none can lose a race, and the log stays dense.
func TestPessimisticWritersTakeTheLock(t *testing.T) {
	old := optimisticAttempts
	optimisticAttempts = 0
	t.Cleanup(func() { optimisticAttempts = old })
	dir := gittest.NewRepo(t, "sha1")
	mustCreate(t, openStore(t, dir), "locked")
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := openStore(t, dir)
			for i := 0; i < 15; i++ {
				_, err := s.Append("locked", proj, workflow.NewEvent{Type: "note"})
				assert.NoError(t, err)
			}
		}()
	}
	wg.Wait()
	assertDense(t, dir, "locked", 61)
	_, err := os.Stat(filepath.Join(dir, ".git/refs/exarchos/locked.lock"))
	assert.True(t, os.IsNotExist(err), "no lock left behind")
}
