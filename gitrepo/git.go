package gitrepo

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
)

// CleanGitEnv drops GIT_DIR-like variables so that --git-dir / -C decide the repository, not
// whatever environment a git hook ran us in.
func CleanGitEnv() []string {
	env := os.Environ()
	out := env[:0:0]
	for _, kv := range env {
		switch {
		case strings.HasPrefix(kv, "GIT_DIR="), strings.HasPrefix(kv, "GIT_WORK_TREE="),
			strings.HasPrefix(kv, "GIT_COMMON_DIR="), strings.HasPrefix(kv, "GIT_INDEX_FILE="):
			continue
		}
		out = append(out, kv)
	}
	return out
}

// Git runs the git binary on this repository and returns stdout; a failure is a *GitError
// carrying git's stderr. The git directory and working tree are passed explicitly, so git reads
// the repository that was discovered (GIT_DIR, GIT_WORK_TREE) and not whatever repository
// encloses the working directory. Packages above gitstore use it for worktrees, fetch and push.
func (l Location) Git(stdin io.Reader, args ...string) (string, error) {
	return l.GitEnv(nil, stdin, args...)
}

// TolerantEnv makes git skip broken refs (a stray .DS_Store under refs/exarchos/, a ref to a
// missing commit) where it iterates every ref, as fetch's connectivity check does, instead of
// failing for all of them.
var TolerantEnv = []string{"GIT_REF_PARANOIA=0"}

// GitEnv is Git with extra environment variables.
func (l Location) GitEnv(env []string, stdin io.Reader, args ...string) (string, error) {
	full := []string{"--git-dir=" + l.GitDir}
	dir := l.GitDir
	if l.WorkTree != "" {
		full = append(full, "--work-tree="+l.WorkTree)
		dir = l.WorkTree
	}
	out, err := runGit(dir, "", env, stdin, append(full, args...)...)
	var ge *GitError
	if errors.As(err, &ge) {
		ge.Args = args // name the command as the caller wrote it
	}
	return out, err
}

// GitIn runs git in dir (a worktree; "" for the current directory), letting git discover the
// repository there, with the environment cleaned of GIT_DIR and the like; it returns stdout, and a
// failure is a *GitError.
func GitIn(dir string, args ...string) (string, error) { return runGit(dir, "", nil, nil, args...) }

// runGit runs git in dir (or with --git-dir when gitDir is set) with extra environment, and
// returns stdout; a failure is a *GitError carrying git's stderr and naming the command. It is the
// one place gitstore starts git.
func runGit(dir, gitDir string, env []string, stdin io.Reader, args ...string) (string, error) {
	full := args
	if gitDir != "" {
		full = append([]string{"--git-dir=" + gitDir}, args...)
	}
	cmd := exec.Command("git", full...)
	cmd.Dir = dir
	cmd.Stdin = stdin
	cmd.Env = append(CleanGitEnv(), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return stdout.String(), &GitError{Args: args, Err: err, Stderr: strings.TrimSpace(stderr.String())}
	}
	return stdout.String(), nil
}

// GitError is a failed git command with its stderr.
type GitError struct {
	Args   []string
	Err    error
	Stderr string
}

func (e *GitError) Error() string {
	return fmt.Sprintf("git %s: %v: %s", strings.Join(e.Args, " "), e.Err, e.Stderr)
}

func (e *GitError) Unwrap() error { return e.Err }

// exitCode returns git's exit code, or -1 when err is not an exit.
func ExitCode(err error) int {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	return -1
}
