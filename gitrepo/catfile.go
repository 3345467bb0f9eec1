package gitrepo

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"
)

// The fast readers (loose objects, packs, alternates) are a cache in front of git, never a
// replacement: an object they cannot find or parse is asked of `git cat-file --batch`, which knows
// every repository feature git has (a promisor remote's missing objects, which it fetches; object
// storage we do not read) before anything is called missing or corrupt. One process per object
// database, started on the first miss only: the hook and an append, which find everything in the
// fast path, start none.

// errGitMissing is git's own "missing": the object is not in the repository and git could not get it.
var errGitMissing = errors.New("git reports the object missing")

// catFile is one long-lived `git cat-file --batch` process.
type catFile struct {
	gitDir string

	mu     sync.Mutex
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout *bufio.Reader
	stderr *bytes.Buffer
	starts int
}

// read asks git for one object. A missing object is errGitMissing; a process that died (git found
// the object corrupt, say) is an error carrying its stderr, and the next call starts a new one.
func (c *catFile) read(h Hash) (plumbing.ObjectType, []byte, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cmd == nil {
		if err := c.start(); err != nil {
			return plumbing.InvalidObject, nil, err
		}
	}
	id := h.String()
	if _, err := io.WriteString(c.stdin, id+"\n"); err != nil {
		return plumbing.InvalidObject, nil, c.fail(err)
	}
	header, err := c.stdout.ReadString('\n')
	if err != nil {
		return plumbing.InvalidObject, nil, c.fail(err)
	}
	fields := strings.Fields(header)
	switch {
	case len(fields) == 2 && fields[1] == "missing":
		return plumbing.InvalidObject, nil, errGitMissing
	case len(fields) != 3 || fields[0] != id:
		return plumbing.InvalidObject, nil, c.fail(fmt.Errorf("unexpected answer %q", strings.TrimSpace(header)))
	}
	typ, err := plumbing.ParseObjectType(fields[1])
	size, serr := strconv.Atoi(fields[2])
	if err != nil || serr != nil || size < 0 {
		return plumbing.InvalidObject, nil, c.fail(fmt.Errorf("unexpected answer %q", strings.TrimSpace(header)))
	}
	content := make([]byte, size+1) // and the newline after it
	if _, err := io.ReadFull(c.stdout, content); err != nil {
		return plumbing.InvalidObject, nil, c.fail(err)
	}
	return typ, content[:size], nil
}

func (c *catFile) start() error {
	if c.starts >= 8 { // a git that keeps dying will not do better on the ninth try
		return fmt.Errorf("git cat-file stopped %d times: %s", c.starts, strings.TrimSpace(c.stderr.String()))
	}
	c.starts++
	// Replace refs are not followed: an object must be what its id says. A promisor fetch must not
	// wait on a password prompt nobody can see (the hook has no terminal).
	cmd := exec.Command("git", "--no-replace-objects", "--git-dir="+c.gitDir, "cat-file", "--batch")
	cmd.Env = append(CleanGitEnv(), "GIT_TERMINAL_PROMPT=0")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	c.stderr = &bytes.Buffer{}
	cmd.Stderr = &limitedWriter{w: c.stderr, n: 64 << 10}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start git cat-file: %w", err)
	}
	c.cmd, c.stdin, c.stdout = cmd, stdin, bufio.NewReaderSize(stdout, 64<<10)
	return nil
}

// fail ends a process that broke off mid-answer and returns why, with git's stderr.
func (c *catFile) fail(err error) error {
	c.stop()
	if msg := strings.TrimSpace(c.stderr.String()); msg != "" {
		return fmt.Errorf("git cat-file: %s", msg)
	}
	return fmt.Errorf("git cat-file: %w", err)
}

func (c *catFile) stop() {
	if c.cmd == nil {
		return
	}
	c.stdin.Close()
	c.cmd.Wait()
	c.cmd, c.stdin, c.stdout = nil, nil, nil
}

// lastStderr is what git said last (a promisor fetch that failed says why), on one line.
func (c *catFile) lastStderr() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stderr == nil {
		return ""
	}
	lines := strings.Split(strings.TrimSpace(c.stderr.String()), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

// close ends the process, if one was started.
func (c *catFile) close() {
	c.mu.Lock()
	c.stop()
	c.mu.Unlock()
}

// GitStarted reports whether a git process was started to answer a read the fast path missed: tests
// hold the common path to none.
func (o *Objects) GitStarted() bool {
	o.git.mu.Lock()
	defer o.git.mu.Unlock()
	return o.git.starts > 0
}

type limitedWriter struct {
	w io.Writer
	n int
}

func (l *limitedWriter) Write(p []byte) (int, error) {
	if l.n > 0 {
		k := min(len(p), l.n)
		l.w.Write(p[:k])
		l.n -= k
	}
	return len(p), nil
}
