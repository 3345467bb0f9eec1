package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/exarchos/git-exarchos/app"
	"github.com/exarchos/git-exarchos/gitrepo"
	"github.com/exarchos/git-exarchos/gitstore"
	"github.com/exarchos/git-exarchos/workflow"
)

// Exit codes, as documented in `git exarchos -h` and the README.
const (
	exitOK         = 0
	exitError      = 1
	exitUsage      = 2
	exitRejected   = 3
	exitGitHub     = 4
	exitConcurrent = 5
)

// errorBody is the JSON shape of every error: {"error": {...}}.
type errorBody struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Exit    int    `json:"exit"`
	// Rejection details when the workflow refused the command.
	Rejection *workflow.Rejection `json:"rejection,omitempty"`
	Details   any                 `json:"details,omitempty"`
}

// classify is the one place errors become exit codes and error codes.
func classify(err error) errorBody {
	var rej *workflow.Rejection
	var usage *app.UsageError
	var corrupt *gitstore.CorruptError
	var exitErr *codedError
	switch {
	case errors.As(err, &exitErr):
		return errorBody{Code: exitErr.code, Exit: exitErr.exit, Details: exitErr.details}
	case errors.As(err, &rej):
		exit := exitRejected
		switch rej.Code {
		case workflow.CodeBadInput, workflow.CodeReservedField, workflow.CodeUnknownPhase, workflow.CodeUnknownType:
			exit = exitUsage // the caller typed something wrong; the workflow did not refuse a valid request
		}
		return errorBody{Code: rej.Code, Exit: exit, Rejection: rej}
	case errors.As(err, &usage), errors.Is(err, gitstore.ErrBadFeature), errors.Is(err, gitstore.ErrBadPayload):
		return errorBody{Code: "USAGE", Exit: exitUsage}
	case errors.Is(err, app.ErrAmbiguous):
		return errorBody{Code: "AMBIGUOUS_FEATURE", Exit: exitUsage}
	case errors.Is(err, gitstore.ErrConcurrent), errors.Is(err, gitrepo.ErrLocked):
		return errorBody{Code: "CONCURRENT_UPDATE", Exit: exitConcurrent}
	case errors.Is(err, gitstore.ErrNotFound):
		return errorBody{Code: "NOT_FOUND", Exit: exitError}
	case errors.Is(err, gitstore.ErrExists):
		return errorBody{Code: "EXISTS", Exit: exitError}
	case errors.Is(err, gitrepo.ErrNotRepository):
		return errorBody{Code: "NOT_A_REPOSITORY", Exit: exitError}
	case errors.Is(err, gitrepo.ErrNoIdentity):
		return errorBody{Code: "NO_IDENTITY", Exit: exitError}
	case errors.As(err, &corrupt):
		return errorBody{Code: "CORRUPT", Exit: exitError, Details: map[string]string{"commit": corrupt.Commit.String(), "path": corrupt.Path}}
	}
	for _, c := range extraClassifiers {
		if b, ok := c(err); ok {
			return b
		}
	}
	return errorBody{Code: "ERROR", Exit: exitError}
}

// extraClassifiers lets a command file map its package's errors (e.g. GitHub access → 4) without
// this file importing every package.
var extraClassifiers []func(error) (errorBody, bool)

// exitError carries an explicit code, for results that are failures without being Go errors
// (fsck finding problems, a guard that did not pass).
type codedError struct {
	code, msg string
	exit      int
	details   any
}

func (e *codedError) Error() string { return e.msg }

func usageErr(err error) error { return &app.UsageError{Msg: err.Error()} }

func usageErrf(format string, args ...any) error { return app.Usagef(format, args...) }

// report prints err (as JSON or text) and returns the exit code.
func report(err error, asJSON bool, stdout, stderr io.Writer) int {
	body := classify(err)
	body.Message = err.Error()
	if asJSON {
		b, _ := json.Marshal(map[string]any{"error": body})
		fmt.Fprintln(stdout, string(b))
	} else if body.Message != "" {
		fmt.Fprintf(stderr, "git exarchos: %s\n", body.Message)
	}
	return body.Exit
}
