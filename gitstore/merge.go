package gitstore

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/exarchos/git-exarchos/gitrepo"
	"sort"
	"strconv"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"

	"github.com/exarchos/git-exarchos/workflow"
)

// Integration actions: what Integrate did to the local ref.
const (
	Created     = "created"      // the workflow was only on the other side: the ref now points at its tip
	FastForward = "fast-forward" // the local tip was an ancestor of theirs
	Merged      = "merged"       // both sides had events the other lacked: a merge commit was written
	UpToDate    = "up-to-date"   // same tip
	Ahead       = "ahead"        // theirs is an ancestor of the local tip: nothing to take
)

// Integration is the outcome of bringing another tip of a workflow into the local ref.
type Integration struct {
	Feature string       `json:"feature"`
	Action  string       `json:"action"`
	Old     gitrepo.Hash `json:"old"` // zero when the workflow was created
	New     gitrepo.Hash `json:"new"`
	// Added counts events the local log did not have before.
	Added int64 `json:"added"`
}

// Moved is the move of the local ref this integration made; nil when it made none (up to date,
// ahead).
func (i *Integration) Moved() *Move {
	if i == nil || i.Old == i.New {
		return nil
	}
	return &Move{Feature: i.Feature, From: i.Old, To: i.New}
}

// Integrate brings theirs (a commit of the same workflow, e.g. a remote-tracking tip) into
// refs/exarchos/<feature>: create the ref, fast-forward it, or write a merge commit whose events
// are the union of both logs by id in canonical order, with both tips as parents. The ref moves by
// compare-and-swap; a concurrent local write makes it start over. theirs is parsed and checked
// before the ref moves, so a damaged remote log never becomes the local one.
func (s *Store) Integrate(feature string, p Projector, theirs gitrepo.Hash, label string) (*Integration, error) {
	if err := ValidateFeature(feature); err != nil {
		return nil, err
	}
	ref := RefName(feature)
	for attempt := 0; attempt < maxAttempts; attempt++ {
		local, ok, err := s.git.Ref(ref)
		if err != nil {
			return nil, err
		}
		res := &Integration{Feature: feature, Old: local, New: theirs}
		var b *builder
		switch {
		case ok && local == theirs:
			res.Action = UpToDate
			return res, nil
		case !ok:
			th, err := s.parseRetry(feature, theirs)
			if err != nil {
				return nil, err
			}
			res.Action, res.Added = Created, th.snap.Events
		default:
			if anc, err := s.isAncestor(theirs, local); err != nil {
				return nil, err
			} else if anc {
				res.Action, res.New = Ahead, local
				return res, nil
			}
			lh, err := s.parseRetry(feature, local)
			if err != nil {
				return nil, err
			}
			th, err := s.parseRetry(feature, theirs)
			if err != nil {
				return nil, err
			}
			if anc, err := s.isAncestor(local, theirs); err != nil {
				return nil, err
			} else if anc {
				res.Action, res.Added = FastForward, th.snap.Events-lh.snap.Events
				break
			}
			b = newBuilder(s)
			var merged *mergeOutcome
			err = s.retryTransient(func() error {
				merged, err = b.merge(lh, th, p, label)
				return err
			})
			if err != nil {
				return nil, err
			}
			res.Action, res.New, res.Added = Merged, merged.commit, merged.events-lh.snap.Events
		}
		s.logRefWrite(ref, res.New)
		err = s.git.UpdateRef(ref, res.New, local)
		if errors.Is(err, gitrepo.ErrStale) {
			backoff(attempt)
			continue
		}
		if err != nil {
			return nil, err
		}
		if b != nil {
			if err := b.ensureDurable(); err != nil {
				return nil, err
			}
		}
		return res, nil
	}
	return nil, fmt.Errorf("%w: %s changed %d times while this call tried to merge; run it again", ErrConcurrent, ref, maxAttempts)
}

func (s *Store) parseRetry(feature string, commit gitrepo.Hash) (*head, error) {
	var h *head
	err := s.retryTransient(func() error {
		var err error
		h, err = s.parseHead(feature, commit)
		return err
	})
	return h, err
}

