package hookrun

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/exarchos/git-exarchos/internal/gittest"
	"github.com/exarchos/git-exarchos/workflow"
)

// manyRefsRepo is a repository with workflow "login" and n other loose workflow refs at its
// commit, their files an hour old (settled), and the controls' baseline taken.
func manyRefsRepo(t *testing.T, n int) (dir string, r *Repo, refsDir string) {
	t.Helper()
	t.Setenv("HOME", t.TempDir())
	dir = gittest.NewRepoOnBranch(t, "main")
	r, err := Open(dir)
	require.NoError(t, err)
	createWorkflow(t, r, workflow.Init{Feature: "login", Type: "feature", Branch: "login"})
	var refs strings.Builder
	for i := range n {
		fmt.Fprintf(&refs, "create refs/exarchos/other-%d refs/exarchos/login\n", i)
	}
	gittest.Git(t, dir, refs.String(), "update-ref", "--stdin")
	refsDir = filepath.Join(dir, ".git", "refs", "exarchos")
	entries, err := os.ReadDir(refsDir)
	require.NoError(t, err)
	require.Len(t, entries, n+1, "the refs are loose")
	past := time.Now().Add(-time.Hour)
	for _, e := range entries {
		require.NoError(t, os.Chtimes(filepath.Join(refsDir, e.Name()), past, past))
	}
	require.Empty(t, r.CheckControls(dir), "the first call takes the baseline")
	require.Empty(t, r.CheckControls(dir), "nothing moved")
	return dir, r, refsDir
}

// rewriteInPlace writes commit into the ref file in place (same inode, same size), as a script
// writing .git/refs/exarchos/<id> does and git never does.
func rewriteInPlace(t *testing.T, path, commit string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteAt([]byte(commit+"\n"), 0)
	require.NoError(t, err)
	require.NoError(t, f.Close())
}

// TestControlsSeeARefRewrittenInPlaceAmongMany: among 300 loose refs, one ref file rewritten in
// place (no rename, so the directory does not change) is seen by the next call's stamps of the ref
// files, read, and its workflow held; the other 300 are not read again (their settled stamps).
func TestControlsSeeARefRewrittenInPlaceAmongMany(t *testing.T) {
	dir, r, refsDir := manyRefsRepo(t, 300)
	head := gittest.Git(t, dir, "", "rev-parse", "HEAD")
	rewriteInPlace(t, filepath.Join(refsDir, "other-7"), head)
	block := r.CheckControls(dir)
	assert.Contains(t, block, "refs/exarchos/other-7 moved from ")
	assert.Contains(t, block, "workflow other-7 is held")
	assert.NotContains(t, block, "other-8", "only the moved ref is reported")
	assert.Contains(t, r.Held("other-7"), "is held")
	assert.Empty(t, r.CheckControls(dir), "reported once; the hold stays")
	assert.Contains(t, r.Held("other-7"), "is held")
}

// TestControlsReadAgainARefReadWhileRecent: a ref whose file was younger than a clock tick when
// the watch read it is read again at a later look, when its stamp has become settled and is the
// same: a second write in the same tick leaves inode, size and time as they were, so a stamp taken
// while recent is never kept (issue 28: no cache taken as complete). Takes three seconds: the
// file's time must pass from recent to settled.
func TestControlsReadAgainARefReadWhileRecent(t *testing.T) {
	dir, r, refsDir := manyRefsRepo(t, 50)
	first := gittest.Git(t, dir, "", "rev-parse", "HEAD")
	gittest.Git(t, dir, "", "commit", "-q", "--allow-empty", "-m", "second")
	second := gittest.Git(t, dir, "", "rev-parse", "HEAD")
	ref := filepath.Join(refsDir, "other-3")
	// The file's time is put two seconds ahead: recent at the first look however slow this
	// machine, settled once three seconds have passed.
	tick := time.Now().Add(2 * time.Second)
	rewriteInPlace(t, ref, first)
	require.NoError(t, os.Chtimes(ref, tick, tick))
	require.Contains(t, r.CheckControls(dir), "refs/exarchos/other-3 moved from ")

	// A second write in the same tick: same inode, size and time.
	rewriteInPlace(t, ref, second)
	require.NoError(t, os.Chtimes(ref, tick, tick))
	time.Sleep(time.Until(tick.Add(1100 * time.Millisecond)))
	// The next look at the refs (a ref added by plain git) reads it again.
	gittest.Git(t, dir, "", "update-ref", "refs/exarchos/added", first)
	block := r.CheckControls(dir)
	assert.Contains(t, block, "refs/exarchos/added moved from nothing")
	assert.Contains(t, block, "refs/exarchos/other-3 moved from "+first[:12], "read again, not taken from the last look")
}

