//go:build linux

package fsmonitor

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// start runs a monitor of a fresh tree (with a .git directory, as a repository has) until the test ends.
func start(t *testing.T, o Options) (root string, done <-chan error) {
	t.Helper()
	root = t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(root, ".git", "refs"), 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(root, "src", "pkg"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, "src", "pkg", "a.go"), []byte("package pkg\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(root, "README.md"), []byte("# x\n"), 0o644))
	return root, serve(t, root, o)
}

func serve(t *testing.T, root string, o Options) <-chan error {
	t.Helper()
	ready := make(chan struct{})
	o.Ready = func() { close(ready) }
	errc := make(chan error, 1)
	go func() { errc <- Serve(root, o) }()
	select {
	case <-ready:
	case err := <-errc:
		t.Fatalf("monitor ended before it was ready: %v", err)
	}
	t.Cleanup(func() {
		_ = os.RemoveAll(root) // removing the root ends the monitor
		select {
		case <-errc:
		case <-time.After(5 * time.Second):
			t.Errorf("monitor of %s still running after its root was removed", root)
		}
	})
	return errc
}

func token(t *testing.T, root string) string {
	t.Helper()
	tok, err := Token(root)
	require.NoError(t, err)
	return tok
}

func sh(t *testing.T, script string) {
	t.Helper()
	out, err := exec.Command("sh", "-c", script).CombinedOutput()
	require.NoError(t, err, "%s\n%s", script, out)
}

// TestTokenChangesWithEveryKindOfChange is the monitor's guarantee: a change made before a token is
// read is counted in it, whatever made it. Each change runs in its own process (as a Bash tool call
// does), and the token is read right after it exits, with no wait.
func TestTokenChangesWithEveryKindOfChange(t *testing.T) {
	root, _ := start(t, Options{Rescan: -1})
	cases := []struct{ name, script string }{
		{"append in place", `echo x >> src/pkg/a.go`},
		{"truncate in place", `: > src/pkg/a.go`},
		{"sed -i (a new file renamed over)", `sed -i 's/^/y/' README.md`},
		{"new file", `echo new > b.go`},
		{"delete", `rm b.go`},
		{"chmod", `chmod +x README.md`},
		{"touch", `touch README.md`},
		{"symlink", `ln -s README.md link.md`},
		{"hard link inside", `ln README.md hard.md`},
		{"mkdir -p and a file deep in it", `mkdir -p new/a/b/c && echo z > new/a/b/c/f.go`},
		{"write in the directory created before", `echo again >> new/a/b/c/f.go`},
		{"new file in a fresh subdirectory of a fresh directory", `mkdir -p new/x/y && echo w > new/x/y/g.go`},
		{"rename a directory", `mv new/a new/renamed`},
		{"write under the renamed directory", `echo moved >> new/renamed/b/c/f.go`},
		{"mkdir under the renamed directory, then a file", `mkdir new/renamed/b/d && echo q > new/renamed/b/d/h.go`},
		{"write there again", `echo q2 >> new/renamed/b/d/h.go`},
		{"move a directory in from outside", `mkdir -p ../outside-$$/deep && echo o > ../outside-$$/deep/o.go && mv ../outside-$$ moved-in`},
		{"write inside the directory moved in", `echo o2 >> moved-in/deep/o.go`},
		{"move a directory out", `mv moved-in ../gone-$$ && rm -rf ../gone-$$`},
		{"remove a tree", `rm -rf new`},
		{"python writes", `python3 -c "open('p.py','w').write('x')"`},
		{"dd into a file", `dd if=/dev/zero of=src/pkg/a.go bs=1 count=3 conv=notrunc 2>/dev/null`},
		{"empty directory", `mkdir empty`},
		{"remove the empty directory", `rmdir empty`},
	}
	for _, c := range cases {
		before := token(t, root)
		sh(t, "cd "+root+" && "+c.script)
		after := token(t, root)
		require.NotEqual(t, before, after, "%s: the token did not change", c.name)
	}
	// And nothing changed: the token stays.
	require.Equal(t, token(t, root), token(t, root))
}

// TestRepositoryFilesAreNotChanges: git writes its index, objects and refs under .git on every
// command, and reads the tree; neither is a change of the tree.
func TestRepositoryFilesAreNotChanges(t *testing.T) {
	root, _ := start(t, Options{Rescan: -1})
	before := token(t, root)
	sh(t, "cd "+root+" && echo i > .git/index && mkdir -p .git/objects/ab && echo o > .git/objects/ab/cd && cat README.md src/pkg/a.go >/dev/null && ls -R >/dev/null")
	require.Equal(t, before, token(t, root))
}

// TestWritesInotifyMissesAreFoundByTheRescan: a write through a shared memory map reports no event,
// nor does a write through a hard link that lives outside the tree; the timed rescan counts both.
func TestWritesInotifyMissesAreFoundByTheRescan(t *testing.T) {
	root, _ := start(t, Options{Rescan: 20 * time.Millisecond})
	outside := filepath.Join(t.TempDir(), "link.go")
	require.NoError(t, os.Link(filepath.Join(root, "src", "pkg", "a.go"), outside))
	waitChange := func(what string, change func()) {
		t.Helper()
		before := token(t, root)
		change()
		deadline := time.Now().Add(5 * time.Second)
		for token(t, root) == before {
			if time.Now().After(deadline) {
				t.Fatalf("%s: the token did not change within 5 s", what)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	waitChange("write through a hard link outside the tree", func() {
		require.NoError(t, os.WriteFile(outside, []byte("package pkg // changed elsewhere\n"), 0o644))
	})
	// The file is opened and mapped first: closing a file opened for writing is an event of its own.
	f, err := os.OpenFile(filepath.Join(root, "README.md"), os.O_RDWR, 0)
	require.NoError(t, err)
	defer f.Close()
	b, err := syscall.Mmap(int(f.Fd()), 0, 4, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED)
	require.NoError(t, err)
	defer syscall.Munmap(b)

	waitChange("write through a shared memory map", func() { copy(b, "!!!!") })
}

// TestPausedRescanLosesNothing: when nobody asked for a while the timed rescan pauses, and the
// next question rescans before it is answered, so a write inotify did not report meanwhile is in
// the very first token read after it.
func TestPausedRescanLosesNothing(t *testing.T) {
	root, _ := start(t, Options{Rescan: 10 * time.Millisecond, Pause: time.Nanosecond})
	outside := filepath.Join(t.TempDir(), "link.go")
	require.NoError(t, os.Link(filepath.Join(root, "src", "pkg", "a.go"), outside))
	before := token(t, root)
	time.Sleep(100 * time.Millisecond) // longer than two rescan periods: the last digest is stale
	require.NoError(t, os.WriteFile(outside, []byte("package pkg // while paused\n"), 0o644))
	require.NotEqual(t, before, token(t, root), "the write made while the rescan paused")
	require.Equal(t, token(t, root), token(t, root))
}

// TestManyWritersAndReaders: callers reading tokens while processes change the tree; a token read
// after a writer finished always differs from the one read before it started.
func TestManyWritersAndReaders(t *testing.T) {
	root, _ := start(t, Options{Rescan: -1})
	errc := make(chan error, 4)
	for w := range 4 {
		go func() {
			for i := range 50 {
				before, err := Token(root)
				if err != nil {
					errc <- err
					return
				}
				p := filepath.Join(root, fmt.Sprintf("w%d", w), fmt.Sprintf("d%d", i%5), "f.txt")
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					errc <- err
					return
				}
				if err := os.WriteFile(p, []byte{byte(i)}, 0o644); err != nil {
					errc <- err
					return
				}
				after, err := Token(root)
				if err != nil {
					errc <- err
					return
				}
				if before == after {
					errc <- fmt.Errorf("writer %d, write %d: token unchanged (%s)", w, i, after)
					return
				}
			}
			errc <- nil
		}()
	}
	for range 4 {
		require.NoError(t, <-errc)
	}
}

// TestMonitorLifetime: one monitor per tree; none answers when none runs; a monitor ends when its
// root is removed or moved, and when nobody asked for its idle time.
func TestMonitorLifetime(t *testing.T) {
	_, err := Token(t.TempDir())
	require.ErrorIs(t, err, ErrNotRunning)

	root := t.TempDir()
	ready := make(chan struct{})
	done := make(chan error, 1)
	go func() { done <- Serve(root, Options{Rescan: -1, Ready: func() { close(ready) }}) }()
	<-ready
	require.ErrorIs(t, Serve(root, Options{}), ErrAlreadyRunning)

	tok := token(t, root)
	other := root + "-moved"
	require.NoError(t, os.Rename(root, other))
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(5 * time.Second):
		t.Fatal("monitor still running after its root was moved away")
	}
	require.NoError(t, os.Rename(other, root))
	_, err = Token(root)
	require.ErrorIs(t, err, ErrNotRunning, "a moved-away monitor must not answer for %s (last token %s)", root, tok)

	// A file held open under the removed root delays inotify's report of the removal; the monitor
	// still ends, as it looks at its root once a second.
	held := filepath.Join(t.TempDir(), "held")
	require.NoError(t, os.MkdirAll(held, 0o755))
	ready = make(chan struct{})
	heldDone := make(chan error, 1)
	go func() { heldDone <- Serve(held, Options{Rescan: -1, Ready: func() { close(ready) }}) }()
	<-ready
	f, err := os.Create(filepath.Join(held, "open.txt"))
	require.NoError(t, err)
	defer f.Close()
	b, err := syscall.Mmap(int(f.Fd()), 0, 1, syscall.PROT_READ, syscall.MAP_SHARED)
	if err == nil {
		defer syscall.Munmap(b)
	}
	require.NoError(t, os.RemoveAll(held))
	select {
	case err := <-heldDone:
		require.NoError(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("monitor still running after its root was removed while a file under it was open")
	}

	idle := t.TempDir()
	ended := make(chan error, 1)
	go func() { ended <- Serve(idle, Options{Idle: 50 * time.Millisecond, Rescan: -1}) }()
	select {
	case err := <-ended:
		require.NoError(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("idle monitor did not end")
	}

	_, err = Token(filepath.Join(t.TempDir(), "missing"))
	require.True(t, errors.Is(err, ErrNotRunning))
	notDir := filepath.Join(t.TempDir(), "file")
	require.NoError(t, os.WriteFile(notDir, nil, 0o644))
	require.Error(t, Serve(notDir, Options{}), "a file is not a tree to watch")
}

// TestOnlyThisProgramIsBelieved: a process that takes a tree's socket name first and answers a
// fixed token (here a python script) is not believed, so a caller reads the tree itself.
func TestOnlyThisProgramIsBelieved(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 not installed")
	}
	root := t.TempDir()
	name := strings.Replace(socketName(root), "@", `\0`, 1)
	script := fmt.Sprintf(`
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.bind(b"%s")
s.listen(8)
print("ready", flush=True)
while True:
    c, _ = s.accept()
    c.sendall(b"forged 0\n")
    c.close()
`, name)
	cmd := exec.Command("python3", "-c", script)
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	line := make([]byte, 6)
	_, err = io.ReadFull(out, line)
	require.NoError(t, err)
	require.Equal(t, "ready\n", string(line))

	tok, err := Token(root)
	require.Error(t, err, "a forged monitor's token %q was believed", tok)
	require.NotErrorIs(t, err, ErrNotRunning)
	require.Contains(t, err.Error(), "not by this program")
	require.ErrorIs(t, Serve(root, Options{Rescan: -1}), ErrAlreadyRunning)
}

// TestCapacityCountsWhatIsWatched: doctor compares the directories a monitor would watch (the
// root's .git left out) with the kernel's watch limit.
func TestCapacityCountsWhatIsWatched(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{".git/objects/ab", "src/pkg", "src/cmd/x", "docs"} {
		require.NoError(t, os.MkdirAll(filepath.Join(root, d), 0o755))
	}
	require.NoError(t, os.Symlink("src", filepath.Join(root, "link"))) // not followed
	dirs, limit, err := Capacity(root)
	require.NoError(t, err)
	require.Equal(t, 6, dirs, "root, src, src/pkg, src/cmd, src/cmd/x, docs")
	require.Positive(t, limit)
}
