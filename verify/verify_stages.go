package verify

import (
	"strings"

	"github.com/exarchos/git-exarchos/workflow"
	"github.com/exarchos/git-exarchos/workflowdef"
)

// verify and the stages of a fan-out (issue 30). `stage done` of a stage whose base definition
// has a completion schema records, in the same write, stage.completed and the payload as the
// inline artifact stage-<id>, valid against the schema. A stage.completed written past the CLI
// (plumbing, a hand-built commit) can carry no payload, or one the schema refuses: the join would
// then count a stage that handed in nothing. stageAudit finds both while verify replays the log.

// stageAudit is what verify checks of stage completions while it replays a workflow.
type stageAudit struct {
	def *workflow.Definition
	add func(workflow.Event, string, string, ...any)
	// pending is a completion that took effect and needs its payload in the next event.
	pending *workflow.Event
	stage   workflow.Stage
}

// after runs once each event took effect (s is the state after it).
func (a *stageAudit) after(s *workflow.State, e workflow.Event) {
	if a.pending != nil {
		p, stage := *a.pending, a.stage
		a.pending = nil
		var d workflow.ArtifactData
		if e.Type != workflow.EventArtifactRecorded || e.DecodeData(&d) != nil || d.Name != workflow.StageArtifact(stage.ID) || !d.Inline {
			a.add(p, "stage", "stage %s is recorded completed without its completion (the inline artifact %s in the same write): its completion schema was never checked", stage.ID, workflow.StageArtifact(stage.ID))
		} else if errs, err := workflowdef.ValidateAgainst(stage.Tools.Completion, []byte(d.Text)); err != nil || len(errs) > 0 {
			a.add(p, "stage", "stage %s is recorded completed with a completion its schema refuses: %s", stage.ID, schemaProblems(errs, err))
		}
	}
	if e.Type != workflow.EventStageCompleted {
		return
	}
	var d workflow.StageData
	if e.DecodeData(&d) != nil || s.Fanout == nil || s.Fanout.Stages[d.Stage].Status != workflow.StageCompleted {
		return // without effect: the fold records why
	}
	if stage, ok := a.def.Stage(d.Stage); ok && len(stage.Tools.Completion) > 0 {
		a.pending, a.stage = &e, stage
	}
}

// end reports a completion that was the log's last event.
func (a *stageAudit) end() {
	if a.pending != nil {
		a.after(&workflow.State{}, workflow.Event{})
	}
}

func schemaProblems(errs []workflowdef.SchemaError, err error) string {
	if err != nil {
		return err.Error()
	}
	out := make([]string, len(errs))
	for i, e := range errs {
		out[i] = strings.TrimSpace(e.Path + " " + e.Message)
	}
	return strings.Join(out, "; ")
}