// Reachable returns every commit reachable from the tips (the tips included), read in process:
// one walk answers many "is this commit in the history" questions.
func (s *Store) Reachable(tips ...string) (map[string]bool, error) {
	seen := map[string]bool{}
	var queue []gitrepo.Hash
	for _, t := range tips {
		if !seen[t] {
			seen[t] = true
			h, ok := gitrepo.ParseHash(t)
			if !ok {
				return nil, fmt.Errorf("%q is not a commit id", t)
			}
			queue = append(queue, h)
		}
	}
	for len(queue) > 0 {
		h := queue[0]
		queue = queue[1:]
		c, err := s.git.GetCommit(h)
		if err != nil {
			return nil, fmt.Errorf("read commit %s: %w", h, err)
		}
		for _, p := range c.Parents {
			if !seen[p.String()] {
				seen[p.String()] = true
				queue = append(queue, p)
			}
		}
	}
	return seen, nil
}

// MergeCommits writes (without moving any ref) the merge commit of two tips of a workflow and
// returns it with its snapshot: what Integrate writes when the logs diverged.
func (s *Store) MergeCommits(feature string, p Projector, ours, theirs gitrepo.Hash) (gitrepo.Hash, *Snapshot, error) {
	lh, err := s.parseRetry(feature, ours)
	if err != nil {
		return gitrepo.ZeroHash, nil, err
	}
	th, err := s.parseRetry(feature, theirs)
	if err != nil {
		return gitrepo.ZeroHash, nil, err
	}
	b := newBuilder(s)
	m, err := b.merge(lh, th, p, theirs.String())
	if err != nil {
		return gitrepo.ZeroHash, nil, err
	}
	return m.commit, m.snap, nil
}

type mergeOutcome struct {
	commit gitrepo.Hash
	events int64
	snap   *Snapshot
}

// merge writes the commit that joins ours and theirs: every event of either side once, in
// canonical order with seq renumbered densely, segments and id-index buckets rebuilt (objects that
// already exist, such as the untouched leading segments, are not written again), and the snapshot
// folded from scratch, so every clone that merges the same two logs writes the same state.json.
func (b *builder) merge(ours, theirs *head, p Projector, label string) (*mergeOutcome, error) {
	a, c, err := b.s.readBoth(ours, theirs)
	if err != nil {
		return nil, err
	}
	if err := sameOrigin(ours, theirs, a, c, label); err != nil {
		return nil, err
	}
	events, err := unionEvents(a, c)
	if err != nil {
		return nil, err
	}
	root, sf, err := b.writeLog(ours.feature, p, events)
	if err != nil {
		return nil, err
	}
	sig, err := b.s.git.Signature(b.s.Now())
	if err != nil {
		return nil, err
	}
	var info Trailers
	json.Unmarshal(sf.State, &info) // phase, type and branch
	n := int64(len(events))
	info.Events = n
	msg := info.Message(fmt.Sprintf("%s: merge %s (%d + %d events → %d)", ours.feature, label, ours.snap.Events, theirs.snap.Events, n))
	commit, err := b.putCommitObject(sig, root, []gitrepo.Hash{ours.commit, theirs.commit}, msg)
	if err != nil {
		return nil, err
	}
	return &mergeOutcome{commit: commit, events: n, snap: &Snapshot{Feature: ours.feature, Commit: commit, Events: n, LastClock: sf.LastClock, State: sf.State}}, nil
}

