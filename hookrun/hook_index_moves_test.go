package hookrun_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/exarchos/git-exarchos/app"
	"github.com/exarchos/git-exarchos/engine"
	"github.com/exarchos/git-exarchos/gitrepo"
	"github.com/exarchos/git-exarchos/gitstore"
	"github.com/exarchos/git-exarchos/internal/faults"
	"github.com/exarchos/git-exarchos/internal/gittest"
	"github.com/exarchos/git-exarchos/teamsync"
	"github.com/exarchos/git-exarchos/workflow"
)

// indexTakenNow reports whether a hook call would take the branch index as it is, reading no ref.
func indexTakenNow(t *testing.T, dir string) bool {
	t.Helper()
	r, err := app.Open(dir)
	require.NoError(t, err)
	return hookRuntime(r).IndexCurrent()
}

// indexedCommits are the commits the index file names, by workflow.
func indexedCommits(t *testing.T, dir string) map[string]string {
	t.Helper()
	r, err := app.Open(dir)
	require.NoError(t, err)
	out, ok := hookRuntime(r).IndexedCommits()
	require.True(t, ok, "the index is readable")
	return out
}

// refCommits are the workflow refs as git reads them.
func refCommits(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, line := range strings.Split(gittest.Git(t, dir, "", "for-each-ref", "--format=%(refname:lstrip=2) %(objectname)", "refs/exarchos/"), "\n") {
		if f, h, ok := strings.Cut(line, " "); ok {
			out[f] = h
		}
	}
	return out
}

// sameTick sets the refs directory's time back to what the index recorded, as a second write in
// the same clock tick leaves it: only the inodes can tell that something moved.
func sameTick(t *testing.T, dir string, before time.Time) {
	t.Helper()
	require.NoError(t, os.Chtimes(filepath.Join(dir, ".git", "refs", "exarchos"), before, before))
}

func refsDirTime(t *testing.T, dir string) time.Time {
	t.Helper()
	fi, err := os.Stat(filepath.Join(dir, ".git", "refs", "exarchos"))
	require.NoError(t, err)
	return fi.ModTime()
}

// loginAndSignup is a repository with the workflows login and signup (each on its branch of that
// name), checked out on branch, whose first hook read has written the index.
func loginAndSignup(t *testing.T, branch string) (string, *app.Repo) {
	t.Helper()
	dir, r := newRepo(t, "main")
	for _, f := range []string{"login", "signup"} {
		_, err := r.CreateWorkflow(workflow.Init{Feature: f, Type: "feature", Branch: f})
		require.NoError(t, err)
	}
	gittest.Git(t, dir, "", "switch", "-q", "-c", branch)
	require.Equal(t, map[string]string{branch: "ideate"}, boundPhases(t, dir))
	return dir, r
}

// TestHookIndexFollowsOwnMoves (issue 28): when git exarchos moves a workflow ref itself (create,
// append, transition, delete), the index is updated with the ref's new commit and inode, so the
// next session's first call takes it without reading the refs; and it answers what git says.
func TestHookIndexFollowsOwnMoves(t *testing.T) {
	dir, r := newRepo(t, "main")
	_, err := r.CreateWorkflow(workflow.Init{Feature: "login", Type: "feature", Branch: "login"})
	require.NoError(t, err)
	var refs strings.Builder
	for i := range 30 {
		fmt.Fprintf(&refs, "create refs/exarchos/other-%d refs/exarchos/login\n", i)
	}
	cmd := exec.Command("git", "update-ref", "--stdin")
	cmd.Dir, cmd.Stdin = dir, strings.NewReader(refs.String())
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	gittest.Git(t, dir, "", "switch", "-q", "-c", "login")
	want := map[string]string{"login": "ideate"}
	for i := range 30 {
		want[fmt.Sprintf("other-%d", i)] = "ideate"
	}
	assert.Equal(t, want, boundPhases(t, dir), "read from the refs")

	steps := []struct {
		name string
		move func()
		want map[string]string
	}{
		{"append", func() {
			_, err := r.Execute("login", workflow.Set{Assignments: []workflow.Assignment{{Path: "artifacts.design", Value: []byte(`"docs/design.md"`)}}})
			require.NoError(t, err)
		}, want},
		{"create", func() {
			_, err := r.CreateWorkflow(workflow.Init{Feature: "signup", Type: "feature", Branch: "login"})
			require.NoError(t, err)
			want["signup"] = "ideate"
		}, want},
		{"delete", func() {
			h, ok, err := r.Store.Head("other-3")
			require.NoError(t, err)
			require.True(t, ok)
			hash, _ := gitrepo.ParseHash([]byte(h))
			// A deletion outside the engine (sync's prune): its caller hands the move over.
			before := hookRuntime(r).BeforeMoves()
			deleted, err := r.Store.DeleteIfUnchanged("other-3", hash)
			require.NoError(t, err)
			require.NotNil(t, deleted)
			hookRuntime(r).Moved(before, deleted)
			delete(want, "other-3")
		}, want},
	}
	for _, s := range steps {
		s.move()
		assert.True(t, indexTakenNow(t, dir), "%s: the index is current after git exarchos's own move", s.name)
		assert.Equal(t, refCommits(t, dir), indexedCommits(t, dir), s.name)
		assert.Equal(t, s.want, boundPhases(t, dir), s.name)
	}

	// A hook call that binds a session moves the ref too (hook.session-bound): the next session's
	// first call still takes the index.
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	assert.Empty(t, callHook(t, "s1", dir, "PreToolUse", "Read", write(filepath.Join(dir, "main.go"))).denied())
	assert.True(t, indexTakenNow(t, dir), "after the binding's append")
	assert.Equal(t, refCommits(t, dir), indexedCommits(t, dir))
}

