package app

import (
	"github.com/exarchos/git-exarchos/gitstore"
	"github.com/exarchos/git-exarchos/workflow"
)

// LogOptions selects events for `git exarchos log`.
type LogOptions struct {
	Feature  string
	Types    []string
	SinceSeq int64
	Limit    int
}

// LogResult is what `log` prints.
type LogResult struct {
	Feature string           `json:"feature"`
	Head    string           `json:"head"`
	Total   int64            `json:"total"`
	Events  []workflow.Event `json:"events"`
}

// Log reads a workflow's events, filtered.
func Log(r *Repo, o LogOptions) (*LogResult, error) {
	if o.SinceSeq < 0 || o.Limit < 0 {
		return nil, Usagef("--since-seq and --limit take numbers of 0 or more")
	}
	feature, err := r.ResolveFeature(o.Feature)
	if err != nil {
		return nil, err
	}
	events, snap, err := r.Store.Events(feature, gitstore.EventFilter{Types: o.Types, SinceSeq: o.SinceSeq, Limit: o.Limit})
	if err != nil {
		return nil, err
	}
	if events == nil {
		events = []workflow.Event{}
	}
	return &LogResult{Feature: feature, Head: snap.Commit.String(), Total: snap.Events, Events: events}, nil
}
