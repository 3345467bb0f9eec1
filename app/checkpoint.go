package app

import (
	"github.com/exarchos/git-exarchos/project"
	"github.com/exarchos/git-exarchos/views"
	"github.com/exarchos/git-exarchos/workflow"
)

// CheckpointOptions records a checkpoint (`git exarchos checkpoint`).
type CheckpointOptions struct {
	Feature string
	Note    string // what the next session should know
}

// Checkpoint records what a fresh session needs to go on: the phase, the open tasks and the
// rehydrate document as it stands now (workflow/checkpoint.go), so a limit on events since the
// last checkpoint can ask for one before the next transition.
func Checkpoint(r *Repo, o CheckpointOptions) (*project.Result, error) {
	doc, err := views.Rehydrate(r.Hook(), views.RehydrateOptions{Feature: o.Feature})
	if err != nil {
		return nil, err
	}
	return r.Execute(doc.Feature, workflow.RecordCheckpoint{Context: doc.Context, Note: o.Note})
}