// readBoth reads the events of two heads of one workflow. Their segments that are the same blob
// hold the same events, so theirs are skipped; blobs are read in turn (go-git's storage is not
// safe for concurrent use) and parsed in parallel.
func (s *Store) readBoth(ours, theirs *head) ([]logEvent, []logEvent, error) {
	type job struct {
		h    *head
		idx  int64
		raw  []byte
		evs  []logEvent
		err  error
		mine bool
	}
	var jobs []*job
	for _, h := range []*head{ours, theirs} {
		for i := int64(0); i < segmentCount(h.snap.Events); i++ {
			name := segmentName(i)
			entry, ok := h.events.Entry(name)
			if !ok {
				return nil, nil, &CorruptError{Commit: h.commit, Path: "events/" + name, Reason: "segment missing"}
			}
			if h == theirs {
				if o, ok := ours.events.Entry(name); ok && o.Hash == entry.Hash {
					continue
				}
			}
			raw, err := s.readBlob(entry.Hash)
			if err != nil {
				return nil, nil, err
			}
			jobs = append(jobs, &job{h: h, idx: i, raw: raw, mine: h == ours})
		}
	}
	gitrepo.Parallel(len(jobs), 2, func(n int) {
		j := jobs[n]
		want := int64(SegmentSize)
		if last := segmentCount(j.h.snap.Events) - 1; j.idx == last {
			want = j.h.snap.Events - last*SegmentSize
		}
		evs, err := parseSegment(j.h.commit, "events/"+segmentName(j.idx), j.raw, j.idx*SegmentSize+1, want)
		if err != nil {
			j.err = err
			return
		}
		lines := bytes.Split(bytes.TrimSuffix(j.raw, []byte("\n")), []byte("\n"))
		j.evs = make([]logEvent, len(evs))
		for i := range evs {
			j.evs[i] = logEvent{Event: evs[i], raw: lines[i]}
		}
	})
	var a, c []logEvent
	for _, j := range jobs {
		if j.err != nil {
			return nil, nil, j.err
		}
		if j.mine {
			a = append(a, j.evs...)
		} else {
			c = append(c, j.evs...)
		}
	}
	return a, c, nil
}

// ErrSeparateStarts means two logs under one workflow id do not share their first event: two
// clones each started a workflow with that id. They are two workflows, and are not merged.
var ErrSeparateStarts = errors.New("two workflows were started under one id")

// sameOrigin checks that two logs of a workflow grew from one start. Every copy of a workflow
// shares its first event (the start, clock 1, written before anything could diverge), so logs
// whose first events differ were started separately; merging them would fold one start over the
// other and silently change the losing side's type.
func sameOrigin(ours, theirs *head, a, c []logEvent, label string) error {
	if len(a) == 0 || len(c) == 0 || a[0].ID == c[0].ID {
		return nil
	}
	// readBoth skips their segments that are the same blob as ours: then c does not start at
	// their first event, and their first segment is ours.
	first := segmentName(0)
	if o, ok := ours.events.Entry(first); ok {
		if t, ok := theirs.events.Entry(first); ok && o.Hash == t.Hash {
			return nil
		}
	}
	describe := func(e logEvent) string {
		var d workflow.StartedData
		e.DecodeData(&d)
		return fmt.Sprintf("type %s, started by %s at %s", d.Type, e.Actor, e.Time.UTC().Format("2006-01-02 15:04:05Z"))
	}
	f := ours.feature
	return fmt.Errorf("%w: %q here (%s) and %q on %s (%s) are different workflows; neither was changed. "+
		"To keep theirs under the id and yours under refs/exarchos-duplicates/: "+
		"`git update-ref refs/exarchos-duplicates/%s %s && git update-ref %s %s %s`; "+
		"to keep yours, run that on the other clone; then `git exarchos sync`",
		ErrSeparateStarts, f, describe(a[0]), f, label, describe(c[0]),
		f, ours.commit, RefName(f), theirs.commit, ours.commit)
}

// logEvent is an event with the line it was read from, so that writing it again (with a new
// seq) keeps its bytes, unknown fields included, without encoding it again.
type logEvent struct {
	workflow.Event
	raw []byte
}

