package app

import (
	"fmt"
	"io"
	"strings"

	"github.com/exarchos/git-exarchos/project"
	"github.com/exarchos/git-exarchos/workflow"
	"github.com/exarchos/git-exarchos/workflowdef"
)

// SubmitOptions are `git exarchos submit <feature> <phase> [--file F]` (stdin without --file).
type SubmitOptions struct {
	Feature, Phase string
	File           string
	Stdin          io.Reader
}

// InvalidSubmission is a payload the schema refuses, with every error.
type InvalidSubmission struct {
	Feature, Phase string
	Errors         []workflowdef.SchemaError
	// Stage is the fan-out stage the completion was for ("": the phase's own).
	Stage string
}

func (e *InvalidSubmission) Error() string {
	var b strings.Builder
	if e.Stage != "" {
		fmt.Fprintf(&b, "the completion of stage %s does not match its schema (%d error(s)); fix the payload and hand it in again with git exarchos stage done %s %s --file <payload.json>", e.Stage, len(e.Errors), e.Feature, e.Stage)
	} else {
		fmt.Fprintf(&b, "the completion of %s does not match its schema (%d error(s)); fix the payload and submit again with git exarchos submit %s %s --file <payload.json>", e.Phase, len(e.Errors), e.Feature, e.Phase)
	}
	for _, se := range e.Errors {
		p := se.Path
		if p == "" {
			p = "(document)"
		}
		fmt.Fprintf(&b, "\n  %s: %s", p, se.Message)
	}
	return b.String()
}

// Submit validates a completion payload against the phase's schema and records it (an event and
// an inline artifact). An invalid payload records nothing and reports every schema error.
func Submit(r *Repo, o SubmitOptions) (*project.Result, error) {
	feature, st, _, err := r.ResolveState(o.Feature)
	if err != nil {
		return nil, err
	}
	raw, err := readPayload(o.File, o.Stdin, "give the payload with --file <payload.json> or on stdin")
	if err != nil {
		return nil, err
	}
	def, err := r.Definition(st.Type)
	if err != nil {
		return nil, err
	}
	if _, ok := def.Phase(o.Phase); !ok {
		return nil, project.Usagef("the %s definition has no phase %q: choose one of %s", def.Type, o.Phase, strings.Join(def.PhaseIDs(), ", "))
	}
	payload, sum, errs, err := checkedPayload(def.PhaseEnvelope(o.Phase).Completion, raw)
	if err != nil {
		return nil, err
	} else if len(errs) > 0 {
		return nil, &InvalidSubmission{Feature: feature, Phase: o.Phase, Errors: errs}
	}
	return r.Execute(feature, workflow.SubmitCompletion{Phase: o.Phase, Payload: payload, SHA256: sum})
}
