package workflow

import "fmt"

// Checkpoints (issue 30). A checkpoint records what a fresh session needs to go on — the phase,
// the open tasks and the rehydrate document — so a compacted or restarted agent does not work from
// a lossy memory. `git exarchos checkpoint` records one (checkpoint.recorded); the PreCompact hook
// records one before Claude Code compacts the context (hook.checkpoint). A definition's
// Limits.CheckpointAfter asks for one: once that many events were recorded since the last
// checkpoint, transitions are refused with CHECKPOINT_REQUIRED until one is recorded.

// EventCheckpointRecorded is the checkpoint `git exarchos checkpoint` records.
const EventCheckpointRecorded = "checkpoint.recorded"

// CodeCheckpointRequired refuses a transition while a checkpoint is due.
const CodeCheckpointRequired = "CHECKPOINT_REQUIRED"

// RecordCheckpoint records a checkpoint: Context is the rehydrate document the caller built (the
// engine does no I/O), Note what the agent wants its next session to know.
type RecordCheckpoint struct {
	Context, Note, SessionID string
}

func (RecordCheckpoint) command() {}

// Checkpoint is the last checkpoint of a workflow: at which event, in which phase, and how.
type Checkpoint struct {
	Seq     int64  `json:"seq"`
	Phase   string `json:"phase"`
	Trigger string `json:"trigger,omitempty"` // command | manual | auto (PreCompact's)
}

// SinceCheckpoint is the number of events recorded after the last checkpoint (all of them when
// there was none).
func (s State) SinceCheckpoint() int64 {
	if s.Checkpoint == nil {
		return s.LastSeq
	}
	return s.LastSeq - s.Checkpoint.Seq
}

func (d decider) recordCheckpoint(c RecordCheckpoint) ([]NewEvent, *Rejection) {
	return one(EventCheckpointRecorded, CheckpointData{Phase: d.s.Phase, OpenTasks: d.s.OpenTasks(), SessionID: c.SessionID, Trigger: "command",
		Note: c.Note, Context: c.Context}), nil
}

// checkpointDue refuses a transition once the definition's checkpoint limit is reached.
func (d decider) checkpointDue() *Rejection {
	limit := d.def.Limits.CheckpointAfter
	if limit <= 0 || d.s.SinceCheckpoint() < int64(limit) {
		return nil
	}
	r := d.withTargets(reject(CodeCheckpointRequired, "%d events were recorded since the last checkpoint of %s (limit %d): record one before moving on", d.s.SinceCheckpoint(), d.s.Feature, limit))
	r.FailedGuards = []GuardFailure{{Guard: "checkpoint", Reason: fmt.Sprintf("%d events since the last checkpoint", d.s.SinceCheckpoint()),
		Expected: fmt.Sprintf("fewer than %d events since the last checkpoint", limit), Fix: "git exarchos checkpoint " + d.s.Feature}}
	return r
}

func (s *State) applyCheckpoint(e Event) error {
	var d CheckpointData
	if err := decode(e, &d); err != nil {
		return err
	}
	s.Checkpoint = &Checkpoint{Seq: e.Seq, Phase: s.Phase, Trigger: d.Trigger}
	return nil
}

// OpenTasks are the tasks neither completed nor failed.
func (s State) OpenTasks() []Task {
	open := []Task{}
	for _, t := range s.Tasks {
		if t.Status != TaskCompleted && t.Status != TaskFailed {
			open = append(open, t)
		}
	}
	return open
}