// TestControlsStateOfAnOlderVersion: a state an older version kept (JSON alone, the refs an object,
// no stamps) is read: nothing is reported as moved, and a move is still seen.
func TestControlsStateOfAnOlderVersion(t *testing.T) {
	dir, r, refsDir := manyRefsRepo(t, 20)
	var st map[string]any
	b, err := os.ReadFile(r.controlsPath(dir))
	require.NoError(t, err)
	head, refLines, _ := strings.Cut(string(b), "\n")
	require.Len(t, strings.Split(strings.TrimSpace(refLines), "\n"), 21, "a line a ref after the JSON")
	require.NoError(t, json.Unmarshal([]byte(head), &st))
	refs := map[string]string{}
	for name, h := range workflowRefsNow(t, dir) {
		refs[name] = h
	}
	st["refs"] = refs
	delete(st, "refStamps")
	b, err = json.Marshal(st)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(r.controlsPath(dir), b, 0o644))
	require.NoError(t, os.Remove(r.stampsPath(dir)))
	assert.Empty(t, r.CheckControls(dir), "the older state's refs are the refs as they are")
	assert.Empty(t, r.RefRewrites())
	rewriteInPlace(t, filepath.Join(refsDir, "other-1"), gittest.Git(t, dir, "", "rev-parse", "HEAD"))
	assert.Contains(t, r.CheckControls(dir), "refs/exarchos/other-1 moved from ")
}

// workflowRefsNow are the workflow refs as git lists them.
func workflowRefsNow(t *testing.T, dir string) map[string]string {
	out := map[string]string{}
	for _, line := range strings.Split(gittest.Git(t, dir, "", "for-each-ref", "--format=%(refname) %(objectname)", "refs/exarchos/"), "\n") {
		name, h, _ := strings.Cut(line, " ")
		out[name] = h
	}
	return out
}

// TestControlsSeeAnInPlaceRewriteWithItsTimePutBack (issue 28): a ref file rewritten in place with
// the same size and its modification time put back (os.utime, touch -r) keeps inode, size and
// time; its change time cannot be put back, and is part of the stamp: the ref is read again and
// its workflow held, with the monitor's token or without one.
func TestControlsSeeAnInPlaceRewriteWithItsTimePutBack(t *testing.T) {
	dir, r, refsDir := manyRefsRepo(t, 30)
	head := gittest.Git(t, dir, "", "rev-parse", "HEAD")
	ref := filepath.Join(refsDir, "other-4")
	before, err := os.Stat(ref)
	require.NoError(t, err)
	time.Sleep(20 * time.Millisecond) // past the file system's clock tick: the change time moves
	rewriteInPlace(t, ref, head)
	require.NoError(t, os.Chtimes(ref, before.ModTime(), before.ModTime()))
	after, err := os.Stat(ref)
	require.NoError(t, err)
	require.True(t, os.SameFile(before, after))
	require.Equal(t, before.ModTime(), after.ModTime())
	require.Equal(t, before.Size(), after.Size())
	block := r.CheckControls(dir)
	assert.Contains(t, block, "refs/exarchos/other-4 moved from ")
	assert.Contains(t, r.Held("other-4"), "is held")
}
