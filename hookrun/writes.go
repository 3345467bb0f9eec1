package hookrun

// The writes of workflow refs, with their moves followed. Every write this process makes goes
// through here (the engine's, the hook's own; sync's through Following, engine.Follow): the store's
// call with trust's fold (trust.Repo.Projector), then the move its
// result reports handed to Moved, so the hooks' branch index and the controls' watch follow it.
// The store calls nobody back: a write's road runs one way, and its one callback is the decider.

import (
	"github.com/exarchos/git-exarchos/gitstore"
	"github.com/exarchos/git-exarchos/workflow"
)

// Following runs a write that moves workflow refs (the store's, or a job's such as sync's) between
// BeforeMoves and Moved, handing the moves its result reports (all of them, also when it failed
// after some) to the hooks' branch index and controls. The result is returned as the write gave
// it.
func Following[R interface{ RefMoves() []*gitstore.Move }](r *Repo, write func() (R, error)) (R, error) {
	before := r.BeforeMoves()
	res, err := write()
	r.Moved(before, res.RefMoves()...)
	return res, err
}

// Update is gitstore.Store.Update with trust's fold, its move followed.
func (r *Repo) Update(feature string, decide gitstore.Decider) (*gitstore.Result, error) {
	return Following(r, func() (*gitstore.Result, error) { return r.Store.Update(feature, r.Projector(), decide) })
}

// Append is gitstore.Store.Append with trust's fold, its move followed.
func (r *Repo) Append(feature string, events ...workflow.NewEvent) (*gitstore.Result, error) {
	return Following(r, func() (*gitstore.Result, error) { return r.Store.Append(feature, r.Projector(), events...) })
}

// Create is gitstore.Store.Create with trust's fold, its move followed.
func (r *Repo) Create(feature string, events []workflow.NewEvent) (*gitstore.Result, error) {
	return Following(r, func() (*gitstore.Result, error) { return r.Store.Create(feature, r.Projector(), events) })
}
