package views

import "github.com/exarchos/git-exarchos/hooks"

// RehydrateOptions names the workflow; empty takes the one bound to the current branch, or the only
// active one.
type RehydrateOptions struct{ Feature string }

// RehydrateResult is what `rehydrate` prints: the same context document the SessionStart hook
// gives a new Claude Code session.
type RehydrateResult struct {
	Feature string `json:"feature"`
	Phase   string `json:"phase"`
	Context string `json:"context"`
}

// Rehydrate builds the context document of a workflow for a fresh session.
func Rehydrate(r *Repo, o RehydrateOptions) (*RehydrateResult, error) {
	feature, err := r.ResolveFeature(o.Feature)
	if err != nil {
		return nil, err
	}
	w, err := r.Bound(feature)
	if err != nil {
		return nil, err
	}
	w.Notes = r.TrustNotes()
	return &RehydrateResult{Feature: feature, Phase: w.State.Phase, Context: hooks.ContextDocument(w, r.Summary(w))}, nil
}
