package gitstore

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/exarchos/git-exarchos/gitrepo"
	"math/big"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"

	"github.com/exarchos/git-exarchos/workflow"
)

// maxAttempts bounds the read–decide–write loop when other writers keep moving the ref.
const maxAttempts = 64

// Decider computes the events to append from the current head. It may run several times when
// concurrent writers win the race, so it must depend only on its argument. Returning an error
// aborts the update with nothing written.
type Decider func(cur *Snapshot) ([]workflow.NewEvent, error)

// Result is the outcome of a write.
type Result struct {
	Snapshot
	// Appended are the events this call wrote, as stored.
	Appended []workflow.Event
	// Duplicates are events whose id was already in the log: they were not written again, and the
	// stored copies are returned.
	Duplicates []workflow.Event
	// Moved is the move of the workflow's ref this call made; nil when it wrote nothing.
	Moved *Move
}

// RefMoves is the move this write made, as a list (none for a nil result): what a caller hands to
// whatever keeps in step with the refs (hookrun.Following).
func (r *Result) RefMoves() []*Move {
	if r == nil || r.Moved == nil {
		return nil
	}
	return []*Move{r.Moved}
}

// Create starts a workflow. It fails with ErrExists if the ref is already there; it is the only
// operation for which a missing ref means "create".
func (s *Store) Create(feature string, p Projector, events []workflow.NewEvent) (*Result, error) {
	if err := ValidateFeature(feature); err != nil {
		return nil, err
	}
	ref := RefName(feature)
	if _, ok, err := s.git.Ref(ref); err != nil {
		return nil, err
	} else if ok {
		return nil, fmt.Errorf("%w: %s; see it with `git exarchos status %s`, or choose another id", ErrExists, feature, feature)
	}
	stamped, err := s.stamp(events, 0, 0)
	if err != nil {
		return nil, err
	}
	b := newBuilder(s)
	empty := &head{feature: feature, events: &gitrepo.Tree{}}
	commit, snap, err := b.build(empty, p, stamped)
	if err != nil {
		return nil, err
	}
	s.logRefWrite(ref, commit)
	if err := s.git.UpdateRef(ref, commit, gitrepo.ZeroHash); err != nil {
		if errors.Is(err, gitrepo.ErrStale) {
			return nil, fmt.Errorf("%w: %s was created concurrently", ErrExists, feature)
		}
		return nil, err
	}
	if err := b.ensureDurable(); err != nil {
		return nil, err
	}
	return &Result{Snapshot: *snap, Appended: stamped, Moved: &Move{Feature: feature, To: commit}}, nil
}

// Update appends the events decide returns to an existing workflow, in one commit. On a lost race
// it re-reads, re-decides and retries. Events whose id is already in the log are returned as
// Duplicates and not written again.
func (s *Store) Update(feature string, p Projector, decide Decider) (*Result, error) {
	for attempt := 0; attempt < maxAttempts; attempt++ {
		// Optimistic first: build, then compare-and-swap. A writer that keeps losing (a slow one
		// among fast ones) turns pessimistic: it takes the ref's lock before reading, so the ref
		// cannot move under it and it is sure to finish. The lock is held for one build.
		var lock *gitrepo.RefLock
		if attempt >= optimisticAttempts {
			var err error
			if lock, err = s.git.LockRef(RefName(feature)); err != nil {
				return nil, err
			}
		}
		res, err := s.tryUpdate(feature, p, decide, lock)
		if lock != nil {
			lock.Release()
		}
		if errors.Is(err, gitrepo.ErrStale) {
			backoff(attempt)
			continue
		}
		return res, err
	}
	return nil, fmt.Errorf("%w: %s changed %d times while this call tried to write; run it again", ErrConcurrent, RefName(feature), maxAttempts)
}

// optimisticAttempts is how many lost races a writer accepts before it takes the ref's lock first.
var optimisticAttempts = 6