// TestHookIndexSeesPlainGitInTheSameTick (issue 28): after git exarchos's own move the index is
// kept under a recent stamp; a ref then created, moved or deleted by plain git within the same
// clock tick leaves the directory's time as it was, and is still seen (by its inode).
func TestHookIndexSeesPlainGitInTheSameTick(t *testing.T) {
	dir, r := loginAndSignup(t, "login")
	_, err := r.CreateWorkflow(workflow.Init{Feature: "admin", Type: "feature", Branch: "admin"})
	require.NoError(t, err)
	move := func() {
		t.Helper()
		_, err := r.Execute("login", workflow.Set{Assignments: []workflow.Assignment{{Path: "artifacts.design", Value: []byte(fmt.Sprintf(`"docs/%d.md"`, time.Now().UnixNano()))}}})
		require.NoError(t, err)
		require.True(t, indexTakenNow(t, dir), "current after exarchos's own move")
	}

	for _, step := range []struct {
		name string
		git  []string
		want map[string]string
	}{
		// A copy of login's head, as a fetch would bring it: bound to this branch.
		{"created", []string{"update-ref", "refs/exarchos/copy", "refs/exarchos/login"}, map[string]string{"login": "ideate", "copy": "ideate"}},
		{"moved away", []string{"update-ref", "refs/exarchos/copy", "refs/exarchos/signup"}, map[string]string{"login": "ideate"}},
		{"moved onto this branch", []string{"update-ref", "refs/exarchos/admin", "refs/exarchos/login"}, map[string]string{"login": "ideate", "admin": "ideate"}},
		{"deleted", []string{"update-ref", "-d", "refs/exarchos/admin"}, map[string]string{"login": "ideate"}},
	} {
		move()
		tick := refsDirTime(t, dir)
		gittest.Git(t, dir, "", step.git...)
		sameTick(t, dir, tick)
		assert.Equal(t, step.want, boundPhases(t, dir), step.name)
	}
	assert.Equal(t, refCommits(t, dir), indexedCommits(t, dir))
}

