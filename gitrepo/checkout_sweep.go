package gitrepo

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// A clean checkout (CleanCheckout) is a linked worktree in the temporary directory, removed when
// its user is done. A process killed meanwhile (SIGKILL of `task done` while a gate runs) leaves
// it behind, registered, with a whole checkout in it: `git worktree prune` drops only entries
// whose directory is gone. Each checkout's name carries the pid of the process that made it, so
// the next one removes those of this repository whose process is provably dead, reading the
// temporary directory only (no git process unless there is one to remove).

const cleanCheckoutPrefix = "exarchos-guard-"

// cleanCheckoutPattern is the MkdirTemp pattern of this process's clean checkouts.
func cleanCheckoutPattern() string { return fmt.Sprintf("%s%d-", cleanCheckoutPrefix, os.Getpid()) }

// sweepCleanCheckouts removes this repository's clean checkouts left by dead processes.
func (l Location) sweepCleanCheckouts() {
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
		if !ok || err != nil || pid <= 0 || pid == os.Getpid() || !processDead(pid) {
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
