package hookrun

// The writes of workflow refs, with their moves followed. Every write this process makes goes
// through here (the engine's, the hook's own) or hands its moves to Moved itself (sync's, through
// engine.Follow): the store's call with trust's fold (trust.Repo.Projector), then the move its
// result reports handed to Moved, so the hooks' branch index and the controls' watch follow it.
// The store calls nobody back: a write's road runs one way, and its one callback is the decider.

import (
	"github.com/exarchos/git-exarchos/gitstore"
	"github.com/exarchos/git-exarchos/workflow"
)

// Update is gitstore.Store.Update with trust's fold, its move followed.
func (r *Repo) Update(feature string, decide gitstore.Decider) (*gitstore.Result, error) {
	before := r.BeforeMoves()
	res, err := r.Store.Update(feature, r.Projector(), decide)
	if err == nil {
		r.Moved(before, res.Moved)
	}
	return res, err
}

// Append is Update with a fixed list of events.
func (r *Repo) Append(feature string, events ...workflow.NewEvent) (*gitstore.Result, error) {
	return r.Update(feature, func(*gitstore.Snapshot) ([]workflow.NewEvent, error) { return events, nil })
}

// Create is gitstore.Store.Create with trust's fold, its move followed.
func (r *Repo) Create(feature string, events []workflow.NewEvent) (*gitstore.Result, error) {
	before := r.BeforeMoves()
	res, err := r.Store.Create(feature, r.Projector(), events)
	if err == nil {
		r.Moved(before, res.Moved)
	}
	return res, err
}
