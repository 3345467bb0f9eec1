package saga_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/exarchos/git-exarchos/app"
	"github.com/exarchos/git-exarchos/gitstore"
	"github.com/exarchos/git-exarchos/internal/apptest"
	"github.com/exarchos/git-exarchos/internal/faults"
	"github.com/exarchos/git-exarchos/internal/gittest"
	"github.com/exarchos/git-exarchos/saga"
	"github.com/exarchos/git-exarchos/workflow"
)

// cancelProcess starts `git-exarchos cancel login` (the faults build) in dir, crash point set, in
// a process group of its own (see waitGroupGone).
func cancelProcess(t testing.TB, dir, point string) *exec.Cmd {
	cmd := exec.Command(gittest.FaultsBinary(t), "cancel", "login", "--reason", "crash test")
	cmd.Dir = dir
	cmd.Env = append(gittest.Env(), faults.Env+"="+point)
	ownGroup(cmd)
	return cmd
}

// killedRun runs a cancel process to its end (its crash point's SIGKILL), then waits for the git
// processes it left running.
func killedRun(t testing.TB, dir, point string) ([]byte, error) {
	cmd := cancelProcess(t, dir, point)
	out, err := cmd.CombinedOutput()
	if cmd.Process != nil {
		waitGroupGone(t, cmd.Process.Pid)
	}
	return out, err
}

// finishAndCheck reruns cancel to its end and checks that it recorded every step once, lost no
// work, and closed the pull request once.
func finishAndCheck(t *testing.T, dir string, r *app.Repo, want map[string]work, gh interface {
	Comments(int) []string
}, pr int) {
	t.Helper()
	res, err := saga.Cancel(r.Saga(), saga.CancelOptions{Feature: "login"})
	if err != nil || !res.Cancelled() {
		t.Fatalf("rerun: %+v %v", res, err)
	}
	checkCleaned(t, dir, r)
	checkRecovered(t, dir, r, want)
	if c := gh.Comments(pr); len(c) != 1 {
		t.Fatalf("pull request %d commented %d times", pr, len(c))
	}
	if out, err := filepath.Glob(filepath.Join(dir, ".worktrees", "login", ".*.exarchos-removing")); err != nil || len(out) != 0 {
		t.Fatalf("directories set aside were left: %v %v", out, err)
	}
}

// TestCancelSIGKILLAtEveryStep kills a real cancel process (the faults build) at every point of
// the saga: after the request; after each step was performed on git but before it was recorded;
// after it was recorded; and inside each worktree removal, once the directory is set aside and
// once half of it is deleted. Then cancel runs again: it must finish, record each step once,
// and every byte of work must come back with `rescue restore`.
func TestCancelSIGKILLAtEveryStep(t *testing.T) {
	if testing.Short() {
		t.Skip("many processes")
	}
	gittest.FaultsBinary(t)
	// t1 (dirty, on an unmerged commit), t2 (unmerged commits) and the PR: 9 steps, the
	// worktree removals are steps 3 (t2) and 7 (t1).
	points := []string{"0"}
	for n := 1; n <= 9; n++ {
		points = append(points, fmt.Sprintf("%d:act", n), fmt.Sprint(n))
	}
	points = append(points, "3:moved", "3:half", "7:moved", "7:half")
	var prs []int
	for i := range points {
		prs = append(prs, 100+i)
	}
	gh := fakeGitHub(t, prs...)
	for i, point := range points {
		t.Run(strings.ReplaceAll(point, ":", "-"), func(t *testing.T) {
			t.Parallel()
			dir, r := apptest.NewSagaRepo(t)
			want := scenarioWithPR(t, r, prs[i], "t1", "t2")
			out, err := killedRun(t, dir, point)
			if !gittest.KilledBySIGKILL(err) {
				t.Fatalf("the cancel process was not killed at %s: %v\n%s", point, err, out)
			}
			if st, _, err := r.State("login"); err != nil || st.Phase != "cancelling" {
				t.Fatalf("killed at %s: %v, phase %s", point, err, st.Phase)
			}
			finishAndCheck(t, dir, r, want, gh, prs[i])
		})
	}
}

