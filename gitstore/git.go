package gitstore

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
)

// gitCmd runs the git binary against gitDir and returns its combined output. The git binary is used
// where go-git is weak: identity resolution, deleting packed refs, worktrees, fetch and push.
func gitCmd(gitDir string, stdin io.Reader, args ...string) ([]byte, error) {
	cmd := exec.Command("git", append([]string{"--git-dir=" + gitDir}, args...)...)
	cmd.Stdin = stdin
	cmd.Env = cleanGitEnv()
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	err := cmd.Run()
	return out.Bytes(), err
}

// cleanGitEnv drops GIT_DIR-like variables so that --git-dir / -C decide the repository, not
// whatever environment a git hook ran us in.
func cleanGitEnv() []string {
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

// Git runs the git binary in the repository's working tree (or git directory when bare) and returns
// stdout; a failure carries git's stderr. Packages above gitstore use it for worktrees, fetch and push.
func (l Location) Git(stdin io.Reader, args ...string) (string, error) {
	return l.gitEnv(nil, stdin, args...)
}

// tolerantEnv makes git skip broken refs (a stray .DS_Store under refs/exarchos/, a ref to a
// missing commit) where it iterates every ref, as fetch's connectivity check does, instead of
// failing for all of them.
var tolerantEnv = []string{"GIT_REF_PARANOIA=0"}

// gitEnv is Git with extra environment variables.
func (l Location) gitEnv(env []string, stdin io.Reader, args ...string) (string, error) {
	var full []string
	if l.WorkTree != "" {
		full = append([]string{"-C", l.WorkTree}, args...)
	} else {
		full = append([]string{"--git-dir=" + l.GitDir}, args...)
	}
	cmd := exec.Command("git", full...)
	cmd.Stdin = stdin
	cmd.Env = append(cleanGitEnv(), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &stdout
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return stdout.String(), fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return stdout.String(), nil
}
