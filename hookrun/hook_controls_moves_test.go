package hookrun

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/exarchos/git-exarchos/gitrepo"
	"github.com/exarchos/git-exarchos/gitstore"
	"github.com/exarchos/git-exarchos/internal/faults"
	"github.com/exarchos/git-exarchos/internal/gittest"
	"github.com/exarchos/git-exarchos/workflow"
)

// ownMove appends an event to feature's log as every command's write does (its move handed to
// Moved: Repo.Append).
func ownMove(t *testing.T, r *Repo, feature string) string {
	t.Helper()
	_, err := r.Append(feature, workflow.NewEvent{Type: "note.added", Data: map[string]any{"k": 1}})
	require.NoError(t, err)
	return gittest.Git(t, r.WorkTree(), "", "rev-parse", "refs/exarchos/"+feature)
}

// TestControlsKeptByOwnMoves: the process's own moves (a rewrite and a creation among 300 loose
// refs) leave the watch's common path holding, so the next call reads nothing, and what it keeps
// is true: no ref is held.
func TestControlsKeptByOwnMoves(t *testing.T) {
	dir, r, _ := manyRefsRepo(t, 300)
	ownMove(t, r, "login")
	assert.True(t, r.stampsHold(dir), "a rewrite by this process leaves the stamps holding")
	createWorkflow(t, r, workflow.Init{Feature: "signup", Type: "feature", Branch: "signup"})
	assert.True(t, r.stampsHold(dir), "a creation by this process too")
	assert.Empty(t, r.CheckControls(dir))
	assert.Empty(t, r.RefRewrites())
	assert.Empty(t, r.DetectRefRewrites(), "a full look finds nothing moved from outside")
}

// TestControlsSeeARewindAfterAnOwnMove: after this process's move, the ref put back by plain git
// where it was before the move is a move from outside (the state knows the move from its journal).
func TestControlsSeeARewindAfterAnOwnMove(t *testing.T) {
	dir, r, _ := manyRefsRepo(t, 50)
	before := gittest.Git(t, dir, "", "rev-parse", "refs/exarchos/login")
	ownMove(t, r, "login")
	require.True(t, r.stampsHold(dir))
	gittest.Git(t, dir, "", "update-ref", "refs/exarchos/login", before)
	block := r.CheckControls(dir)
	assert.Contains(t, block, "workflow login is held")
	assert.NotContains(t, block, "other-", "only the moved ref is reported")
}

// TestControlsSeeAnInPlaceRewriteAfterAnOwnMove: a ref rewritten in place right after this
// process's own move (the same clock tick: inode, size and time may all be as the mover stamped
// them) is seen by its content; so is another ref rewritten in place among many.
func TestControlsSeeAnInPlaceRewriteAfterAnOwnMove(t *testing.T) {
	dir, r, refsDir := manyRefsRepo(t, 300)
	before := gittest.Git(t, dir, "", "rev-parse", "refs/exarchos/login")
	ownMove(t, r, "login")
	login := filepath.Join(refsDir, "login")
	fi, err := os.Stat(login)
	require.NoError(t, err)
	rewriteInPlace(t, login, before)
	require.NoError(t, os.Chtimes(login, fi.ModTime(), fi.ModTime())) // as within the tick of the move
	assert.Contains(t, r.CheckControls(dir), "workflow login is held")

	dir, r, refsDir = manyRefsRepo(t, 300)
	ownMove(t, r, "login")
	rewriteInPlace(t, filepath.Join(refsDir, "other-7"), ownMove(t, r, "login"))
	block := r.CheckControls(dir)
	assert.Contains(t, block, "workflow other-7 is held")
	assert.NotContains(t, block, "workflow login is held")
}

// TestControlsOwnMoveAfterAPlainGitCreate: a ref created by plain git before this process's move
// is not hidden by the move's update of the refs directory's stamp.
func TestControlsOwnMoveAfterAPlainGitCreate(t *testing.T) {
	dir, r, _ := manyRefsRepo(t, 50)
	gittest.Git(t, dir, "", "update-ref", "refs/exarchos/spare", "refs/exarchos/login")
	ownMove(t, r, "login")
	assert.False(t, r.stampsHold(dir), "the listing differs: the stamps are left as they were")
	block := r.CheckControls(dir)
	assert.Contains(t, block, "workflow spare is held")
	assert.NotContains(t, block, "workflow login is held")
}