// TestHookIndexWriterProvesWhatItKeeps (issue 28): git exarchos updates the index after its move
// only when the index summarised the refs just before; a plain `git update-ref`, `git pack-refs`
// or another writer between its stamp and its update, or an index truncated or garbage, leaves
// the index not taken, and the next call reads the refs.
func TestHookIndexWriterProvesWhatItKeeps(t *testing.T) {
	dir, r := loginAndSignup(t, "login")
	index := filepath.Join(dir, ".git", "exarchos-cache", "hooks", "index")
	n := 0
	appendLogin := func() {
		t.Helper()
		n++
		_, err := r.Execute("login", workflow.Set{Assignments: []workflow.Assignment{{Path: "artifacts.design", Value: []byte(fmt.Sprintf(`"docs/%d.md"`, n))}}})
		require.NoError(t, err)
	}
	// between runs f between the writer's move (after its stamp) and its update of the index: the
	// steps of every write (hookrun.Repo.Update), taken one by one.
	between := func(f func()) {
		t.Helper()
		h := hookRuntime(r)
		before := h.BeforeMoves()
		n++
		res, err := r.Store.Append("login", r.Projector(), workflow.NewEvent{Type: "note.added", Data: map[string]int{"n": n}})
		require.NoError(t, err)
		f()
		h.Moved(before, res.Moved)
	}
	check := func(name string, want map[string]string) {
		t.Helper()
		assert.Equal(t, want, boundPhases(t, dir), name)
		assert.Equal(t, refCommits(t, dir), indexedCommits(t, dir), "%s: the refs were read again", name)
		appendLogin()
		assert.True(t, indexTakenNow(t, dir), "%s: the next own move keeps the index again", name)
	}

	tick := refsDirTime(t, dir)
	between(func() {
		gittest.Git(t, dir, "", "update-ref", "refs/exarchos/copy", "refs/exarchos/login")
		tick = refsDirTime(t, dir)
	})
	sameTick(t, dir, tick)
	assert.False(t, indexTakenNow(t, dir), "an update-ref between the stamp and the update")
	check("update-ref in between", map[string]string{"login": "ideate", "copy": "ideate"})

	between(func() { gittest.Git(t, dir, "", "pack-refs", "--all") })
	assert.False(t, indexTakenNow(t, dir), "pack-refs in between")
	check("pack-refs in between", map[string]string{"login": "ideate", "copy": "ideate"})

	// Another writer's move in between (its own index update lost to this one's check).
	between(func() {
		_, err := r.Execute("copy", workflow.Set{Assignments: []workflow.Assignment{{Path: "artifacts.design", Value: []byte(`"docs/copy.md"`)}}})
		require.NoError(t, err)
		require.NoError(t, os.Remove(index)) // its update lost, as when two writers overwrite each other
	})
	assert.False(t, indexTakenNow(t, dir), "a concurrent writer in between")
	check("another writer in between", map[string]string{"login": "ideate", "copy": "ideate"})

	// pack-refs alongside, after the update: the refs' stamp moves.
	gittest.Git(t, dir, "", "pack-refs", "--all")
	assert.False(t, indexTakenNow(t, dir), "pack-refs after")
	check("pack-refs after", map[string]string{"login": "ideate", "copy": "ideate"})

	// The index truncated, garbage, or a line lost: not taken; the next own move does not build
	// on it (the reader reads the refs and keeps them).
	// copy's line is in the head (index) while its ref is loose and was read with its inode, else
	// in the base (index-base): the line is lost from whichever holds it.
	b, err := os.ReadFile(index)
	require.NoError(t, err)
	lineFile, lineBytes := index, b
	if !strings.Contains(string(b), "\ncopy ") {
		lineFile = index + "-base"
		lineBytes, err = os.ReadFile(lineFile)
		require.NoError(t, err)
		require.Contains(t, string(lineBytes), "\ncopy ")
	}
	for name, damaged := range map[string][]byte{
		"truncated":  b[:len(b)/2],
		"empty":      nil,
		"garbage":    []byte("\x00\x01not an index\n"),
		"line lost":  []byte(strings.Replace(string(lineBytes), "\ncopy ", "\nxcopy ", 1)),
		"old format": []byte(strings.Replace(string(b), "exarchos-hook-index 7", "exarchos-hook-index 6", 1)),
	} {
		file := index
		if name == "line lost" {
			file = lineFile
		}
		require.NoError(t, os.WriteFile(file, damaged, 0o644))
		assert.False(t, indexTakenNow(t, dir), name)
		appendLogin()
		assert.False(t, indexTakenNow(t, dir), "%s: an own move does not build on a damaged index", name)
		check(name, map[string]string{"login": "ideate", "copy": "ideate"})
	}
}

