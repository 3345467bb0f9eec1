package views

import (
	"slices"
	"strings"

	"github.com/exarchos/git-exarchos/gitstore"
	"github.com/exarchos/git-exarchos/project"
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
		return nil, project.Usagef("--since-seq and --limit take numbers of 0 or more")
	}
	feature, err := r.ResolveFeature(o.Feature)
	if err != nil {
		return nil, err
	}
	// --limit keeps the newest events, as git log -n does: the whole selection is read, then cut.
	events, snap, err := r.Store.Events(feature, gitstore.EventFilter{Types: o.Types, SinceSeq: o.SinceSeq})
	if err != nil {
		return nil, err
	}
	if len(events) == 0 {
		if r := unknownTypes(o.Types); r != nil {
			return nil, r
		}
	}
	if o.Limit > 0 && len(events) > o.Limit {
		events = events[len(events)-o.Limit:]
	}
	if events == nil {
		events = []workflow.Event{}
	}
	return &LogResult{Feature: feature, Head: snap.Commit.String(), Total: snap.Events, Events: events}, nil
}

// unknownTypes refuses, when nothing matched, a --type that names no event type this version
// knows, with the one it most likely meant ("transitioned" is workflow.transitioned). A type the
// engine does not know is still accepted where events of it exist (custom events are kept).
func unknownTypes(types []string) error {
	known := append(workflow.EventTypes(), workflow.EventToolDenied, workflow.EventGuardFailed, workflow.EventHookCheckpoint,
		workflow.EventHookSessionEnded, workflow.EventHookTaskCompleted, workflow.EventHookSessionBound, workflow.EventHookJournalFlushed)
	for _, t := range types {
		if slices.Contains(known, t) {
			continue
		}
		hint := ""
		for _, k := range known {
			if strings.HasSuffix(k, "."+t) {
				hint = k
				break
			}
		}
		if hint == "" {
			hint = workflow.Closest(known, t)
		}
		if hint != "" {
			return project.Usagef("no events of type %q: did you mean %s?", t, hint)
		}
	}
	return nil
}