// tryUpdate is one read–decide–write round. With lock held the ref is moved under it; without,
// by compare-and-swap, which reports a lost race as gitrepo.ErrStale.
func (s *Store) tryUpdate(feature string, p Projector, decide Decider, lock *gitrepo.RefLock) (*Result, error) {
	h, err := s.readHead(feature)
	if err != nil {
		return nil, err
	}
	cur, err := s.snapshotOf(h, p)
	if err != nil {
		return nil, err
	}
	wanted, err := decide(cur)
	if err != nil {
		return nil, err
	}
	var fresh []workflow.NewEvent
	var dups []workflow.Event
	err = s.retryTransient(func() error {
		fresh, dups, err = s.dedup(h, wanted)
		return err
	})
	if err != nil {
		return nil, err
	}
	if len(fresh) == 0 {
		return &Result{Snapshot: *cur, Duplicates: dups}, nil
	}
	stamped, err := s.stamp(fresh, h.snap.Events, h.snap.LastClock)
	if err != nil {
		return nil, err
	}
	b := newBuilder(s)
	var commit gitrepo.Hash
	var snap *Snapshot
	err = s.retryTransient(func() error {
		commit, snap, err = b.build(h, p, stamped)
		return err
	})
	if err != nil {
		return nil, err
	}
	s.logRefWrite(RefName(feature), commit)
	if lock != nil {
		err = lock.Commit(commit)
	} else {
		err = s.git.UpdateRef(RefName(feature), commit, h.commit)
	}
	if err != nil {
		return nil, err
	}
	if err := b.ensureDurable(); err != nil {
		return nil, err
	}
	return &Result{Snapshot: *snap, Appended: stamped, Duplicates: dups, Moved: &Move{Feature: feature, From: h.commit, To: commit}}, nil
}

// Append is Update with a fixed list of events.
func (s *Store) Append(feature string, p Projector, events ...workflow.NewEvent) (*Result, error) {
	return s.Update(feature, p, func(*Snapshot) ([]workflow.NewEvent, error) { return events, nil })
}

func backoff(attempt int) {
	max := int64(1+attempt) * int64(time.Millisecond)
	if max > int64(20*time.Millisecond) {
		max = int64(20 * time.Millisecond)
	}
	n, _ := rand.Int(rand.Reader, big.NewInt(max))
	time.Sleep(time.Duration(n.Int64()))
}

// dedup splits wanted into events not yet in the log and stored copies of those that are.
func (s *Store) dedup(h *head, wanted []workflow.NewEvent) ([]workflow.NewEvent, []workflow.Event, error) {
	var fresh []workflow.NewEvent
	var dups []workflow.Event
	seen := map[string]bool{}
	buckets := map[string]map[string]int64{}
	for _, ev := range wanted {
		if ev.ID == "" || IsGeneratedID(ev.ID) {
			fresh = append(fresh, ev)
			continue
		}
		if seen[ev.ID] {
			continue
		}
		seen[ev.ID] = true
		key := idKey(ev.ID)
		bucket, ok := buckets[key[:2]]
		if !ok {
			var err error
			if bucket, err = s.readBucket(h, key[:2]); err != nil {
				return nil, nil, err
			}
			buckets[key[:2]] = bucket
		}
		seq, found := bucket[key]
		if !found {
			fresh = append(fresh, ev)
			continue
		}
		stored, err := s.eventAt(h, seq)
		if err != nil {
			return nil, nil, err
		}
		dups = append(dups, stored)
	}
	return fresh, dups, nil
}

func (s *Store) eventAt(h *head, seq int64) (workflow.Event, error) {
	evs, err := s.readSegment(h, (seq-1)/SegmentSize)
	if err != nil {
		return workflow.Event{}, err
	}
	return evs[(seq-1)%SegmentSize], nil
}

// idKey is the index key of an event id: ids are arbitrary caller strings, so they are hashed to a
// fixed width; the first two hex digits pick the bucket.
func idKey(id string) string {
	sum := sha256.Sum256([]byte(id))
	return hex.EncodeToString(sum[:])
}

