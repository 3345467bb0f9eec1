package gitstore

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/exarchos/git-exarchos/gitrepo"
	"strings"

	"github.com/exarchos/git-exarchos/workflow"
)

// Problem is one finding of Verify.
type Problem struct {
	Feature string `json:"feature"`
	Commit  string `json:"commit"`
	Path    string `json:"path"`
	Message string `json:"message"`
	// Fix is a command that repairs it, when one is known.
	Fix string `json:"fix,omitempty"`
}

// Verify checks a workflow's head commit from scratch: the format marker, every segment parses, seq
// is dense, ids are unique and match the id index, and the snapshot equals the fold of all events
// with p (skipped when the snapshot came from another projector version). It returns every
// problem found rather than stopping at the first.
//
// An object that cannot be read because a concurrent `git gc`/`repack` moved or briefly pruned it
// is not corruption: the ref is read again and the check starts over (retryTransient), and an
// unreadable object is reported only when it stays so.
func (s *Store) Verify(feature string, p Projector) ([]Problem, error) {
	if err := ValidateFeature(feature); err != nil {
		return nil, err
	}
	var problems []Problem
	var hard error
	s.retryTransient(func() error {
		var transient error
		problems, transient, hard = s.verifyOnce(feature, p)
		return transient
	})
	if hard != nil {
		return nil, hard
	}
	return problems, nil
}

// verifyOnce is one pass of Verify. transient is the first read failure a concurrent gc could
// explain (the problems include it, for when it stays); hard is an error that is not a finding.
func (s *Store) verifyOnce(feature string, p Projector) (problems []Problem, transient, hard error) {
	commit, ok, err := s.git.Ref(RefName(feature))
	if err != nil {
		return nil, nil, err
	}
	if !ok {
		return nil, nil, fmt.Errorf("%w: %s", ErrNotFound, feature)
	}
	problems, transient = s.verifyCommit(feature, commit, p)
	return problems, transient, nil
}

// verifyCommit checks one workflow commit from scratch (see Verify); with p nil the snapshot's
// state is not compared with the fold.
func (s *Store) verifyCommit(feature string, commit gitrepo.Hash, p Projector) (problems []Problem, transient error) {
	add := func(path, format string, args ...any) {
		problems = append(problems, Problem{Feature: feature, Commit: commit.String(), Path: path, Message: fmt.Sprintf(format, args...)})
	}
	// unreadable records a read failure, remembering whether a concurrent gc could explain it.
	unreadable := func(path, what string, err error) {
		if transient == nil && isTransient(err) {
			transient = err
		}
		add(path, "%s: %v", what, err)
	}
	c, err := s.git.GetCommit(commit)
	if err != nil {
		unreadable("", "commit unreadable", err)
		return problems, transient
	}
	root, err := s.git.GetTree(c.Tree)
	if err != nil {
		unreadable("", "tree unreadable", err)
		return problems, transient
	}
	if e, ok := root.Entry("format"); !ok {
		add("format", "missing")
	} else if b, err := s.readBlob(e.Hash); err != nil {
		unreadable("format", "unreadable", err)
	} else if strings.TrimSpace(string(b)) != fmt.Sprint(FormatVersion) {
		add("format", "is %q, want %d", strings.TrimSpace(string(b)), FormatVersion)
	}
	var snap snapshotFile
	if e, ok := root.Entry("state.json"); !ok {
		add("state.json", "missing")
	} else if b, err := s.readBlob(e.Hash); err != nil {
		unreadable("state.json", "unreadable", err)
	} else if err := json.Unmarshal(b, &snap); err != nil {
		add("state.json", "does not parse: %v", err)
	}
	evEntry, ok := root.Entry("events")
	if !ok {
		add("events", "missing")
		return problems, transient
	}
	evTree, err := s.git.GetTree(evEntry.Hash)
	if err != nil {
		unreadable("events", "unreadable", err)
		return problems, transient
	}
	if snap.EventsTree != "" && snap.EventsTree != evEntry.Hash.String() {
		add("state.json", "snapshot names events tree %s, commit has %s", snap.EventsTree, evEntry.Hash)
	}

	// Every segment, in order; keep going past a bad one so all damage is reported.
	var all []workflow.Event
	ids := map[string]int64{}
	seqOK := true
	for i, e := range evTree.Entries {
		path := "events/" + e.Name
		if e.Name != segmentName(int64(i)) {
			add(path, "unexpected segment name, want %s", segmentName(int64(i)))
			seqOK = false
			continue
		}
		b, err := s.readBlob(e.Hash)
		if err != nil {
			unreadable(path, "unreadable", err)
			seqOK = false
			continue
		}
		lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
		if i < len(evTree.Entries)-1 && len(lines) != SegmentSize {
			add(path, "%d events in a segment that is not the last, want %d", len(lines), SegmentSize)
		}
		for n, line := range lines {
			var ev workflow.Event
			if err := json.Unmarshal([]byte(line), &ev); err != nil {
				add(fmt.Sprintf("%s line %d", path, n+1), "does not parse: %v", err)
				seqOK = false
				continue
			}
			if want := int64(len(all)) + 1; ev.Seq != want {
				add(fmt.Sprintf("%s line %d", path, n+1), "seq %d, want %d", ev.Seq, want)
				seqOK = false
			}
			if prev, dup := ids[ev.ID]; dup {
				add(fmt.Sprintf("%s line %d", path, n+1), "id %q already used by seq %d", ev.ID, prev)
			}
			ids[ev.ID] = ev.Seq
			all = append(all, ev)
		}
	}
	if snap.Events != int64(len(all)) {
		add("state.json", "snapshot counts %d events, the segments hold %d", snap.Events, len(all))
	}
	if n := len(all); n > 0 && snap.LastClock < all[n-1].Clock {
		add("state.json", "snapshot clock %d is behind the last event's clock %d", snap.LastClock, all[n-1].Clock)
	}
	for i := 1; i < len(all); i++ {
		if workflow.Less(all[i], all[i-1]) {
			add("events", "seq %d (clock %d, id %s) is out of canonical order", all[i].Seq, all[i].Clock, all[i].ID)
			break
		}
	}
	problems = append(problems, s.verifyKeys(feature, commit, root, ids, unreadable)...)
	if seqOK && p != nil && snap.Projector == p.Version() {
		want, err := p.Project(nil, all)
		if err != nil {
			add("state.json", "fold failed: %v", err)
		} else if !bytes.Equal(want, snap.State) {
			add("state.json", "snapshot differs from the fold of the events (run `git exarchos fsck --json` to see both)")
		}
	}
	if snap.Digest != "" {
		if kEntry, _ := root.Entry("keys"); snap.Digest != snap.digest(kEntry.Hash) {
			add("state.json", "snapshot digest does not match its content: it was edited after it was written (readers fold the events instead)")
		}
	}
	return problems, transient
}

