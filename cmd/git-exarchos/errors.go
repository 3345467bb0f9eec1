package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/exarchos/git-exarchos/app"
	"github.com/exarchos/git-exarchos/ghclient"
	"github.com/exarchos/git-exarchos/ghevidence"
	"github.com/exarchos/git-exarchos/hookrun"
	"github.com/exarchos/git-exarchos/project"
	"github.com/exarchos/git-exarchos/saga"
	"github.com/exarchos/git-exarchos/trust"
	"github.com/exarchos/git-exarchos/verify"
	"github.com/exarchos/git-exarchos/workflow"
)

// Exit codes, as documented in `git exarchos -h`, docs/commands.md and docs/json.md.
const (
	exitOK         = 0
	exitError      = 1
	exitUsage      = 2
	exitRejected   = 3
	exitGitHub     = 4
	exitConcurrent = 5
)

// Failures a command finds in its own result (the command ran; what it checked did not pass).
// The command wraps one of these with withDetails so --json carries the result in the error.
var (
	errValidationFailed = errors.New("the validation command failed")
	errFsckFailed       = errors.New("fsck found problems")
	errLintFailed       = app.ErrLintFailed
	errSyncFailed       = errors.New("some workflows could not be synchronised")
	errPushRejected     = errors.New("the remote kept rejecting some workflows")
	errDoctorFailed     = errors.New("doctor found failures")
)

// errorRow maps one kind of error to its JSON code and exit code. match reports whether err is of
// the kind; code is what the JSON error object says ("" takes the code the error carries).
type errorRow struct {
	code  string
	exit  int
	match func(err error) bool
}

func is(target error) func(error) bool { return func(err error) bool { return errors.Is(err, target) } }

func as[T error]() func(error) bool {
	return func(err error) bool {
		var t T
		return errors.As(err, &t)
	}
}

func gitHubAccess(err error) bool {
	var ge *ghclient.Error
	return errors.As(err, &ge) && ge.IsAccess()
}

func rejection(usage bool) func(error) bool {
	return func(err error) bool {
		var rej *workflow.Rejection
		if !errors.As(err, &rej) {
			return false
		}
		switch rej.Code {
		case workflow.CodeBadInput, workflow.CodeReservedField, workflow.CodeUnknownPhase, workflow.CodeUnknownType:
			return usage // the caller typed something wrong; the workflow did not refuse a valid request
		}
		return !usage
	}
}

// errorTable is the one place errors become exit codes and JSON error codes. The first row that
// matches wins: a row for a wrapping error (a cancel that stopped on GitHub access) comes before the
// rows of what it wraps. Every row has a test (errors_test.go) and a line in docs/json.md.
var errorTable = []errorRow{
	{"HOOK_INPUT", exitUsage, is(hookrun.ErrHookBlock)}, // exit 2: Claude Code blocks the call
	{"USAGE", exitUsage, as[usageError]()},
	{"USAGE", exitUsage, as[*project.UsageError]()},
	{"USAGE", exitUsage, is(app.ErrBadFeature)},
	{"USAGE", exitUsage, is(app.ErrBadPayload)},
	{"", exitUsage, rejection(true)},
	{"", exitRejected, rejection(false)},
	{"AGENT_ENVIRONMENT", exitRejected, as[*trust.AgentRefusal]()},
	{"SCHEMA_INVALID", exitRejected, as[*app.InvalidSubmission]()},
	{"VERIFY_FAILED", exitRejected, as[*verify.Error]()},
	{"IDEMPOTENCY_CONFLICT", exitRejected, as[*app.IdempotencyConflict]()},
	{"AMBIGUOUS_FEATURE", exitUsage, is(project.ErrAmbiguous)},
	{"NO_REMOTE", exitUsage, is(app.ErrNoRemote)},
	{"PR_OTHER_REPOSITORY", exitUsage, is(ghevidence.ErrOtherRepository)},
	{"CANCEL_INCOMPLETE", exitGitHub, func(err error) bool { return as[*saga.CancelIncompleteError]()(err) && gitHubAccess(err) }},
	{"CANCEL_INCOMPLETE", exitError, as[*saga.CancelIncompleteError]()},
	{"PUSH_REJECTED", exitConcurrent, is(errPushRejected)},
	{"CONCURRENT_UPDATE", exitConcurrent, is(app.ErrConcurrent)},
	{"CONCURRENT_UPDATE", exitConcurrent, is(app.ErrLocked)},
	{"", exitGitHub, gitHubAccess},
	{"", exitError, as[*ghclient.Error]()},
	{"PR_NOT_LINKED", exitError, is(ghevidence.ErrNotLinked)},
	{"PR_NOT_FOUND", exitError, is(ghevidence.ErrNoPullRequest)},
	{"NO_GITHUB_REMOTE", exitError, is(ghevidence.ErrNoRemote)},
	{"VALIDATION_FAILED", exitError, is(errValidationFailed)},
	{"RUNBOOK_FAILED", exitError, as[*app.RunbookFailed]()},
	{"FSCK_FAILED", exitError, is(errFsckFailed)},
	{"LINT_FAILED", exitError, is(errLintFailed)},
	{"DOCTOR_FAILED", exitError, is(errDoctorFailed)},
	{"SYNC_FAILED", exitError, is(errSyncFailed)},
	{"NOT_FOUND", exitError, is(app.ErrNotFound)},
	{"EXISTS", exitError, is(app.ErrExists)},
	{"NOT_A_REPOSITORY", exitError, is(app.ErrNotRepository)},
	{"UNSUPPORTED_REPOSITORY", exitError, is(app.ErrUnsupportedRepo)},
	{"NO_IDENTITY", exitError, is(app.ErrNoIdentity)},
	{"CORRUPT", exitError, as[*app.CorruptError]()},
	{"ERROR", exitError, func(error) bool { return true }},
}