// TestHookIndexConcurrentWriters (issue 28): two processes append to different workflows at
// once, a third creates a workflow on the branch by plain git, while hook reads run: every read
// binds the branch's workflow, and the copy from the moment its ref exists; at the end the index
// names exactly the refs' commits.
func TestHookIndexConcurrentWriters(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	exe := gittest.FaultsBinary(t) // without a crash point set, the shipped behaviour
	dir, r := loginAndSignup(t, "login")

	var wg sync.WaitGroup
	done := make(chan struct{})
	errs := make(chan error, 8)
	for _, f := range []string{"login", "signup"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 25 {
				cmd := exec.Command(exe, "event", f, "note.added", "--data", fmt.Sprintf(`{"i":%d}`, i))
				cmd.Dir = dir
				cmd.Env = append(gittest.Env(), "CLAUDECODE=", "CLAUDE_CODE_SESSION_ID=", "CLAUDE_CODE_ENTRYPOINT=", "AI_AGENT=", "CLAUDE_PROJECT_DIR=")
				if out, err := cmd.CombinedOutput(); err != nil {
					errs <- fmt.Errorf("event %s %d: %v: %s", f, i, err, out)
					return
				}
			}
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		time.Sleep(150 * time.Millisecond)
		cmd := exec.Command("git", "update-ref", "refs/exarchos/copy", "refs/exarchos/login")
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			errs <- fmt.Errorf("update-ref: %v: %s", err, out)
		}
	}()
	go func() { wg.Wait(); close(done) }()
	copyRef := filepath.Join(dir, ".git", "refs", "exarchos", "copy")
	reads := 0
	for running := true; running; {
		select {
		case <-done:
			running = false
		default:
		}
		_, statErr := os.Stat(copyRef)
		copyExisted := statErr == nil
		rr, err := app.Open(dir)
		require.NoError(t, err)
		ws, err := hookRuntime(rr).BoundWorkflows()
		require.NoError(t, err)
		got := map[string]bool{}
		for _, w := range ws {
			got[w.Feature] = true
		}
		require.True(t, got["login"], "read %d: the branch's workflow is bound", reads)
		require.False(t, got["signup"], "read %d", reads)
		if copyExisted {
			require.True(t, got["copy"], "read %d: a ref that existed before the read is seen", reads)
		}
		reads++
	}
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	require.Greater(t, reads, 10)
	assert.Equal(t, map[string]string{"login": "ideate", "copy": "ideate"}, boundPhases(t, dir))
	assert.Equal(t, refCommits(t, dir), indexedCommits(t, dir))
	st, _, err := r.State("login")
	require.NoError(t, err)
	assert.Equal(t, int64(26), st.Events, "no append lost")
}

// TestHookIndexKilledBeforeUpdate (issue 28): a process killed between its ref move and the index
// update leaves the index as it was, which is not taken (in the same tick too, by the inode), so
// the moved ref is read.
func TestHookIndexKilledBeforeUpdate(t *testing.T) {
	if !faults.Enabled && testing.Short() {
		t.Skip("builds the faults binary")
	}
	exe := gittest.FaultsBinary(t)
	dir, r := loginAndSignup(t, "signup")
	_, err := r.Execute("login", workflow.Set{Assignments: []workflow.Assignment{{Path: "artifacts.design", Value: []byte(`"docs/a.md"`)}}})
	require.NoError(t, err)
	require.True(t, indexTakenNow(t, dir))
	require.NotContains(t, indexedCommits(t, dir), "spare")
	tick := refsDirTime(t, dir)

	// A plain update-ref first, in the same tick: the reader reads the refs and keeps them.
	gittest.Git(t, dir, "", "update-ref", "refs/exarchos/spare", "refs/exarchos/login")
	sameTick(t, dir, tick)
	require.False(t, indexTakenNow(t, dir))
	assert.Equal(t, map[string]string{"signup": "ideate"}, boundPhases(t, dir))
	before := indexedCommits(t, dir)
	require.Contains(t, before, "spare")

	// Killed after it moved signup's ref and before the index knows.
	tick = refsDirTime(t, dir)
	cmd := exec.Command(exe, "event", "signup", "note.added", "--data", `{"k":1}`)
	cmd.Dir = dir
	cmd.Env = append(gittest.Env(), "CLAUDECODE=", "CLAUDE_CODE_SESSION_ID=", "CLAUDE_CODE_ENTRYPOINT=", "AI_AGENT=", "CLAUDE_PROJECT_DIR=", faults.Env+"=0:index-before-update")
	out, err := cmd.CombinedOutput()
	require.True(t, gittest.KilledBySIGKILL(err), "killed at the crash point: %v %s", err, out)
	moved := gittest.Git(t, dir, "", "rev-parse", "refs/exarchos/signup")
	require.NotEqual(t, before["signup"], moved, "the ref moved")
	sameTick(t, dir, tick)
	assert.False(t, indexTakenNow(t, dir), "the index of before the move is not taken")
	assert.Equal(t, map[string]string{"signup": "ideate"}, boundPhases(t, dir))
	assert.Equal(t, moved, indexedCommits(t, dir)["signup"], "the moved ref was read")
}

