package workflow_test

import (
	"strings"
	"testing"

	"github.com/exarchos/git-exarchos/workflow"
)

// TestCheckpointGate: with Limits.CheckpointAfter, a transition after that many events since the
// last checkpoint is refused with CHECKPOINT_REQUIRED and the command that records one; a
// checkpoint (the command's, or the PreCompact hook's hook.checkpoint) opens the gate again for as
// many events. Without the limit nothing is asked.
func TestCheckpointGate(t *testing.T) {
	limited := func() *workflow.Definition {
		d, _ := workflow.Builtin("oneshot")
		d = d.Clone()
		d.Limits.CheckpointAfter = 4
		return d
	}
	r := newRun(t, "gate", "oneshot", workflow.Init{})
	r.defn = limited()
	if r.state.SinceCheckpoint() != r.state.LastSeq || r.state.Checkpoint != nil {
		t.Fatalf("a new workflow has no checkpoint: %+v", r.state.Checkpoint)
	}
	for i := 0; r.state.SinceCheckpoint() < 4; i++ {
		r.must(workflow.AddTask{ID: "t" + string(rune('a'+i))})
	}
	rej := r.refuse(workflow.CodeCheckpointRequired, workflow.TransitionTo{Phase: "implementing"})
	if len(rej.FailedGuards) != 1 || rej.FailedGuards[0].Fix != "git exarchos checkpoint gate" || !strings.Contains(rej.Message, "limit 4") {
		t.Fatalf("refusal %+v", rej)
	}
	// transitions says so, with the command.
	for _, o := range workflow.Transitions(r.def(), r.state, r.env) {
		if o.Trigger == workflow.OnTransition && (o.Allowed || !strings.Contains(o.Blocked, "checkpoint due: ") || !strings.Contains(o.Blocked, "git exarchos checkpoint gate")) {
			t.Fatalf("transition option %+v does not show the gate", o)
		}
	}
	// Commands other than transitions are not gated; cancel is not either.
	r.must(workflow.Set{Inline: true, Assignments: []workflow.Assignment{{Path: "artifacts.plan", Value: []byte(`"the plan"`)}}})
	if _, rej := workflow.Decide(r.def(), r.state, workflow.Cancel{Reason: "x"}, r.env); rej != nil && rej.Code == workflow.CodeCheckpointRequired {
		t.Fatalf("cancel gated: %v", rej)
	}
	r.must(workflow.RecordCheckpoint{Context: "phase plan; next: implementing", Note: "plan written"})
	if r.state.Checkpoint == nil || r.state.Checkpoint.Seq != r.state.LastSeq || r.state.Checkpoint.Trigger != "command" || r.state.SinceCheckpoint() != 0 {
		t.Fatalf("checkpoint %+v (last seq %d)", r.state.Checkpoint, r.state.LastSeq)
	}
	r.to("implementing")

	// The PreCompact hook's checkpoint counts the same way.
	for r.state.SinceCheckpoint() < 4 {
		r.must(workflow.AddTask{ID: "u" + string(rune('a'+r.state.SinceCheckpoint()))})
	}
	r.refuse(workflow.CodeCheckpointRequired, workflow.TransitionTo{Phase: "completed"})
	r.append([]workflow.NewEvent{{Type: workflow.EventHookCheckpoint, Data: workflow.CheckpointData{Phase: "implementing", OpenTasks: r.state.OpenTasks(), Trigger: "auto"}}})
	if r.state.Checkpoint == nil || r.state.Checkpoint.Trigger != "auto" {
		t.Fatalf("hook checkpoint not folded: %+v", r.state.Checkpoint)
	}
	r.checkReplay()

	// No limit: never asked.
	free := newRun(t, "free", "oneshot", workflow.Init{})
	for i := 0; i < 10; i++ {
		free.must(workflow.AddTask{ID: "t" + string(rune('a'+i))})
	}
	free.must(workflow.Set{Inline: true, Assignments: []workflow.Assignment{{Path: "artifacts.plan", Value: []byte(`"the plan"`)}}})
	free.to("implementing")
}