// unionEvents is the merged log: each id once, in canonical order (workflow.Less), seq from 1.
// When both sides hold different events under one id (two writers chose the same idempotency key
// independently), the same copy is kept under the id whichever side is ours, and the other is kept
// whole inside a workflow.key-collided event, whose id and clock derive from its content, so every
// clone that meets the collision writes the same record once and the fold lists it as a conflict.
func unionEvents(a, b []logEvent) ([]logEvent, error) {
	byID := make(map[string]int, len(a)+len(b))
	out := make([]logEvent, 0, len(a)+len(b))
	var lost []logEvent
	for _, side := range [][]logEvent{a, b} {
		for _, e := range side {
			i, ok := byID[e.ID]
			if !ok {
				byID[e.ID] = len(out)
				out = append(out, e)
				continue
			}
			if sameEvent(e.Event, out[i].Event) {
				continue
			}
			if preferred(e.Event, out[i].Event) {
				out[i], e = e, out[i]
			}
			lost = append(lost, e)
		}
	}
	for _, e := range lost {
		rec, err := collisionRecord(e.Event)
		if err != nil {
			return nil, err
		}
		if _, ok := byID[rec.ID]; !ok {
			byID[rec.ID] = len(out)
			out = append(out, logEvent{Event: rec})
		}
	}
	sort.Slice(out, func(i, j int) bool { return workflow.Less(out[i].Event, out[j].Event) })
	for i := range out {
		out[i].Seq = int64(i + 1)
	}
	return out, nil
}

// sameEvent reports whether two stored events are one: everything but seq (which a merge renumbers).
func sameEvent(x, y workflow.Event) bool {
	x.Seq, y.Seq = 0, 0
	bx, err1 := json.Marshal(x)
	by, err2 := json.Marshal(y)
	return err1 == nil && err2 == nil && bytes.Equal(bx, by)
}

// collisionRecord is the workflow.key-collided event that keeps e, which lost its id to another
// event. Everything in it derives from e, so clones agree on it byte for byte.
func collisionRecord(e workflow.Event) (workflow.Event, error) {
	e.Seq = 0
	raw, err := json.Marshal(e)
	if err != nil {
		return workflow.Event{}, fmt.Errorf("record key collision on %q: %w", e.ID, err)
	}
	data, err := json.Marshal(workflow.KeyCollidedData{Key: e.ID, Event: raw})
	if err != nil {
		return workflow.Event{}, fmt.Errorf("record key collision on %q: %w", e.ID, err)
	}
	return workflow.Event{ID: "key-collided-" + idKey(string(raw))[:32], Type: workflow.EventKeyCollided,
		Time: e.Time, Actor: e.Actor, Clock: e.Clock, Data: data}, nil
}

// line is the event's JSONL line with its current seq: the stored line with the seq spliced in
// when it has the header's canonical opening ({"id":…,"seq":N,…}), else encoded afresh exactly
// as an append encodes it.
func (e logEvent) line() ([]byte, error) {
	if e.raw != nil {
		id, _ := json.Marshal(e.ID)
		prefix := append(append([]byte(`{"id":`), id...), `,"seq":`...)
		if bytes.HasPrefix(e.raw, prefix) {
			rest := e.raw[len(prefix):]
			n := 0
			for n < len(rest) && rest[n] >= '0' && rest[n] <= '9' {
				n++
			}
			if n > 0 && n < len(rest) && rest[n] == ',' {
				out := make([]byte, 0, len(e.raw)+4)
				out = strconv.AppendInt(append(out, prefix...), e.Seq, 10)
				return append(out, rest[n:]...), nil
			}
		}
	}
	return json.Marshal(e.Event)
}

// preferred orders two different events that share an id, by content.
func preferred(x, y workflow.Event) bool {
	switch {
	case x.Clock != y.Clock:
		return x.Clock < y.Clock
	case x.Type != y.Type:
		return x.Type < y.Type
	case !x.Time.Equal(y.Time):
		return x.Time.Before(y.Time)
	case x.Actor != y.Actor:
		return x.Actor < y.Actor
	}
	return bytes.Compare(x.Data, y.Data) < 0
}

