package workflow

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// ProjectorVersion names the fold's semantics. A stored state.json written by another version is
// not trusted: the reader folds the events again. Bump it whenever Apply or State changes.
const ProjectorVersion = "workflow/3"

// DecodeState decodes a snapshot written by Project; nil, empty or null is the initial state.
func DecodeState(snapshot json.RawMessage) (State, error) {
	var s State
	b := bytes.TrimSpace(snapshot)
	if len(b) == 0 || string(b) == "null" {
		return s, nil
	}
	if err := json.Unmarshal(b, &s); err != nil {
		return State{}, fmt.Errorf("decode state snapshot: %w", err)
	}
	return s, nil
}

// Project folds events onto a snapshot (nil for none) and returns the new snapshot. Folding all
// events at once and folding them in chunks give byte-identical snapshots.
func Project(snapshot json.RawMessage, events []Event) (json.RawMessage, error) {
	s, err := DecodeState(snapshot)
	if err != nil {
		return nil, err
	}
	for _, e := range events {
		s.apply(e) // s is freshly decoded and owned here, so in place is safe (and linear)
	}
	return json.Marshal(s)
}
