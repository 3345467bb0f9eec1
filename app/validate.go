package app

import (
	"errors"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"strings"
	"time"

	"github.com/exarchos/git-exarchos/gitstore"
	"github.com/exarchos/git-exarchos/project"
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
	*project.Result
	Validation workflow.Validation `json:"validation"`
	Dir        string              `json:"dir"`
}

// Validate runs the command in the worktree where the workflow's branch is checked out and records
// its exit status, duration and the commit it ran on. The workflow never takes an agent's word that
// tests passed: only a recorded run on the branch tip counts. With no command it runs the declared
// validation (the phase's, else .exarchos/validate on the base branch), each command with sh -c;
// a command given after -- that is not declared is recorded as ad hoc and satisfies no guard.
func Validate(r *Repo, o ValidateOptions) (*ValidateResult, error) {
	feature, st, _, err := r.ResolveState(o.Feature)
	if err != nil {
		if o.Feature != "" && len(o.Command) == 0 && errors.Is(err, gitstore.ErrNotFound) {
			// `validate true`: a command given without -- was read as the feature.
			return nil, project.Usagef("no workflow %s: to run a command, put it after --: `git exarchos validate -- %s`", o.Feature, o.Feature)
		}
		return nil, err
	}
	def, _ := r.Definition(st.Type)
	if r.IsFinal(st.Type, st.Phase) {
		return nil, &workflow.Rejection{Code: workflow.CodeFinalPhase, Message: fmt.Sprintf("%s is in the final phase %s: there is nothing left to validate", feature, st.Phase), Phase: st.Phase}
	}
	declared := r.DeclaredValidation()
	if def != nil {
		if p, ok := def.Phase(st.Phase); ok && len(p.Validation) > 0 {
			declared = p.Validation
		}
	}
	type run struct {
		argv  []string
		shown string
		adHoc bool
	}
	var runs []run
	if len(o.Command) == 0 {
		if len(declared) == 0 {
			return nil, project.Usagef("no validation command is declared for %s (phase %s): ask the user to commit one command per line to %s on the base branch, or run an ad-hoc check with `git exarchos validate %s -- <cmd>` (recorded, but it satisfies no guard)",
				feature, st.Phase, project.ValidateFile, feature)
		}
		for _, c := range declared {
			runs = append(runs, run{argv: []string{"sh", "-c", c}, shown: c})
		}
	} else {
		shown := shellJoin(o.Command)
		runs = append(runs, run{argv: o.Command, shown: shown, adHoc: !slices.Contains(declared, shown)})
	}
	dir, head, err := r.worktreeOf(st.Branch)
	if err != nil {
		return nil, err
	}
	if st, err := r.WorktreeStatus(dir); err != nil {
		return nil, err
	} else if st.Staged+st.Modified+st.Conflicts > 0 {
		return nil, project.Usagef("%s has uncommitted changes to tracked files, so a result would not describe commit %s: commit them, then run validate again", dir, head[:12])
	}
	var cmds []workflow.Command
	var last workflow.RecordValidation
	for _, rn := range runs {
		cmd := exec.Command(rn.argv[0], rn.argv[1:]...)
		cmd.Dir = dir
		cmd.Stdout, cmd.Stderr = o.Output, o.Output
		start := time.Now()
		code, runErr := project.ExitStatus(cmd.Run())
		elapsed := time.Since(start)
		if runErr != nil {
			return nil, project.Usagef("cannot run %q: %v", rn.argv[0], runErr)
		}
		last = workflow.RecordValidation{Command: rn.shown, ExitCode: code, DurationMs: elapsed.Milliseconds(), Commit: head, AdHoc: rn.adHoc}
		cmds = append(cmds, last)
		if code != 0 {
			break // the first failure is the result; later commands would only cost time
		}
	}
	res, err := r.Execute(feature, cmds...)
	if err != nil {
		return nil, err
	}
	return &ValidateResult{Result: res, Validation: workflow.Validation(last), Dir: dir}, nil
}

// worktreeOf finds the worktree of this repository that has branch checked out, and its HEAD
// commit.
func (r *Repo) worktreeOf(branch string) (dir, head string, err error) {
	dir, head, err = r.Facts().WorktreeOf(branch)
	if err != nil || dir != "" {
		return dir, head, err
	}
	return "", "", fmt.Errorf("branch %s is not checked out in any worktree, so there is nothing to validate: `git switch %s` (or `git worktree add <dir> %s`), then run validate again", branch, branch, branch)
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