// writeLog writes the tree of a complete log whose seq is already dense: segments, id index,
// snapshot folded by p, format marker. It returns the root tree and the snapshot file.
func (b *builder) writeLog(feature string, p Projector, logged []logEvent) (gitrepo.Hash, *snapshotFile, error) {
	var segs [][]byte
	var seg []byte
	events := make([]workflow.Event, len(logged))
	for i, ev := range logged {
		events[i] = ev.Event
		line, err := ev.line()
		if err != nil {
			return gitrepo.ZeroHash, nil, fmt.Errorf("encode event %s: %w", ev.ID, err)
		}
		seg = append(append(seg, line...), '\n')
		if (i+1)%SegmentSize == 0 || i == len(events)-1 {
			segs, seg = append(segs, seg), nil
		}
	}
	buckets := map[string][]string{}
	for _, ev := range events {
		if IsGeneratedID(ev.ID) {
			continue // as in updateKeys: only callers' keys are indexed
		}
		key := idKey(ev.ID)
		buckets[key[:2]] = append(buckets[key[:2]], fmt.Sprintf("%s %d", key, ev.Seq))
	}
	names := make([]string, 0, len(buckets))
	for name := range buckets {
		names = append(names, name)
	}
	sort.Strings(names)
	blobs := segs
	for _, name := range names {
		lines := buckets[name]
		sort.Strings(lines)
		blobs = append(blobs, []byte(strings.Join(lines, "\n")+"\n"))
	}
	hashes, err := b.putBlobs(blobs)
	if err != nil {
		return gitrepo.ZeroHash, nil, err
	}
	evEntries := make([]gitrepo.TreeEntry, len(segs))
	for i := range segs {
		evEntries[i] = gitrepo.TreeEntry{Name: segmentName(int64(i)), Mode: filemode.Regular, Hash: hashes[i]}
	}
	evTree, err := b.putTree(evEntries)
	if err != nil {
		return gitrepo.ZeroHash, nil, err
	}
	keyEntries := make([]gitrepo.TreeEntry, len(names))
	for i, name := range names {
		keyEntries[i] = gitrepo.TreeEntry{Name: name, Mode: filemode.Regular, Hash: hashes[len(segs)+i]}
	}
	keysTree, err := b.putTree(keyEntries)
	if err != nil {
		return gitrepo.ZeroHash, nil, err
	}
	sf := &snapshotFile{Format: FormatVersion, Events: int64(len(events)), EventsTree: evTree.String()}
	if n := len(events); n > 0 {
		sf.LastClock = events[n-1].Clock
	}
	if p != nil {
		sf.Projector = p.Version()
		if sf.State, err = p.Project(nil, events); err != nil {
			return gitrepo.ZeroHash, nil, fmt.Errorf("project %s: %w", feature, err)
		}
	}
	root, err := b.putRoot(evTree, keysTree, sf)
	return root, sf, err
}

// putBlobs writes the blobs the repository lacks, in parallel, and returns every blob's id. As in
// putMissing, blobs that were already there are remembered for ensureDurable.
func (b *builder) putBlobs(contents [][]byte) ([]gitrepo.Hash, error) {
	hashes := make([]gitrepo.Hash, len(contents))
	for i, c := range contents {
		hashes[i] = b.s.git.ObjectFormat().Sum(plumbing.BlobObject, c)
	}
	missing := make([]bool, len(contents))
	for i, h := range hashes {
		missing[i] = !b.s.git.HasObject(h)
	}
	errs := make([]error, len(contents))
	gitrepo.Parallel(len(contents), 2, func(i int) {
		if missing[i] {
			_, errs[i] = b.s.git.WriteObject(plumbing.BlobObject, contents[i])
		}
	})
	for i, err := range errs {
		if err != nil {
			return nil, err
		}
		b.written = append(b.written, writtenObject{typ: plumbing.BlobObject, content: contents[i], hash: hashes[i]})
	}
	return hashes, nil
}

// putMissing writes a blob unless the repository already has it: a merge rebuilds every segment
// and bucket, and most are unchanged (already reachable from one of the parents). A skipped blob is
// still remembered, so ensureDurable puts it back should a concurrent gc prune it.
func (b *builder) putMissing(content []byte) (gitrepo.Hash, error) {
	h := b.s.git.ObjectFormat().Sum(plumbing.BlobObject, content)
	if !b.s.git.HasObject(h) {
		return b.put(plumbing.BlobObject, content)
	}
	b.written = append(b.written, writtenObject{typ: plumbing.BlobObject, content: content, hash: h})
	return h, nil
}