// readBucket reads keys/<bucket>: lines "<idKey> <seq>".
func (s *Store) readBucket(h *head, bucket string) (map[string]int64, error) {
	out := map[string]int64{}
	keys, err := s.keysTree(h)
	if err != nil || keys == nil {
		return out, err
	}
	entry, ok := keys.Entry(bucket)
	if !ok {
		return out, nil
	}
	b, err := s.readBlob(entry.Hash)
	if err != nil {
		return nil, err
	}
	for n, line := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		var key string
		var seq int64
		if _, err := fmt.Sscanf(line, "%64s %d", &key, &seq); err != nil || seq < 1 || seq > h.snap.Events || len(key) != 64 || !strings.HasPrefix(key, bucket) || line != fmt.Sprintf("%s %d", key, seq) {
			return nil, &CorruptError{Commit: h.commit, Path: fmt.Sprintf("keys/%s line %d", bucket, n+1), Reason: fmt.Sprintf("bad index line %q", gitrepo.Truncate(line, 80))}
		}
		if _, dup := out[key]; dup {
			return nil, &CorruptError{Commit: h.commit, Path: fmt.Sprintf("keys/%s line %d", bucket, n+1), Reason: "id indexed twice"}
		}
		out[key] = seq
	}
	return out, nil
}

// stamp turns decided events into log events: id, dense seq after `count`, Lamport clock after
// `clock`, time and actor. Payloads are checked here, before anything is written.
func (s *Store) stamp(events []workflow.NewEvent, count int64, clock uint64) ([]workflow.Event, error) {
	if len(events) == 0 {
		return nil, nil
	}
	actor, err := s.git.Actor()
	if err != nil {
		return nil, err
	}
	now := s.Now().UTC().Truncate(time.Millisecond)
	out := make([]workflow.Event, len(events))
	for i, ev := range events {
		if ev.Type == "" {
			return nil, fmt.Errorf("%w: event %d has no type", ErrBadPayload, i+1)
		}
		data, err := encodeData(ev.Data)
		if err != nil {
			return nil, fmt.Errorf("%w: %s: %v", ErrBadPayload, ev.Type, err)
		}
		id := ev.ID
		if id == "" {
			id = newID(now)
		} else if (IsGeneratedID(id) && ev.Sig == nil) || strings.TrimSpace(id) != id || len(id) > 256 {
			return nil, fmt.Errorf("%w: idempotency key %q: use up to 256 characters without surrounding spaces, not of the form ev-<36 hex digits> (reserved for generated ids)", ErrBadPayload, id)
		}
		at := now
		if !ev.Time.IsZero() {
			at = ev.Time // a signed decision: its signature covers the time it was made
		}
		out[i] = workflow.Event{ID: id, Seq: count + int64(i) + 1, Type: ev.Type, Time: at, Actor: actor, Clock: clock + uint64(i) + 1, Data: data, Sig: ev.Sig}
	}
	return out, nil
}

func encodeData(v any) (json.RawMessage, error) {
	var b []byte
	switch d := v.(type) {
	case nil:
		return nil, nil
	case json.RawMessage:
		b = d
	case []byte:
		b = d
	default:
		var err error
		if b, err = json.Marshal(v); err != nil {
			return nil, err
		}
	}
	if len(b) == 0 {
		return nil, nil
	}
	if len(b) > MaxPayload {
		return nil, fmt.Errorf("data is %d bytes, over the 1 MiB limit: store large content as a committed file and record its path", len(b))
	}
	if !json.Valid(b) {
		return nil, errors.New("data is not valid JSON: pass a JSON value, e.g. '{\"key\":\"value\"}' or '\"text\"'")
	}
	var c bytes.Buffer
	if err := json.Compact(&c, b); err != nil {
		return nil, err
	}
	return c.Bytes(), nil
}

// NewID makes a generated event id for an event that must know its id before it is stored (a
// signed decision). It is treated like the store's own: no idempotency index entry.
func NewID(now time.Time) string { return newID(now) }

// newID makes a unique event id that sorts roughly by time: "ev-", milliseconds, then 96 random bits.
func newID(now time.Time) string {
	var r [12]byte
	rand.Read(r[:])
	return fmt.Sprintf("%s%012x%s", generatedPrefix, now.UnixMilli(), hex.EncodeToString(r[:]))
}