func (s *Store) verifyKeys(feature string, commit gitrepo.Hash, root *gitrepo.Tree, ids map[string]int64, unreadable func(path, what string, err error)) []Problem {
	var problems []Problem
	add := func(path, format string, args ...any) {
		problems = append(problems, Problem{Feature: feature, Commit: commit.String(), Path: path, Message: fmt.Sprintf(format, args...)})
	}
	e, ok := root.Entry("keys")
	if !ok {
		add("keys", "id index missing")
		return problems
	}
	keys, err := s.git.GetTree(e.Hash)
	if err != nil {
		unreadable("keys", "unreadable", err)
		return problems
	}
	indexed := map[string]int64{}
	for _, b := range keys.Entries {
		raw, err := s.readBlob(b.Hash)
		if err != nil {
			unreadable("keys/"+b.Name, "unreadable", err)
			continue
		}
		for n, line := range strings.Split(strings.TrimSuffix(string(raw), "\n"), "\n") {
			var key string
			var seq int64
			if _, err := fmt.Sscanf(line, "%64s %d", &key, &seq); err != nil || !strings.HasPrefix(key, b.Name) {
				add(fmt.Sprintf("keys/%s line %d", b.Name, n+1), "bad index line %q", line)
				continue
			}
			indexed[key] = seq
		}
	}
	callerIDs := 0
	for id, seq := range ids {
		if IsGeneratedID(id) {
			continue // generated ids are not indexed: they cannot collide
		}
		callerIDs++
		if got, ok := indexed[idKey(id)]; !ok {
			add("keys", "event id %q (seq %d) is not indexed", id, seq)
		} else if got != seq {
			add("keys", "event id %q indexed at seq %d, stored at %d", id, got, seq)
		}
	}
	if len(indexed) > callerIDs {
		add("keys", "%d index entries for %d events with caller-given ids", len(indexed), callerIDs)
	}
	return problems
}

// IsCorrupt reports whether err is a CorruptError.
func IsCorrupt(err error) bool {
	var c *CorruptError
	return errors.As(err, &c)
}

// StaleFiles lists the lock and temporary files a killed writer left in the repository (fsck
// reports them; `fsck --fix` removes those no live process holds).
func (s *Store) StaleFiles() ([]gitrepo.StaleFile, error) { return s.git.StaleFiles() }
