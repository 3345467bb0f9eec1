package app

import (
	"errors"
	"fmt"

	"github.com/exarchos/git-exarchos/workflow"
	"github.com/exarchos/git-exarchos/workflowdef"
)

// ErrLintFailed is a workflow definition `lint` found problems in (LintError says which).
var ErrLintFailed = errors.New("the workflow definition has problems")

// LintError lists the problems of a definition file, each with its line.
type LintError struct {
	File     string
	Problems workflowdef.Problems
}

func (e *LintError) Error() string {
	return fmt.Sprintf("%v: %d problem(s):\n%s", ErrLintFailed, len(e.Problems), e.Problems.Error())
}

func (e *LintError) Unwrap() error { return ErrLintFailed }

// LintWorkflowOptions names the definition file `lint` checks.
type LintWorkflowOptions struct{ File string }

// LintWorkflowResult is a definition that passed, with the notes on what it means where it may
// surprise. The fields are in the order of their JSON names: the JSON is the object encoding/json
// wrote of the map this was before.
type LintWorkflowResult struct {
	Definition *workflow.Definition `json:"definition"`
	File       string               `json:"file"`
	Notes      []string             `json:"notes"`
	OK         bool                 `json:"ok"`
}

// LintWorkflow checks a workflow definition file before it is committed; a problem is a
// *LintError. No repository is needed: the file is checked on its own.
func LintWorkflow(o LintWorkflowOptions) (*LintWorkflowResult, error) {
	src, err := readBounded(o.File, nil, workflowdef.MaxFileBytes, "a workflow definition")
	if err != nil {
		return nil, err
	}
	def, problems := workflowdef.Parse(o.File, src)
	if len(problems) > 0 {
		return nil, &LintError{File: o.File, Problems: problems}
	}
	notes := append([]string{}, workflowdef.Notes(def)...) // [] rather than null in --json
	return &LintWorkflowResult{Definition: def, File: o.File, Notes: notes, OK: true}, nil
}
