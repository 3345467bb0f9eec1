package app

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"

	"github.com/exarchos/git-exarchos/project"
	"github.com/exarchos/git-exarchos/workflow"
	"github.com/exarchos/git-exarchos/workflowdef"
)

// StageDoneOptions are `git exarchos stage done [<feature>] <stage> [--file F]`: the completion
// (file, or stdin without --file) is read only when the stage has a completion schema.
type StageDoneOptions struct {
	Feature, Stage string
	File           string
	Stdin          io.Reader
}

// StageDone completes a running stage of the fan-out the workflow is in (workflow/fanout.go). A
// stage with a completion schema hands in a payload valid against it, recorded as the inline
// artifact stage-<id>; an invalid one records nothing and reports every schema error. What the
// engine refuses (another phase, a stage cancelled by a sibling's failure, one already done) is
// its rejection, with the fix.
func StageDone(r *Repo, o StageDoneOptions) (*project.Result, error) {
	feature, st, _, err := r.ResolveState(o.Feature)
	if err != nil {
		return nil, err
	}
	def, err := r.Definition(st.Type)
	if err != nil {
		return nil, err
	}
	cmd := workflow.CompleteStage{Stage: o.Stage}
	stage, ok := def.Stage(o.Stage)
	if ok && len(stage.Tools.Completion) > 0 || o.File != "" {
		raw, err := readPayload(o.File, o.Stdin, "stage "+o.Stage+" has a completion schema: give its completion with --file <payload.json> or on stdin")
		if err != nil {
			return nil, err
		}
		var errs []workflowdef.SchemaError
		if cmd.Payload, cmd.SHA256, errs, err = checkedPayload(stage.Tools.Completion, raw); err != nil {
			return nil, err
		} else if len(errs) > 0 {
			return nil, &InvalidSubmission{Feature: feature, Phase: st.Phase, Stage: o.Stage, Errors: errs}
		}
	}
	return r.Execute(feature, cmd)
}

// readPayload reads a completion from file, or from stdin without one ("-" too), bounded by
// MaxSubmission; with neither it is a usage error saying hint.
func readPayload(file string, stdin io.Reader, hint string) ([]byte, error) {
	switch {
	case file != "" && file != "-":
		return readBounded(file, nil, MaxSubmission, "a completion payload")
	case stdin != nil:
		return readBounded("stdin", stdin, MaxSubmission, "a completion payload")
	}
	return nil, project.Usagef("%s", hint)
}

// checkedPayload validates raw against schema (none: anything goes) and returns it trimmed, with
// the SHA-256 of the bytes handed in; errs lists every way it breaks the schema.
func checkedPayload(schema, raw []byte) (payload json.RawMessage, sum string, errs []workflowdef.SchemaError, err error) {
	if len(schema) > 0 {
		if errs, err = workflowdef.ValidateAgainst(schema, raw); err != nil || len(errs) > 0 {
			return nil, "", errs, err
		}
	}
	h := sha256.Sum256(raw)
	return json.RawMessage(bytes.TrimSpace(raw)), hex.EncodeToString(h[:]), nil, nil
}