// TestCancelSIGKILLAfterRandomDelays kills cancel processes at random instants (inside git
// commands, renames and deletions as much as between steps), up to three times in a row, then
// lets one finish. The seed is logged so that a failure can be replayed.
func TestCancelSIGKILLAfterRandomDelays(t *testing.T) {
	if testing.Short() {
		t.Skip("many processes")
	}
	gittest.FaultsBinary(t)
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("EXARCHOS_CRASH_SEED"); s != "" {
		fmt.Sscan(s, &seed)
	}
	t.Logf("seed %d (EXARCHOS_CRASH_SEED replays it)", seed)
	const runs = 8
	var prs []int
	for i := range runs {
		prs = append(prs, 200+i)
	}
	gh := fakeGitHub(t, prs...)
	for i := range runs {
		rng := rand.New(rand.NewPCG(seed, uint64(i)))
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			t.Parallel()
			dir, r := apptest.NewSagaRepo(t)
			want := scenarioWithPR(t, r, prs[i], "t1", "t2")
			for kill := range 1 + rng.IntN(3) {
				cmd := cancelProcess(t, dir, "")
				require.NoError(t, cmd.Start())
				delay := time.Duration(rng.Int64N(int64(1500 * time.Millisecond)))
				timer := time.AfterFunc(delay, func() { _ = cmd.Process.Kill() })
				err := cmd.Wait()
				timer.Stop()
				waitGroupGone(t, cmd.Process.Pid)
				t.Logf("kill %d after %s: %v", kill, delay, err)
				// A kill inside the event store's own ref update leaves its lock file, naming the
				// dead process: the next writer removes it (gitrepo's removeIfStale), so it is left.
			}
			finishAndCheck(t, dir, r, want, gh, prs[i])
		})
	}
}

// TestCancelRerunAfterHalfDeletedWorktree: a worktree half deleted after its preserve step (a
// `git worktree remove --force` killed midway, its .git file among the casualties) while the
// main checkout is dirty. The rerun must not snapshot the main checkout as the task's, nor let
// the damaged copy replace the complete one: restore brings back every byte.
func TestCancelRerunAfterHalfDeletedWorktree(t *testing.T) {
	if testing.Short() {
		t.Skip("many processes")
	}
	gh := fakeGitHub(t, 9)
	dir, r := apptest.NewSagaRepo(t)
	want := scenarioWithPR(t, r, 9, "t1")
	// Steps: close the PR (1), preserve worktree t1 (2), remove it (3), ...: killed after 2.
	if out, err := killedRun(t, dir, "2"); !gittest.KilledBySIGKILL(err) {
		t.Fatalf("not killed: %v\n%s", err, out)
	}
	t1 := filepath.Join(dir, ".worktrees", "login", "t1")
	for _, name := range []string{".git", "src", "notes"} {
		require.NoError(t, os.RemoveAll(filepath.Join(t1, name)))
	}
	gittest.WriteFile(t, dir, "README", "the main checkout's own edit\n")
	gittest.WriteFile(t, dir, "main-untracked.txt", "main's\n")
	mainBefore := mainCheckout(t, dir)
	finishAndCheck(t, dir, r, want, gh, 9)
	if diff := mainCheckout(t, dir).equal(mainBefore); diff != "" {
		t.Fatalf("the main checkout changed: %s", diff)
	}
	list, err := saga.RescueList(r.Saga(), saga.RescueListOptions{Feature: "login"})
	require.NoError(t, err)
	for _, x := range list.Rescues {
		for _, c := range x.Changed {
			if strings.Contains(c, "main-untracked.txt") {
				t.Fatalf("the main checkout was rescued as %s: %v", x.Task, x.Changed)
			}
		}
	}
}

// mainCheckout captures the main checkout alone (task worktrees live under .worktrees/).
func mainCheckout(t testing.TB, dir string) work {
	w := capture(t, dir)
	for name := range w.files {
		if strings.HasPrefix(name, ".worktrees"+string(filepath.Separator)) {
			delete(w.files, name)
		}
	}
	return w
}

// TestCancelWorktreeWithoutGitFileRescuesItsOwnWork: the task worktree's .git file is gone
// before the cancel starts and the main checkout is dirty: the task's files are preserved (git
// is pointed at the worktree's administrative directory), and nothing of the main checkout.
func TestCancelWorktreeWithoutGitFileRescuesItsOwnWork(t *testing.T) {
	fakeGitHub(t, 9)
	dir, r := apptest.NewSagaRepo(t)
	want := scenarioWithPR(t, r, 9, "t1")
	t1 := filepath.Join(dir, ".worktrees", "login", "t1")
	require.NoError(t, os.Remove(filepath.Join(t1, ".git")))
	gittest.WriteFile(t, dir, "main-untracked.txt", "main's\n")
	_, err := saga.Cancel(r.Saga(), saga.CancelOptions{Feature: "login"})
	require.NoError(t, err)
	checkCleaned(t, dir, r)
	checkRecovered(t, dir, r, want)
	if !fileContains(t, filepath.Join(dir, "main-untracked.txt"), "main's") {
		t.Fatal("the main checkout's file changed")
	}
}

