package project

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/exarchos/git-exarchos/gitrepo"
)

// A clean checkout (cleanCheckout: the gates', the shell guards' and verify's reruns' checkout) is a linked worktree in the temporary directory, removed when
// its user is done. A process killed meanwhile (SIGKILL of `task done` while a gate runs) leaves
// it behind, registered, with a whole checkout in it: `git worktree prune` drops only entries
// whose directory is gone. Each checkout's name carries the pid of the process that made it, so
// the next one removes those of this repository whose process is provably dead, reading the
// temporary directory only (no git process unless there is one to remove).

const cleanCheckoutPrefix = "exarchos-guard-"

// cleanCheckoutPattern is the MkdirTemp pattern of this process's clean checkouts.
func cleanCheckoutPattern() string { return fmt.Sprintf("%s%d-", cleanCheckoutPrefix, os.Getpid()) }

// sweepCleanCheckouts removes this repository's clean checkouts left by dead processes.
func sweepCleanCheckouts(l gitrepo.Location) {
	tmp := os.TempDir()
	entries, err := os.ReadDir(tmp)
	if err != nil {
		return
	}
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), cleanCheckoutPrefix)
		if !ok || !e.IsDir() {
			continue
		}
		pidText, _, ok := strings.Cut(rest, "-")
		pid, err := strconv.Atoi(pidText)
		if !ok || err != nil || pid <= 0 || pid == os.Getpid() || !gitrepo.ProcessDead(pid) {
			continue
		}
		dir := filepath.Join(tmp, e.Name())
		// Only a worktree of this repository: its .git file names our common directory.
		b, err := os.ReadFile(filepath.Join(dir, ".git"))
		if err != nil {
			continue
		}
		gitdir := strings.TrimSpace(strings.TrimPrefix(string(b), "gitdir:"))
		if !strings.HasPrefix(filepath.Clean(gitdir), filepath.Join(filepath.Clean(l.CommonDir), "worktrees")+string(filepath.Separator)) {
			continue
		}
		if _, err := l.CommonGit(nil, "worktree", "remove", "--force", dir); err != nil {
			os.RemoveAll(dir)
			_ = l.PruneWorktrees()
		}
	}
}

// cleanCheckout checks commit out, detached, in a new temporary worktree, so that what runs there
// sees the commit and nothing uncommitted; done removes it (what a killed process left, the next
// clean checkout removes: sweepCleanCheckouts).
func cleanCheckout(l gitrepo.Location, commit string) (dir string, done func(), err error) {
	sweepCleanCheckouts(l)
	// `git worktree add` reads every registered worktree's files first, and fails ("failed to read
	// .git/worktrees/<other>/commondir") when another one is being added at that moment: two
	// `task done` at once met it under load. Such a failure is tried again, a few times.
	for attempt := 0; ; attempt++ {
		dir, err = os.MkdirTemp("", cleanCheckoutPattern())
		if err != nil {
			return "", nil, fmt.Errorf("temporary checkout: %w", err)
		}
		_, err = l.CommonGit(nil, "worktree", "add", "--detach", "--quiet", dir, commit)
		if err == nil {
			break
		}
		os.RemoveAll(dir)
		var ge *gitrepo.GitError
		if attempt == 9 || !errors.As(err, &ge) || !strings.Contains(ge.Stderr, "/worktrees/") {
			return "", nil, fmt.Errorf("check out %s in a temporary worktree: %w", commit, err)
		}
		time.Sleep(time.Duration(10*(attempt+1)) * time.Millisecond)
	}
	return dir, func() {
		if _, err := l.CommonGit(nil, "worktree", "remove", "--force", dir); err != nil {
			os.RemoveAll(dir)
			_ = l.PruneWorktrees()
		}
	}, nil
}