const generatedPrefix = "ev-"

// IsGeneratedID reports whether id was made by newID rather than given by a caller as an
// idempotency key. Callers' keys may not take this form, so the id index can skip generated ids.
func IsGeneratedID(id string) bool {
	return len(id) == len(generatedPrefix)+36 && strings.HasPrefix(id, generatedPrefix) && gitrepo.IsLowerHex(id[len(generatedPrefix):])
}

// builder writes the objects of one new commit and remembers them, so they can be written again if
// a concurrent `git gc --prune=now` removed them before the ref pointed at them.
type builder struct {
	s       *Store
	written []writtenObject
	pending []writtenObject // put but not yet written (flush)
}

// writtenObject is an object a builder wrote, kept until its commit is durable.
type writtenObject struct {
	typ     plumbing.ObjectType
	content []byte
	hash    gitrepo.Hash
}

func newBuilder(s *Store) *builder { return &builder{s: s} }

// put adds an object to the commit being built and returns its id; flush writes it. Every object
// is remembered for ensureDurable (an existing unreachable object may still be pruned by a running gc).
func (b *builder) put(t plumbing.ObjectType, content []byte) (gitrepo.Hash, error) {
	obj := writtenObject{typ: t, content: content, hash: b.s.git.ObjectFormat().Sum(t, content)}
	b.written = append(b.written, obj)
	b.pending = append(b.pending, obj)
	return obj.hash, nil
}

// flush writes the objects put since the last flush. An object already stored as a loose file is
// not rewritten (a stat is far cheaper than a create). A call's few objects are written in turn:
// measured, goroutines cost more than they overlap (each needs its own compressor's fresh memory,
// whose page faults shoot down TLBs across cores). A merge's many objects are written several at
// once, since creating a file costs a disk round trip that the others need not wait for.
func (b *builder) flush() error {
	pending := b.pending
	b.pending = nil
	errs := make([]error, len(pending))
	write := func(i int) {
		if _, err := os.Stat(b.s.git.LooseObjectPath(pending[i].hash)); err == nil {
			return
		}
		_, errs[i] = b.s.git.WriteObject(pending[i].typ, pending[i].content)
	}
	gitrepo.Parallel(len(pending), 16, write)
	return errors.Join(errs...)
}

// build writes the commit that appends events to h: the last segment rewritten (or new ones
// added), the id index buckets touched, the snapshot advanced by p, and a commit whose parent is h.
func (b *builder) build(h *head, p Projector, events []workflow.Event) (gitrepo.Hash, *Snapshot, error) {
	count := h.snap.Events
	segs := map[int64][]byte{}
	if rem := count % SegmentSize; rem != 0 {
		last := count / SegmentSize
		entry, ok := h.events.Entry(segmentName(last))
		if !ok {
			return gitrepo.ZeroHash, nil, &CorruptError{Commit: h.commit, Path: "events/" + segmentName(last), Reason: "segment missing"}
		}
		raw, err := b.s.readBlob(entry.Hash)
		if err != nil {
			return gitrepo.ZeroHash, nil, err
		}
		// Never build on a segment that does not parse: the new commit would carry the damage on.
		if err := checkSegment(h.commit, "events/"+segmentName(last), raw, last*SegmentSize+1, rem); err != nil {
			return gitrepo.ZeroHash, nil, err
		}
		segs[last] = raw
	}
	for _, ev := range events {
		line, err := json.Marshal(ev)
		if err != nil {
			return gitrepo.ZeroHash, nil, fmt.Errorf("encode event %s: %w", ev.Type, err)
		}
		idx := (ev.Seq - 1) / SegmentSize
		segs[idx] = append(append(segs[idx], line...), '\n')
	}
	evEntries := append([]gitrepo.TreeEntry(nil), h.events.Entries...)
	for idx, content := range segs {
		hash, err := b.put(plumbing.BlobObject, content)
		if err != nil {
			return gitrepo.ZeroHash, nil, err
		}
		evEntries = setEntry(evEntries, gitrepo.TreeEntry{Name: segmentName(idx), Mode: filemode.Regular, Hash: hash})
	}
	evTree, err := b.putTree(evEntries)
	if err != nil {
		return gitrepo.ZeroHash, nil, err
	}
	keysTree, err := b.updateKeys(h, events)
	if err != nil {
		return gitrepo.ZeroHash, nil, err
	}

	prev := h.snap.State
	if p != nil && h.snap.Projector != p.Version() && count > 0 {
		// The stored snapshot came from another projector: refold so the new one is consistent.
		old, err := b.s.readSegments(h, 0)
		if err != nil {
			return gitrepo.ZeroHash, nil, err
		}
		if prev, err = p.Project(nil, old); err != nil {
			return gitrepo.ZeroHash, nil, fmt.Errorf("project %s: %w", h.feature, err)
		}
	}
	sf := snapshotFile{Format: FormatVersion, Events: count + int64(len(events)), LastClock: events[len(events)-1].Clock, EventsTree: evTree.String()}
	if p != nil {
		sf.Projector = p.Version()
		if sf.State, err = p.Project(prev, events); err != nil {
			return gitrepo.ZeroHash, nil, fmt.Errorf("project %s: %w", h.feature, err)
		}
	}
	root, err := b.putRoot(evTree, keysTree, &sf)
	if err != nil {
		return gitrepo.ZeroHash, nil, err
	}
	commit, err := b.putCommit(h, root, events, sf.State)
	if err != nil {
		return gitrepo.ZeroHash, nil, err
	}
	return commit, &Snapshot{Feature: h.feature, Commit: commit, Events: sf.Events, LastClock: sf.LastClock, State: sf.State}, nil
}

