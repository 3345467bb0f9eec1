package main

import (
	"errors"
	"fmt"
	"testing"

	"github.com/exarchos/git-exarchos/app"
	"github.com/exarchos/git-exarchos/ghclient"
	"github.com/exarchos/git-exarchos/ghevidence"
	"github.com/exarchos/git-exarchos/gitrepo"
	"github.com/exarchos/git-exarchos/gitstore"
	"github.com/exarchos/git-exarchos/hookrun"
	"github.com/exarchos/git-exarchos/project"
	"github.com/exarchos/git-exarchos/saga"
	"github.com/exarchos/git-exarchos/trust"
	"github.com/exarchos/git-exarchos/verify"
	"github.com/exarchos/git-exarchos/workflow"
)

// TestErrorTable: one example per row of errorTable, in its order. Each is wrapped the way callers
// wrap errors, must be matched by its own row first, and gets that row's code and exit code.
func TestErrorTable(t *testing.T) {
	access := &ghclient.Error{Kind: ghclient.KindBadToken, Msg: "bad token"}
	incomplete := &saga.CancelIncompleteError{Feature: "f", Result: &saga.CancelResult{Feature: "f"}}
	examples := []struct {
		err  error
		code string
	}{
		{fmt.Errorf("%w: bad input", hookrun.ErrHookBlock), "HOOK_INPUT"},
		{usageError{msg: "unknown flag --x", hint: "did you mean --y?", usage: "git exarchos z"}, "USAGE"},
		{project.Usagef("bad"), "USAGE"},
		{gitstore.ErrBadFeature, "USAGE"},
		{gitstore.ErrBadPayload, "USAGE"},
		{&workflow.Rejection{Code: workflow.CodeUnknownPhase}, workflow.CodeUnknownPhase},
		{&workflow.Rejection{Code: "GUARD_FAILED"}, "GUARD_FAILED"},
		{&trust.AgentRefusal{Command: "approve f", Variable: "CLAUDECODE"}, "AGENT_ENVIRONMENT"},
		{&app.InvalidSubmission{Phase: "research"}, "SCHEMA_INVALID"},
		{&verify.Error{Result: &verify.Result{}}, "VERIFY_FAILED"},
		{&app.IdempotencyConflict{Key: "k"}, "IDEMPOTENCY_CONFLICT"},
		{project.ErrAmbiguous, "AMBIGUOUS_FEATURE"},
		{gitstore.ErrNoRemote, "NO_REMOTE"},
		{ghevidence.ErrOtherRepository, "PR_OTHER_REPOSITORY"},
		{errors.Join(incomplete, access), "CANCEL_INCOMPLETE"},
		{incomplete, "CANCEL_INCOMPLETE"},
		{errPushRejected, "PUSH_REJECTED"},
		{gitstore.ErrConcurrent, "CONCURRENT_UPDATE"},
		{gitrepo.ErrLocked, "CONCURRENT_UPDATE"},
		{access, string(ghclient.KindBadToken)},
		{&ghclient.Error{Kind: ghclient.KindUnreachable, Msg: "down"}, string(ghclient.KindUnreachable)},
		{ghevidence.ErrNotLinked, "PR_NOT_LINKED"},
		{ghevidence.ErrNoPullRequest, "PR_NOT_FOUND"},
		{ghevidence.ErrNoRemote, "NO_GITHUB_REMOTE"},
		{errValidationFailed, "VALIDATION_FAILED"},
		{&app.RunbookFailed{Result: &app.RunbookResult{Steps: []app.RunbookStep{{Index: 1}}}}, "RUNBOOK_FAILED"},
		{errFsckFailed, "FSCK_FAILED"},
		{errLintFailed, "LINT_FAILED"},
		{errDoctorFailed, "DOCTOR_FAILED"},
		{errSyncFailed, "SYNC_FAILED"},
		{gitstore.ErrNotFound, "NOT_FOUND"},
		{gitstore.ErrExists, "EXISTS"},
		{gitrepo.ErrNotRepository, "NOT_A_REPOSITORY"},
		{gitrepo.ErrUnsupportedRepo, "UNSUPPORTED_REPOSITORY"},
		{gitrepo.ErrNoIdentity, "NO_IDENTITY"},
		{&gitstore.CorruptError{Path: "state.json"}, "CORRUPT"},
		{errors.New("anything else"), "ERROR"},
	}
	if len(examples) != len(errorTable) {
		t.Fatalf("%d examples for %d rows: every row needs one", len(examples), len(errorTable))
	}
	for i, ex := range examples {
		err := fmt.Errorf("open workflow: %w", withDetails(ex.err, "details"))
		first := -1
		for j, row := range errorTable {
			if row.match(err) {
				first = j
				break
			}
		}
		if first != i {
			t.Errorf("row %d (%s): example %v is matched first by row %d", i, ex.code, ex.err, first)
			continue
		}
		body := classify(err)
		if body.Code != ex.code || body.Exit != errorTable[i].exit {
			t.Errorf("row %d: %v classified %s/%d, want %s/%d", i, ex.err, body.Code, body.Exit, ex.code, errorTable[i].exit)
		}
	}
}

// TestExitCodeNotFromText: a message that reads like a usage error is not one; only its kind counts.
func TestExitCodeNotFromText(t *testing.T) {
	for _, msg := range []string{`Required flag "type" not set`, "flag provided but not defined: -x", "usage: git exarchos", "GUARD_FAILED"} {
		if b := classify(errors.New(msg)); b.Exit != exitError || b.Code != "ERROR" {
			t.Errorf("%q classified %s/%d, want ERROR/1", msg, b.Code, b.Exit)
		}
	}
}
