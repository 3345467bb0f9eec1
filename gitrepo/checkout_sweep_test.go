package gitrepo

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

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

	l, err := Discover(dir)
	if err != nil {
		t.Fatal(err)
	}
	co, finish, err := l.CleanCheckout("HEAD")
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
