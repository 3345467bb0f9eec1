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

// Git runs the git binary on this repository and returns stdout; a failure carries git's stderr.
// The git directory and working tree are passed explicitly, so git reads the repository that was
// discovered (GIT_DIR, GIT_WORK_TREE) and not whatever repository encloses the working tree
// directory. Packages above gitstore use it for worktrees, fetch and push.
func (l Location) Git(stdin io.Reader, args ...string) (string, error) {
	full := []string{"--git-dir=" + l.GitDir}
	if l.WorkTree != "" {
		full = append(full, "--work-tree="+l.WorkTree)
	}
	full = append(full, args...)
	cmd := exec.Command("git", full...)
	cmd.Dir = l.WorkTree
	if cmd.Dir == "" {
		cmd.Dir = l.GitDir
	}
	cmd.Stdin = stdin
	cmd.Env = cleanGitEnv()
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &stdout
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return stdout.String(), fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return stdout.String(), nil
}
