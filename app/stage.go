package app

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"

	"github.com/exarchos/git-exarchos/workflow"
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
func StageDone(r *Repo, o StageDoneOptions) (*Result, error) {
	feature, err := r.ResolveFeature(o.Feature)
	if err != nil {
		return nil, err
	}
	st, _, err := r.State(feature)
	if err != nil {
		return nil, err
	}
	def, err := r.definition(st.Type)
	if err != nil {
		return nil, err
	}
	cmd := workflow.CompleteStage{Stage: o.Stage}
	stage, ok := def.Stage(o.Stage)
	if ok && len(stage.Tools.Completion) > 0 || o.File != "" {
		var raw []byte
		if o.File != "" && o.File != "-" {
			raw, err = ReadBounded(o.File, nil, MaxSubmission, "a stage's completion")
		} else if o.Stdin != nil {
			raw, err = ReadBounded("stdin", o.Stdin, MaxSubmission, "a stage's completion")
		} else {
			return nil, Usagef("stage %s has a completion schema: give its completion with --file <payload.json> or on stdin", o.Stage)
		}
		if err != nil {
			return nil, err
		}
		if len(stage.Tools.Completion) > 0 {
			if errs, err := ValidateAgainst(stage.Tools.Completion, raw); err != nil {
				return nil, err
			} else if len(errs) > 0 {
				return nil, &InvalidSubmission{Feature: feature, Phase: st.Phase, Stage: o.Stage, Errors: errs}
			}
		}
		sum := sha256.Sum256(raw)
		cmd.Payload, cmd.SHA256 = json.RawMessage(bytes.TrimSpace(raw)), hex.EncodeToString(sum[:])
	}
	return r.Execute(feature, cmd)
}