func (b *builder) updateKeys(h *head, events []workflow.Event) (gitrepo.Hash, error) {
	if _, err := b.s.keysTree(h); err != nil {
		return gitrepo.ZeroHash, err
	}
	var entries []gitrepo.TreeEntry
	if h.keys != nil {
		entries = append(entries, h.keys.Entries...)
	}
	touched := map[string][]string{}
	for _, ev := range events {
		if IsGeneratedID(ev.ID) {
			continue // random 128-bit ids cannot collide; only callers' keys need a lookup
		}
		key := idKey(ev.ID)
		touched[key[:2]] = append(touched[key[:2]], fmt.Sprintf("%s %d", key, ev.Seq))
	}
	if len(touched) == 0 && h.keys != nil {
		return h.keysHash, nil
	}
	for bucket, lines := range touched {
		// The bucket is parsed and checked, never copied blind: a bad line is refused, not carried on.
		known, err := b.s.readBucket(h, bucket)
		if err != nil {
			return gitrepo.ZeroHash, err
		}
		for key, seq := range known {
			lines = append(lines, fmt.Sprintf("%s %d", key, seq))
		}
		sort.Strings(lines)
		hash, err := b.put(plumbing.BlobObject, []byte(strings.Join(lines, "\n")+"\n"))
		if err != nil {
			return gitrepo.ZeroHash, err
		}
		entries = setEntry(entries, gitrepo.TreeEntry{Name: bucket, Mode: filemode.Regular, Hash: hash})
	}
	return b.putTree(entries)
}

func (b *builder) putCommit(h *head, root gitrepo.Hash, events []workflow.Event, state json.RawMessage) (gitrepo.Hash, error) {
	sig, err := b.s.git.Signature(b.s.Now())
	if err != nil {
		return gitrepo.ZeroHash, err
	}
	var info Trailers
	json.Unmarshal(state, &info) // phase, type and branch
	var parents []gitrepo.Hash
	if !h.commit.IsZero() {
		parents = []gitrepo.Hash{h.commit}
	}
	return b.putCommitObject(sig, root, parents, commitMessage(h.feature, events, info))
}