// TestHookIndexGoroutinesShareARepo: goroutines moving refs through one app.Repo (as a library user
// may) share the index this process read without a race, and the index stays true.
func TestHookIndexGoroutinesShareARepo(t *testing.T) {
	dir, r := loginAndSignup(t, "login")
	var wg sync.WaitGroup
	for _, f := range []string{"login", "signup"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 10 {
				_, err := r.Execute(f, workflow.Set{Assignments: []workflow.Assignment{{Path: "artifacts.design", Value: []byte(fmt.Sprintf(`"docs/%d.md"`, i))}}})
				assert.NoError(t, err)
			}
		}()
	}
	wg.Wait()
	if indexTakenNow(t, dir) {
		assert.Equal(t, refCommits(t, dir), indexedCommits(t, dir), "a taken index is true")
	}
	assert.Equal(t, map[string]string{"login": "ideate"}, boundPhases(t, dir))
	assert.Equal(t, refCommits(t, dir), indexedCommits(t, dir))
}

// TestHookIndexFollowsSync (issue 41): sync's moves (a teammate's workflow pulled in and
// fast-forwarded, one pruned after its deletion on the remote) reach the index through their
// caller, engine.Follow, as `git exarchos pull` hands them over: the store calls nobody. After a
// pull that creates or fast-forwards, the next session's first call takes the index without
// reading the refs; a prune's fetch (`--prune`) rewrites packed-refs, which the index cannot
// prove it summarises, so the next call reads the refs (as before issue 41). Every step answers
// what git says.
func TestHookIndexFollowsSync(t *testing.T) {
	remote, clones := gittest.NewTeam(t, 2)
	alice, bob := clones[0], clones[1]
	ra, err := app.Open(alice)
	require.NoError(t, err)
	rb, err := app.Open(bob)
	require.NoError(t, err)
	push := func() {
		t.Helper()
		_, err := engine.Follow(ra.Engine, func() (*teamsync.PushResult, error) { return teamsync.Push(ra.Repo, teamsync.PushOptions{}) })
		require.NoError(t, err)
	}
	pull := func() *teamsync.PullResult {
		t.Helper()
		res, err := engine.Follow(rb.Engine, func() (*teamsync.PullResult, error) {
			return teamsync.Pull(rb.Repo, teamsync.PullOptions{Prune: true})
		})
		require.NoError(t, err)
		return res
	}
	_, err = ra.CreateWorkflow(workflow.Init{Feature: "login", Type: "feature", Branch: "login"})
	require.NoError(t, err)
	push()
	_, err = rb.CreateWorkflow(workflow.Init{Feature: "signup", Type: "feature", Branch: "login"})
	require.NoError(t, err)
	gittest.Git(t, bob, "", "switch", "-q", "-c", "login")
	require.Equal(t, map[string]string{"signup": "ideate"}, boundPhases(t, bob))

	steps := []struct {
		name   string
		move   func()
		action string
		kept   bool // the index is taken as the pull left it
		want   map[string]string
	}{
		{"created", func() {}, gitstore.Created, true, map[string]string{"login": "ideate", "signup": "ideate"}},
		{"fast-forward", func() {
			_, err := ra.Execute("login", workflow.Set{Assignments: []workflow.Assignment{{Path: "artifacts.design", Value: []byte(`"docs/d.md"`)}}})
			require.NoError(t, err)
			push()
		}, gitstore.FastForward, true, map[string]string{"login": "ideate", "signup": "ideate"}},
		{"pruned", func() {
			gittest.Git(t, remote, "", "update-ref", "-d", "refs/exarchos/login")
		}, teamsync.Pruned, false, map[string]string{"signup": "ideate"}},
	}
	for _, s := range steps {
		s.move()
		res := pull()
		require.Len(t, res.Workflows, 1, s.name)
		require.Equal(t, s.action, res.Workflows[0].Action, s.name)
		assert.Equal(t, s.kept, indexTakenNow(t, bob), "%s: the index follows sync's move", s.name)
		if s.kept {
			assert.Equal(t, refCommits(t, bob), indexedCommits(t, bob), s.name)
		}
		assert.Equal(t, s.want, boundPhases(t, bob), s.name)
		assert.Equal(t, refCommits(t, bob), indexedCommits(t, bob), "%s: after the call", s.name)
		assert.Empty(t, hookRuntime(rb).CheckControls(bob), "%s: no hold for sync's own move", s.name)
	}
}