// errorBody is the JSON shape of every error: {"error": {...}} (docs/json.md).
type errorBody struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Exit    int    `json:"exit"`
	// Hint and Usage come with usage errors: a "did you mean" and the command's usage line.
	Hint  string `json:"hint,omitempty"`
	Usage string `json:"usage,omitempty"`
	// Rejection details when the workflow refused the command.
	Rejection *workflow.Rejection `json:"rejection,omitempty"`
	Details   any                 `json:"details,omitempty"`
}

// classify finds err's row in errorTable and fills in what the error carries.
func classify(err error) errorBody {
	var body errorBody
	for _, row := range errorTable {
		if row.match(err) {
			body = errorBody{Code: row.code, Exit: row.exit}
			break
		}
	}
	var (
		rej *workflow.Rejection
		ge  *ghclient.Error
		u   usageError
		inc *saga.CancelIncompleteError
		inv *app.InvalidSubmission
		idc *app.IdempotencyConflict
		rbf *app.RunbookFailed
		cor *app.CorruptError
		det detailedError
	)
	switch {
	case errors.As(err, &u):
		body.Hint, body.Usage = u.hint, u.usage
	case errors.As(err, &rej):
		body.Code, body.Rejection = rej.Code, rej
	case errors.As(err, &inc):
		body.Details = inc.Result
	case errors.As(err, &ge):
		body.Code, body.Details = string(ge.Kind), ge
	case errors.As(err, &inv):
		body.Details = map[string]any{"phase": inv.Phase, "errors": inv.Errors}
	case errors.As(err, &rbf):
		body.Details = rbf.Result
	case errors.As(err, &idc):
		body.Details = map[string]any{"key": idc.Key, "recorded": idc.Recorded, "asked": idc.Asked}
	case errors.As(err, &cor):
		body.Details = map[string]string{"commit": cor.Commit.String(), "path": cor.Path}
	}
	if errors.As(err, &det) {
		body.Details = det.details
	}
	return body
}

// detailedError is a failure that carries the command's result, so --json prints it inside the
// one error object.
type detailedError struct {
	err     error
	details any
}

func (e detailedError) Error() string { return e.err.Error() }
func (e detailedError) Unwrap() error { return e.err }

func withDetails(err error, details any) error { return detailedError{err: err, details: details} }

// usageError is a command line the CLI cannot run: the message, a "did you mean", and the usage line.
type usageError struct{ msg, hint, usage string }

func (e usageError) Error() string { return e.msg }

func usageErr(err error) error { return usageError{msg: err.Error()} }

func usageErrf(format string, args ...any) error { return project.Usagef(format, args...) }

// report prints err (as JSON or text) and returns the exit code.
func report(err error, asJSON bool, stdout, stderr io.Writer) int {
	body := classify(err)
	body.Message = err.Error()
	if asJSON {
		b, _ := json.Marshal(map[string]any{"error": body})
		fmt.Fprintln(stdout, string(b))
		return body.Exit
	}
	if body.Message != "" {
		fmt.Fprintf(stderr, "git exarchos: %s\n", body.Message)
	}
	if body.Hint != "" {
		fmt.Fprintln(stderr, body.Hint)
	}
	if body.Usage != "" {
		fmt.Fprintf(stderr, "usage: %s\n", body.Usage)
	}
	return body.Exit
}
