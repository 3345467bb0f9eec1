//go:build linux

package fsmonitor

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// gitRepo is a repository with one commit and workflow ref refs/exarchos/login at it.
func gitRepo(t *testing.T) (root, head string) {
	t.Helper()
	root = t.TempDir()
	for _, c := range []string{
		"git init -q -b main .",
		"echo a > a.txt && git add a.txt && git -c user.name=t -c user.email=t@t commit -q -m one",
		"git update-ref refs/exarchos/login HEAD",
	} {
		sh(t, "cd "+root+" && "+c)
	}
	out, err := exec.Command("git", "-C", root, "rev-parse", "HEAD").Output()
	require.NoError(t, err)
	return root, strings.TrimSpace(string(out))
}

func refsToken(t *testing.T, root string) string {
	t.Helper()
	tok, err := RefsToken(root, filepath.Join(root, ".git"))
	require.NoError(t, err)
	return tok
}

// TestRefsTokenCountsEveryRefChange: every way a workflow ref changes, made by another process
// just before the token is read, changes the refs token; the tree's token (a kept `git status`)
// stays; what git writes elsewhere in .git (other refs, the index) leaves the refs token alone.
func TestRefsTokenCountsEveryRefChange(t *testing.T) {
	root, head := gitRepo(t)
	serve(t, root, Options{Rescan: -1})
	tree := token(t, root)
	in := "cd " + root + " && "
	cases := []struct{ name, script string }{
		{"git update-ref", "git update-ref refs/exarchos/other HEAD"},
		{"rewritten in place, time put back", "f=.git/refs/exarchos/other; t=$(stat -c %y $f); printf '%s\\n' " + head + " | dd of=$f conv=notrunc status=none; touch -d \"$t\" $f"},
		{"a new nested path", "git update-ref refs/exarchos/team/deep/x HEAD"},
		{"rewritten in place in the new directory", "printf '%s\\n' " + head + " | dd of=.git/refs/exarchos/team/deep/x conv=notrunc status=none"},
		{"a second ref in the new directory", "git update-ref refs/exarchos/team/deep/y HEAD"},
		{"git pack-refs --all", "git pack-refs --all"},
		{"packed-refs rewritten in place", "dd if=.git/packed-refs of=.git/packed-refs conv=notrunc status=none"},
		{"deleted", "git update-ref -d refs/exarchos/login"},
		{"refs/exarchos removed and made again", "rm -rf .git/refs/exarchos && mkdir .git/refs/exarchos && echo " + head + " > .git/refs/exarchos/back"},
		{"rewritten in place after it was made again", "printf '%s\\n' " + head + " | dd of=.git/refs/exarchos/back conv=notrunc status=none"},
	}
	prev := refsToken(t, root)
	for _, c := range cases {
		sh(t, in+c.script)
		now := refsToken(t, root)
		require.NotEqual(t, prev, now, "%s: the refs token did not change", c.name)
		prev = now
	}
	require.Equal(t, tree, token(t, root), "a ref's change is not the tree's")

	for _, c := range []string{"git update-ref refs/heads/side HEAD", "git update-ref refs/tags/v1 HEAD", "echo b >> a.txt && git add a.txt"} {
		sh(t, in+c)
		require.Equal(t, prev, refsToken(t, root), "%s is not a workflow ref's change", c)
	}

	_, err := RefsToken(root, t.TempDir())
	require.ErrorIs(t, err, ErrRefsNotWatched, "another repository's refs are not these")
}

// TestRefsTokenOfALinkedWorktree: the monitor of a linked worktree watches the common git dir's refs.
func TestRefsTokenOfALinkedWorktree(t *testing.T) {
	root, _ := gitRepo(t)
	wt := filepath.Join(t.TempDir(), "wt")
	sh(t, "cd "+root+" && git worktree add -q --detach "+wt)
	serve(t, wt, Options{Rescan: -1})
	tok, err := RefsToken(wt, filepath.Join(root, ".git"))
	require.NoError(t, err)
	sh(t, "cd "+wt+" && git update-ref refs/exarchos/from-wt HEAD")
	again, err := RefsToken(wt, filepath.Join(root, ".git"))
	require.NoError(t, err)
	require.NotEqual(t, tok, again)
}

// monitorProcess runs the test binary as the monitor of root (TestMain) and waits until it answers.
func monitorProcess(t *testing.T, root string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), serveEnv+"="+root)
	cmd.Stderr = os.Stderr
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _, _ = cmd.Process.Wait() })
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if _, err := Token(root); err == nil {
			return cmd
		}
		require.True(t, time.Now().Before(deadline), "the monitor never answered")
	}
}

// TestRefsTokenOfAnotherMonitor: a monitor killed answers nothing, and the one started after it
// answers another token though it counted as many changes (none): its silence while none ran
// proves nothing.
func TestRefsTokenOfAnotherMonitor(t *testing.T) {
	root, _ := gitRepo(t)
	first := monitorProcess(t, root)
	before := refsToken(t, root)
	require.NoError(t, first.Process.Kill())
	_, _ = first.Process.Wait()
	_, err := RefsToken(root, filepath.Join(root, ".git"))
	require.ErrorIs(t, err, ErrNotRunning)
	monitorProcess(t, root)
	require.NotEqual(t, before, refsToken(t, root), "a restarted monitor's token is another")
}

// TestRefsTokenAfterAnOverflow: a ref rewritten in place while the queue overflowed (its event
// lost) changes the refs token: an overflow counts as a change of the refs too.
func TestRefsTokenAfterAnOverflow(t *testing.T) {
	root, head := gitRepo(t)
	cmd := monitorProcess(t, root)
	before := refsToken(t, root)
	queued := 16384
	if b, err := os.ReadFile("/proc/sys/fs/inotify/max_queued_events"); err == nil {
		fmt.Sscan(string(b), &queued)
	}
	if queued > 100000 {
		t.Skipf("max_queued_events is %d: too many files to overflow it here", queued)
	}
	require.NoError(t, cmd.Process.Signal(syscall.SIGSTOP))
	defer cmd.Process.Signal(syscall.SIGCONT)
	for f := 0; f < queued/2+1000; f++ {
		require.NoError(t, os.WriteFile(filepath.Join(root, fmt.Sprintf("f%d", f)), nil, 0o644))
	}
	f, err := os.OpenFile(filepath.Join(root, ".git", "refs", "exarchos", "login"), os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteAt([]byte(head+"\n"), 0)
	require.NoError(t, err)
	require.NoError(t, f.Close())
	require.NoError(t, cmd.Process.Signal(syscall.SIGCONT))
	require.NotEqual(t, before, refsToken(t, root), "the overflow is a change of the refs")
}