// TestHookIndexUnreportedMoveIsReadAgain (issue 41): a write whose move nobody hands to the hook
// (a store call made directly, a caller that forgot Moved) leaves the index's stamp behind, even
// in the same clock tick: the next call reads the refs and answers what git says, never the
// index's old answer; and the ref-write log still tells the move for git exarchos's own (no hold).
func TestHookIndexUnreportedMoveIsReadAgain(t *testing.T) {
	dir, r := newRepo(t, "main")
	for _, f := range []string{"login", "signup"} {
		_, err := r.CreateWorkflow(workflow.Init{Feature: f, Type: "feature", Branch: "login"})
		require.NoError(t, err)
	}
	gittest.Git(t, dir, "", "switch", "-q", "-c", "login")
	require.Equal(t, map[string]string{"login": "ideate", "signup": "ideate"}, boundPhases(t, dir))
	require.True(t, indexTakenNow(t, dir))

	tick := refsDirTime(t, dir)
	_, err := r.Store.Append("login", r.Projector(), workflow.NewEvent{Type: "note.added", Data: map[string]int{"i": 1}})
	require.NoError(t, err)
	sameTick(t, dir, tick)
	assert.False(t, indexTakenNow(t, dir), "an unreported append")
	assert.Equal(t, map[string]string{"login": "ideate", "signup": "ideate"}, boundPhases(t, dir))
	assert.Equal(t, refCommits(t, dir), indexedCommits(t, dir), "the refs were read again")

	h, ok, err := r.Store.Head("signup")
	require.NoError(t, err)
	require.True(t, ok)
	hash, _ := gitrepo.ParseHash([]byte(h))
	tick = refsDirTime(t, dir)
	deleted, err := r.Store.DeleteIfUnchanged("signup", hash)
	require.NoError(t, err)
	require.NotNil(t, deleted)
	sameTick(t, dir, tick)
	assert.False(t, indexTakenNow(t, dir), "an unreported deletion")
	assert.Equal(t, map[string]string{"login": "ideate"}, boundPhases(t, dir))
	assert.Equal(t, refCommits(t, dir), indexedCommits(t, dir), "the refs were read again")
	assert.Empty(t, hookRuntime(r).CheckControls(dir), "git exarchos's own moves, reported or not, hold nothing")
}

// TestHookIndexWriterSeesAnotherWriterThroughTheLog: the stamp is taken before the whole write, so
// more may move beside it. Another git exarchos process's move of another ref in that window,
// which left the ref's file with the inode the index names (a ref replaced twice, its second file
// given the first's inode back: emulated by a hard link kept to the first file, put back and
// written in place), is seen through the ref-write log: the writer leaves the index as it was,
// and the next call reads the refs and answers what git says.
func TestHookIndexWriterSeesAnotherWriterThroughTheLog(t *testing.T) {
	dir, r := loginAndSignup(t, "login")
	signup := filepath.Join(dir, ".git", "refs", "exarchos", "signup")
	first := filepath.Join(dir, ".git", "signup-first")
	require.NoError(t, os.Link(signup, first))
	was := refCommits(t, dir)["signup"]

	pre := r.Hook().BeforeMoves()
	res, err := r.Store.Append("login", r.Projector(), workflow.NewEvent{Type: "note.added"})
	require.NoError(t, err)
	other, err := app.Open(dir) // another process
	require.NoError(t, err)
	_, err = other.Append("signup", workflow.NewEvent{Type: "note.added"})
	require.NoError(t, err)
	now := refCommits(t, dir)["signup"]
	require.NotEqual(t, was, now)
	require.NoError(t, os.Rename(first, signup))
	require.NoError(t, os.WriteFile(signup, []byte(now+"\n"), 0o644)) // in place: the first inode
	r.Hook().Moved(pre, res.Moved)

	assert.False(t, indexTakenNow(t, dir), "the index is not taken: another writer moved a ref in the window")
	assert.Equal(t, map[string]string{"login": "ideate"}, boundPhases(t, dir))
	assert.Equal(t, refCommits(t, dir), indexedCommits(t, dir), "the refs were read again")
	assert.Equal(t, now, indexedCommits(t, dir)["signup"])
}