// TestRescueNeverReplacedWithLess: a second snapshot of the same worktree that lacks a file the
// first had is kept beside it (the first stays what restore brings back); one that holds more
// goes on top. Every version is listed and restorable.
func TestRescueNeverReplacedWithLess(t *testing.T) {
	dir, r := apptest.NewSagaRepo(t)
	w := apptest.StartWorktree(t, r, "t1")
	gittest.WriteFile(t, w, "a.txt", "a\n")
	gittest.WriteFile(t, w, "b.txt", "b\n")
	full := capture(t, w)
	loc := r.Location()
	spec := saga.RescueSpec{Feature: "login", Task: "t1", Branch: "main--t1", Path: w}
	if _, _, err := saga.PreserveWorktree(loc, spec); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(w, "b.txt")); err != nil {
		t.Fatal(err)
	}
	less := capture(t, w)
	p, _, err := saga.PreserveWorktree(loc, spec)
	if err != nil || !p.Written || !p.Beside {
		t.Fatalf("%+v %v", p, err)
	}
	// Again with nothing changed: nothing written.
	if p, _, err := saga.PreserveWorktree(loc, spec); err != nil || p.Written {
		t.Fatalf("rerun wrote %+v %v", p, err)
	}
	gittest.WriteFile(t, w, "b.txt", "b\n")
	gittest.WriteFile(t, w, "c.txt", "c\n")
	more := capture(t, w)
	if p, _, err := saga.PreserveWorktree(loc, spec); err != nil || !p.Written || p.Beside {
		t.Fatalf("%+v %v", p, err)
	}
	list, err := saga.RescueList(r.Saga(), saga.RescueListOptions{Feature: "login"})
	if err != nil || len(list.Rescues) != 1 || len(list.Rescues[0].Earlier) != 2 {
		t.Fatalf("%+v %v", list, err)
	}
	restore := func(version int) work {
		path := filepath.Join(t.TempDir(), fmt.Sprint("v", version))
		_, err := saga.RescueRestore(r.Saga(), saga.RescueRestoreOptions{Feature: "login", Task: "t1", Path: path, Version: version})
		require.NoError(t, err, "restore version %d", version)
		got := capture(t, path)
		gittest.Git(t, dir, "", "worktree", "remove", "--force", path)
		return got
	}
	if diff := restore(0).equal(more); diff != "" {
		t.Errorf("version 0: %s", diff)
	}
	found := map[string]bool{}
	for v := 1; v <= 2; v++ {
		got := restore(v)
		found["full"] = found["full"] || got.equal(full) == ""
		found["less"] = found["less"] || got.equal(less) == ""
	}
	if !found["full"] || !found["less"] {
		t.Errorf("earlier versions not restorable: %v", found)
	}
	if _, err := saga.RescueRestore(r.Saga(), saga.RescueRestoreOptions{Feature: "login", Task: "t1", Path: filepath.Join(t.TempDir(), "x"), Version: 3}); !errors.Is(err, gitstore.ErrNotFound) {
		t.Errorf("version 3: %v", err)
	}
}

// TestShippedBuildIgnoresFaultVariable: this test binary, like the shipped one, is built without
// the exarchos_faults tag, so the crash variable must do nothing.
func TestShippedBuildIgnoresFaultVariable(t *testing.T) {
	if faults.Enabled {
		t.Skip("built with -tags exarchos_faults")
	}
	fakeGitHub(t, 9)
	dir, r := apptest.NewSagaRepo(t)
	want := scenarioWithPR(t, r, 9, "t1")
	for _, point := range []string{"0", "1", "2:act", "3:moved", "3:half"} {
		t.Setenv(faults.Env, point)
		_, err := saga.Cancel(r.Saga(), saga.CancelOptions{Feature: "login"})
		require.NoError(t, err)
	}
	checkCleaned(t, dir, r)
	checkRecovered(t, dir, r, want)
	_ = workflow.OutcomeDone
}
