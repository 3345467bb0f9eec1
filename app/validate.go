package app

import (
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"time"

	"github.com/exarchos/git-exarchos/workflow"
)

// ValidateOptions runs a validation command (`git exarchos validate <feature> -- <cmd> [args…]`).
type ValidateOptions struct {
	Feature string
	Command []string
	// Output receives the command's stdout and stderr (the CLI passes its stderr, keeping stdout
	// for the result).
	Output io.Writer
}

// ValidateResult is the recorded outcome.
type ValidateResult struct {
	*Result
	Validation workflow.Validation `json:"validation"`
	Dir        string              `json:"dir"`
}

// Validate runs the command in the worktree where the workflow's branch is checked out and records
// its exit status, duration and the commit it ran on. The workflow never takes an agent's word that
// tests passed: only a recorded run on the branch tip counts.
func Validate(r *Repo, o ValidateOptions) (*ValidateResult, error) {
	if len(o.Command) == 0 {
		return nil, Usagef("no command to run: `git exarchos validate %s -- go test ./...`", orPlaceholder(o.Feature))
	}
	feature, st, _, err := r.ResolveState(o.Feature)
	if err != nil {
		return nil, err
	}
	if r.isFinal(st.Type, st.Phase) {
		return nil, &workflow.Rejection{Code: workflow.CodeFinalPhase, Message: fmt.Sprintf("%s is in the final phase %s: there is nothing left to validate", feature, st.Phase), Phase: st.Phase}
	}
	dir, head, err := r.worktreeOf(st.Branch)
	if err != nil {
		return nil, err
	}
	if dirty, err := r.Store.Loc.Git(nil, "-C", dir, "status", "--porcelain", "--untracked-files=no"); err != nil {
		return nil, err
	} else if strings.TrimSpace(dirty) != "" {
		return nil, Usagef("%s has uncommitted changes to tracked files, so a result would not describe commit %s: commit them, then run validate again", dir, head[:12])
	}
	cmd := exec.Command(o.Command[0], o.Command[1:]...)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = o.Output, o.Output
	start := time.Now()
	runErr := cmd.Run()
	elapsed := time.Since(start)
	code := 0
	var exitErr *exec.ExitError
	switch {
	case errors.As(runErr, &exitErr):
		code = exitErr.ExitCode()
	case runErr != nil:
		return nil, Usagef("cannot run %q: %v", o.Command[0], runErr)
	}
	v := workflow.RecordValidation{Command: shellJoin(o.Command), ExitCode: code, DurationMs: elapsed.Milliseconds(), Commit: head}
	res, err := r.Execute(feature, v)
	if err != nil {
		return nil, err
	}
	return &ValidateResult{Result: res, Validation: workflow.Validation{Command: v.Command, ExitCode: code, DurationMs: v.DurationMs, Commit: head}, Dir: dir}, nil
}

// worktreeOf finds the worktree that has branch checked out, and its HEAD commit.
func (r *Repo) worktreeOf(branch string) (dir, head string, err error) {
	out, err := r.Store.Loc.Git(nil, "worktree", "list", "--porcelain")
	if err != nil {
		return "", "", err
	}
	for _, block := range strings.Split(out, "\n\n") {
		var path, sha, ref string
		for _, line := range strings.Split(block, "\n") {
			k, v, _ := strings.Cut(line, " ")
			switch k {
			case "worktree":
				path = v
			case "HEAD":
				sha = v
			case "branch":
				ref = v
			}
		}
		if ref == "refs/heads/"+branch && path != "" {
			return path, sha, nil
		}
	}
	return "", "", fmt.Errorf("branch %s is not checked out in any worktree, so there is nothing to validate: `git switch %s` (or `git worktree add <dir> %s`), then run validate again", branch, branch, branch)
}

func orPlaceholder(s string) string {
	if s == "" {
		return "<feature>"
	}
	return s
}

// shellJoin renders argv so that it can be pasted back into a shell.
func shellJoin(argv []string) string {
	out := make([]string, len(argv))
	for i, a := range argv {
		if a != "" && strings.IndexFunc(a, func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:,+@%", r))
		}) < 0 {
			out[i] = a
		} else {
			out[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
	}
	return strings.Join(out, " ")
}
