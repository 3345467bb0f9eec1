package project

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/exarchos/git-exarchos/gitrepo"
	"github.com/exarchos/git-exarchos/internal/gittest"
)

// A clean checkout left by a process killed while it used it (SIGKILL of `task done` mid-gate) is
// removed by the next clean checkout of the repository; one whose process still runs, and one of
// another repository, are left alone.
func TestCleanCheckoutRemovesWhatADeadProcessLeft(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("whether a process is dead is not read on Windows: nothing is swept")
	}
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	dir, other := gittest.NewRepo(t, "sha1"), gittest.NewRepo(t, "sha1")
	done := exec.Command("true")
	if err := done.Run(); err != nil {
		t.Fatal(err)
	}
	deadPid := done.Process.Pid
	leave := func(repo string, pid int, name string) string {
		p := filepath.Join(tmp, fmt.Sprintf("%s%d-%s", cleanCheckoutPrefix, pid, name))
		gittest.Git(t, repo, "", "worktree", "add", "--detach", "--quiet", p, "HEAD")
		return p
	}
	dead := leave(dir, deadPid, "dead")
	live := leave(dir, os.Getppid(), "live")
	foreign := leave(other, deadPid, "foreign")

	l, err := gitrepo.Discover(dir)
	if err != nil {
		t.Fatal(err)
	}
	co, finish, err := cleanCheckout(l, "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(filepath.Base(co), fmt.Sprintf("%s%d-", cleanCheckoutPrefix, os.Getpid())) {
		t.Errorf("a clean checkout's name carries its process: %s", co)
	}
	finish()
	list := gittest.Git(t, dir, "", "worktree", "list")
	if _, err := os.Stat(dead); err == nil || strings.Contains(list, dead) {
		t.Errorf("the dead process's checkout is still there:\n%s", list)
	}
	if _, err := os.Stat(live); err != nil || !strings.Contains(list, live) {
		t.Errorf("a live process's checkout was removed:\n%s", list)
	}
	if _, err := os.Stat(foreign); err != nil {
		t.Errorf("another repository's checkout was removed: %v", err)
	}
	if strings.Contains(list, co) {
		t.Errorf("the checkout itself is still registered:\n%s", list)
	}
}

// Clean checkouts made at once in one repository (two `task done` of one workflow): every one is
// made, though `git worktree add` fails when it reads another worktree's files while that one is
// being added, and every one is removed when done.
func TestCleanCheckoutsAtOnce(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	dir := gittest.NewRepo(t, "sha1")
	l, err := gitrepo.Discover(dir)
	if err != nil {
		t.Fatal(err)
	}
	const n = 8
	errs := make(chan error, n*4)
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 4 {
				co, finish, err := cleanCheckout(l, "HEAD")
				if err != nil {
					errs <- err
					continue
				}
				if _, err := os.Stat(filepath.Join(co, ".git")); err != nil {
					errs <- err
				}
				finish()
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if out := gittest.Git(t, dir, "", "worktree", "list"); strings.Contains(out, cleanCheckoutPrefix) {
		t.Errorf("checkouts left registered:\n%s", out)
	}
}