// putRoot writes a commit's root tree: the events and keys trees, the format marker and the
// snapshot. Appends and merges both end here, so every commit has the same layout.
func (b *builder) putRoot(evTree, keysTree gitrepo.Hash, sf *snapshotFile) (gitrepo.Hash, error) {
	sf.Digest = sf.digest(keysTree)
	snapBytes, err := json.Marshal(sf)
	if err != nil {
		return gitrepo.ZeroHash, err
	}
	stateBlob, err := b.put(plumbing.BlobObject, snapBytes)
	if err != nil {
		return gitrepo.ZeroHash, err
	}
	formatBlob, err := b.putMissing([]byte(fmt.Sprintf("%d\n", FormatVersion)))
	if err != nil {
		return gitrepo.ZeroHash, err
	}
	return b.putTree([]gitrepo.TreeEntry{
		{Name: "events", Mode: filemode.Dir, Hash: evTree},
		{Name: "format", Mode: filemode.Regular, Hash: formatBlob},
		{Name: "keys", Mode: filemode.Dir, Hash: keysTree},
		{Name: "state.json", Mode: filemode.Regular, Hash: stateBlob},
	})
}

// commitMessage summarises the events; trailers let `list` read phase and size from the commit alone.
func commitMessage(feature string, events []workflow.Event, info Trailers) string {
	counts := map[string]int{}
	var order []string
	for _, e := range events {
		if counts[e.Type] == 0 {
			order = append(order, e.Type)
		}
		counts[e.Type]++
	}
	parts := make([]string, 0, len(order))
	for _, t := range order {
		if counts[t] > 1 {
			parts = append(parts, fmt.Sprintf("%s ×%d", t, counts[t]))
		} else {
			parts = append(parts, t)
		}
	}
	summary := strings.Join(parts, ", ")
	if len(summary) > 120 {
		summary = summary[:117] + "..."
	}
	info.FirstSeq, info.LastSeq, info.Events = events[0].Seq, events[len(events)-1].Seq, events[len(events)-1].Seq
	return info.Message(fmt.Sprintf("%s: %s", feature, summary))
}

// ensureDurable runs after the ref moved. A `git gc --prune=now` that computed reachability before
// the move may have deleted the objects just written; re-check, and write back what is gone, until
// no gc is running. A gc that starts after the move sees the ref and keeps them.
func (b *builder) ensureDurable() error {
	deadline := time.Now().Add(60 * time.Second)
	for {
		running := b.s.git.GCRunning()
		for _, obj := range b.written {
			if b.s.git.HasObject(obj.hash) {
				continue
			}
			b.s.git.Reindex()
			if b.s.git.HasObject(obj.hash) {
				continue
			}
			if _, err := b.s.git.WriteObject(obj.typ, obj.content); err != nil {
				return fmt.Errorf("rewrite object %s pruned by a concurrent gc: %w", obj.hash, err)
			}
		}
		if !running {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("git gc is still running after 60s (%s/gc.pid); run `git exarchos fsck` once it ends", b.s.loc.CommonDir)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// setEntry replaces the entry with e's name or adds e.
func setEntry(entries []gitrepo.TreeEntry, e gitrepo.TreeEntry) []gitrepo.TreeEntry {
	for i := range entries {
		if entries[i].Name == e.Name {
			entries[i] = e
			return entries
		}
	}
	return append(entries, e)
}

// putTree writes a tree of entries (sorted in place).
func (b *builder) putTree(entries []gitrepo.TreeEntry) (gitrepo.Hash, error) {
	return b.put(plumbing.TreeObject, gitrepo.EncodeTree(entries))
}

// putCommitObject writes a commit with the given parents (one for an append, two for a merge). The
// commit is the last object of every build, so it writes everything put before it too: once it
// returns, the commit and all it needs are stored and a ref may point at it.
func (b *builder) putCommitObject(sig gitrepo.Signature, root gitrepo.Hash, parents []gitrepo.Hash, message string) (gitrepo.Hash, error) {
	c := &gitrepo.Commit{Tree: root, Parents: parents, Author: sig, Committer: sig, Message: message}
	h, err := b.put(plumbing.CommitObject, c.Encode())
	if err != nil {
		return gitrepo.ZeroHash, err
	}
	if err := b.flush(); err != nil {
		return gitrepo.ZeroHash, err
	}
	return h, nil
}