// TestControlsConcurrentOwnMoves: goroutines moving different refs through one Repo, and a second
// Repo on the same repository, at once: whichever update wins, the next call holds nothing, and a
// plain-git move among them afterwards is still seen.
func TestControlsConcurrentOwnMoves(t *testing.T) {
	dir, r, _ := manyRefsRepo(t, 100)
	r2, err := Open(dir)
	require.NoError(t, err)
	createWorkflow(t, r, workflow.Init{Feature: "signup", Type: "feature", Branch: "signup"})
	require.Empty(t, r.CheckControls(dir))
	var wg sync.WaitGroup
	for i, rr := range []*Repo{r, r2, r} {
		feature := []string{"login", "signup", "login"}[i]
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 5 {
				_, err := rr.Append(feature, workflow.NewEvent{Type: "note.added", Data: map[string]any{"k": 1}})
				assert.NoError(t, err)
			}
		}()
	}
	wg.Wait()
	assert.Empty(t, r.CheckControls(dir))
	assert.Empty(t, r.RefRewrites())
	signup := gittest.Git(t, dir, "", "rev-parse", "refs/exarchos/signup")
	gittest.Git(t, dir, "", "update-ref", "refs/exarchos/login", signup)
	assert.Contains(t, r.CheckControls(dir), "workflow login is held")
}

// TestControlsKilledAroundTheirUpdate: a process killed after its ref move, before the journal
// line or between it and the stamps, leaves a watch that holds nothing at the next call and
// still sees a later rewind.
func TestControlsKilledAroundTheirUpdate(t *testing.T) {
	if !faults.Enabled && testing.Short() {
		t.Skip("builds the faults binary")
	}
	exe := gittest.FaultsBinary(t)
	for _, point := range []string{"controls-before-journal", "controls-before-stamps"} {
		t.Run(point, func(t *testing.T) {
			dir, r, _ := manyRefsRepo(t, 50)
			before := gittest.Git(t, dir, "", "rev-parse", "refs/exarchos/login")
			cmd := exec.Command(exe, "event", "login", "note.added", "--data", `{"k":1}`)
			cmd.Dir = dir
			cmd.Env = append(gittest.Env(), "HOME="+os.Getenv("HOME"), "CLAUDECODE=", "CLAUDE_CODE_SESSION_ID=", "CLAUDE_CODE_ENTRYPOINT=", "AI_AGENT=", "CLAUDE_PROJECT_DIR=", faults.Env+"=0:"+point)
			out, err := cmd.CombinedOutput()
			require.True(t, gittest.KilledBySIGKILL(err), "killed at the crash point: %v %s", err, out)
			moved := gittest.Git(t, dir, "", "rev-parse", "refs/exarchos/login")
			require.NotEqual(t, before, moved, "the ref moved")
			assert.False(t, r.stampsHold(dir), "the stamps of before the move are not taken")
			assert.Empty(t, r.CheckControls(dir), "the move is this process's own")
			assert.Empty(t, r.RefRewrites())
			gittest.Git(t, dir, "", "update-ref", "refs/exarchos/login", before)
			assert.Contains(t, r.CheckControls(dir), "workflow login is held")
		})
	}
}

// TestControlsJournalLinesOutOfOrder: journal lines of concurrent writers read out of order (or a
// move the state saw already) change nothing: only a line whose from is the state's commit moves
// it, so no line makes a false hold.
func TestControlsJournalLinesOutOfOrder(t *testing.T) {
	dir, r, _ := manyRefsRepo(t, 5)
	a := gittest.Git(t, dir, "", "rev-parse", "refs/exarchos/login")
	b := ownMove(t, r, "login")
	c := ownMove(t, r, "login")
	require.NoError(t, os.Remove(r.stampsPath(dir))) // a full look: the state keeps c
	require.Empty(t, r.CheckControls(dir))
	ha, _ := gitrepo.ParseHash([]byte(a))
	hb, _ := gitrepo.ParseHash([]byte(b))
	hc, _ := gitrepo.ParseHash([]byte(c))
	require.True(t, r.journalControlsMoves(dir, []gitstore.Move{{Feature: "login", From: hb, To: hc}}))
	require.True(t, r.journalControlsMoves(dir, []gitstore.Move{{Feature: "login", From: ha, To: hb}})) // late, from the state of before
	require.NoError(t, os.Remove(r.stampsPath(dir)))

	assert.Empty(t, r.CheckControls(dir))
	assert.Empty(t, r.RefRewrites())
	assert.Equal(t, fmt.Sprint(c), gittest.Git(t, dir, "", "rev-parse", "refs/exarchos/login"))
}
