// Package gitstore keeps workflow event logs in git refs: one ref per workflow
// (refs/exarchos/<feature>), one commit per write, whose tree holds the events in JSONL segments,
// an index of event ids, and a snapshot of the projected state. Objects are written and read through
// gitrepo (its own readers, in front of git); refs are moved by compare-and-swap under git's own
// lock protocol.
//
// It may import gitrepo, workflow, go-git's plumbing types and the internal helpers.
package gitstore

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/exarchos/git-exarchos/gitrepo"
	"os"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/exarchos/git-exarchos/workflow"
)

const (
	// FormatVersion is written to the `format` blob of every commit; a reader refuses newer ones.
	FormatVersion = 1
	// SegmentSize is the number of events in a full segment: an append rewrites only the last one.
	SegmentSize = 256
	// MaxPayload bounds one event's data, so a runaway caller cannot bloat the log.
	MaxPayload = 1 << 20
	// RefPrefix is where workflows live.
	RefPrefix = "refs/exarchos/"
)

var (
	ErrNotFound   = gitrepo.ErrNotFound
	ErrExists     = errors.New("workflow already exists")
	ErrConcurrent = errors.New("concurrent updates kept winning")
	ErrBadFeature = errors.New("invalid feature id")
	ErrBadPayload = errors.New("invalid event payload")
)

// The repository's own failures, as the store meets them (the commands above see gitrepo only
// through the store).
var (
	ErrLocked          = gitrepo.ErrLocked
	ErrNotRepository   = gitrepo.ErrNotRepository
	ErrUnsupportedRepo = gitrepo.ErrUnsupportedRepo
	ErrNoIdentity      = gitrepo.ErrNoIdentity
)

// CorruptError reports stored data that does not parse or does not add up, naming where it is.
type CorruptError struct {
	Commit gitrepo.Hash
	Path   string
	Reason string
}

func (e *CorruptError) Error() string {
	return fmt.Sprintf("corrupt workflow data in commit %s, %s: %s (run `git exarchos fsck` for a full report)", e.Commit, e.Path, e.Reason)
}

// ValidateFeature checks a feature id before it is used in a ref name (workflow.ValidFeature is the rule).
func ValidateFeature(id string) error {
	if !workflow.ValidFeature(id) {
		return fmt.Errorf("%w %q: use 1 to 64 characters matching [a-z0-9][a-z0-9._-]{0,63} (lowercase letters, digits, '.', '_', '-'; first a letter or digit), with no \"..\", not ending in \".\" or \".lock\"", ErrBadFeature, id)
	}
	return nil
}

// RefName is the ref that holds a workflow.
func RefName(feature string) string { return RefPrefix + feature }

// Projector turns events into the state snapshot stored beside them. Project must be
// deterministic, and folding in several calls must give the same bytes as folding in one.
type Projector interface {
	Version() string
	Project(prev json.RawMessage, events []workflow.Event) (json.RawMessage, error)
}

// Store is the event store of one repository, on top of its git access: the objects, refs and
// config it reads and writes through the narrow interface Git (git.go), and the git binary it runs
// for transport (fetch, push, fsck, log) at loc. It embeds nothing of gitrepo: what the commands
// need of git beyond the log they take from project, never from the store.
type Store struct {
	// loc runs git for what is transport, not storage (sync.go, objcheck.go, trailers.go).
	loc gitrepo.Location
	// Now is the clock stamped on events and commits; tests may replace it.
	Now func() time.Time

	// git is the repository as the log reads and writes it (git.go): everything in this package
	// goes through it.
	git        Git
	closer     interface{ Close() error }
	formatBlob gitrepo.Hash // the id of the "1\n" format marker in this repository's hash
}

// Open discovers the repository enclosing dir and opens its store.
func Open(dir string) (*Store, error) {
	repo, err := gitrepo.Open(dir)
	if err != nil {
		return nil, err
	}
	return On(repo), nil
}

// OpenAt opens the store of a known repository. Objects live in the common directory, so every
// linked worktree sees the same workflows. A repository whose format the store does not
// understand is refused here, before anything is read or written.
func OpenAt(loc gitrepo.Location) (*Store, error) {
	repo, err := gitrepo.OpenAt(loc)
	if err != nil {
		return nil, err
	}
	return On(repo), nil
}

// On opens the store over an opened repository (project.Open keeps the repository for the
// commands' own questions to git, and hands the store only what Git names).
func On(repo *gitrepo.Repo) *Store {
	return &Store{loc: repo.Loc, Now: time.Now, git: repo, closer: repo,
		formatBlob: repo.ObjectFormat().Sum(plumbing.BlobObject, []byte(fmt.Sprintf("%d\n", FormatVersion)))}
}

// Close releases the repository's open files (mapped packs, git processes kept for objects).
func (s *Store) Close() error { return s.closer.Close() }

// Snapshot is a workflow's head as read from its ref.
type Snapshot struct {
	Feature   string
	Commit    gitrepo.Hash
	Events    int64
	LastClock uint64
	// State is the projected state; Folded says it was computed now because the stored snapshot
	// came from another projector version.
	State  json.RawMessage
	Folded bool
}

// snapshotFile is state.json: the projection plus what a writer needs to append without reading
// the log (count, clock) and the hash of the events tree it was computed from, so a commit whose
// segments were altered behind the snapshot's back is noticed without reading them.
//
// Digest binds the snapshot to the commit's events and id index: a hash of everything above it
// and the keys tree. A reader recomputes it (one small hash) and trusts the snapshot only when it
// matches; otherwise it checks the whole log and folds it (see snapshotOf). It is a check against
// hand edits and torn tooling, not a signature: a forger who recomputes it is caught by
// `git exarchos verify`/fsck, which fold the events whatever the snapshot says.
type snapshotFile struct {
	Format     int             `json:"format"`
	Projector  string          `json:"projector"`
	Events     int64           `json:"events"`
	LastClock  uint64          `json:"lastClock"`
	EventsTree string          `json:"eventsTree"`
	State      json.RawMessage `json:"state"`
	Digest     string          `json:"digest,omitempty"`
}

// digest is the Digest a snapshot must carry beside the given keys tree.
func (sf *snapshotFile) digest(keysTree gitrepo.Hash) string {
	h := sha256.New()
	fmt.Fprintf(h, "exarchos snapshot\n%d\n%s\n%d\n%d\n%s\n%s\n", sf.Format, sf.Projector, sf.Events, sf.LastClock, sf.EventsTree, keysTree)
	h.Write(sf.State)
	return hex.EncodeToString(h.Sum(nil))
}

// head is a parsed workflow commit.
type head struct {
	feature  string
	commit   gitrepo.Hash
	root     *gitrepo.Tree
	events   *gitrepo.Tree
	keys     *gitrepo.Tree // loaded by keysTree; nil when there is none
	keysHash gitrepo.Hash
	snap     snapshotFile
	// trusted says the snapshot's digest matches: it may be used without reading the events.
	trusted bool
}

func (s *Store) readHead(feature string) (*head, error) {
	if err := ValidateFeature(feature); err != nil {
		return nil, err
	}
	ref := RefName(feature)
	var h *head
	err := s.retryTransient(func() error {
		commit, ok, err := s.git.Ref(ref)
		if err != nil {
			return err
		}
		if !ok {
			return fmt.Errorf("%w: %s (no ref %s); list workflows with `git exarchos list`, start one with `git exarchos init %s --type feature`", ErrNotFound, feature, ref, feature)
		}
		h, err = s.parseHead(feature, commit)
		return err
	})
	return h, err
}

// parseHead reads a workflow commit's tree and snapshot, checking the structure it relies on.
func (s *Store) parseHead(feature string, commit gitrepo.Hash) (*head, error) {
	c, err := s.git.GetCommit(commit)
	if err != nil {
		return nil, fmt.Errorf("read commit %s of %s: %w", commit, feature, err)
	}
	root, err := s.git.GetTree(c.Tree)
	if err != nil {
		return nil, fmt.Errorf("read tree of commit %s: %w", commit, err)
	}
	h := &head{feature: feature, commit: commit, root: root}
	corrupt := func(path, reason string) error { return &CorruptError{Commit: commit, Path: path, Reason: reason} }
	fmtEntry, ok := root.Entry("format")
	if !ok {
		return nil, corrupt("format", "missing format marker")
	}
	if fmtEntry.Hash != s.formatBlob {
		b, err := s.readBlob(fmtEntry.Hash)
		if err != nil {
			return nil, err
		}
		return nil, corrupt("format", fmt.Sprintf("format %q is not %d: this workflow was written by a newer git exarchos; upgrade it", strings.TrimSpace(string(b)), FormatVersion))
	}
	evEntry, ok := root.Entry("events")
	if !ok {
		return nil, corrupt("events", "missing events tree")
	}
	if h.events, err = s.git.GetTree(evEntry.Hash); err != nil {
		return nil, fmt.Errorf("read events tree of commit %s: %w", commit, err)
	}
	if kEntry, ok := root.Entry("keys"); ok {
		h.keysHash = kEntry.Hash // the tree itself is read only by writers that need it (keysTree)
	}
	stEntry, ok := root.Entry("state.json")
	if !ok {
		return nil, corrupt("state.json", "missing snapshot")
	}
	b, err := s.readBlob(stEntry.Hash)
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(b, &h.snap); err != nil {
		return nil, corrupt("state.json", "snapshot does not parse: "+err.Error())
	}
	if h.snap.EventsTree != evEntry.Hash.String() {
		return nil, s.explainMismatch(h)
	}
	if want := segmentCount(h.snap.Events); int64(len(h.events.Entries)) != want {
		return nil, corrupt("events", fmt.Sprintf("%d segments for %d events, want %d", len(h.events.Entries), h.snap.Events, want))
	}
	h.trusted = h.snap.Digest != "" && h.snap.Digest == h.snap.digest(h.keysHash)
	return h, nil
}

// explainMismatch runs when the snapshot was not computed from the events beside it: find the
// segment that is wrong so the error can name it.
func (s *Store) explainMismatch(h *head) error {
	if _, err := s.readSegments(h, 0); err != nil {
		return err
	}
	return &CorruptError{Commit: h.commit, Path: "state.json", Reason: "snapshot was not computed from the events in this commit"}
}

// keysTree loads the id index tree on first use; reads that do not dedup never pay for it.
func (s *Store) keysTree(h *head) (*gitrepo.Tree, error) {
	if h.keys != nil || h.keysHash.IsZero() {
		return h.keys, nil
	}
	t, err := s.git.GetTree(h.keysHash)
	if err != nil {
		return nil, fmt.Errorf("read keys tree of commit %s: %w", h.commit, err)
	}
	h.keys = t
	return t, nil
}

func segmentCount(events int64) int64 { return (events + SegmentSize - 1) / SegmentSize }

func segmentName(i int64) string { return fmt.Sprintf("%08d.jsonl", i) }

func (s *Store) readBlob(h gitrepo.Hash) ([]byte, error) {
	b, err := s.git.ReadObject(h, plumbing.BlobObject)
	if err != nil {
		return nil, fmt.Errorf("read blob %s: %w", h, err)
	}
	// What was read must be what its id says: a loose file or pack entry holding other content
	// (git serves it as it is) would otherwise read as a shorter, or another, log. A hash of a
	// few kilobytes costs microseconds.
	if got := s.git.ObjectFormat().Sum(plumbing.BlobObject, b); got != h {
		return nil, fmt.Errorf("blob %s holds content that hashes to %s: the object is damaged; run `git exarchos fsck` (and `git fsck`)", h, got)
	}
	return b, nil
}

// retryTransient reruns f when an object vanished under it: `git gc` repacking and pruning beside us
// moves objects between loose files and packs (go-git caches the list of packs), and a gc with
// --prune=now may delete a new commit's objects, which its writer puts back once the gc ends; so
// keep trying while a gc runs.
func (s *Store) retryTransient(f func() error) error {
	var err error
	start := time.Now()
	for attempt := 0; ; attempt++ {
		err = f()
		if err == nil || !isTransient(err) {
			return err
		}
		// The writer puts pruned objects back within milliseconds of the gc ending; give it two
		// seconds (slow machines, race detector) before calling the object lost.
		waited := time.Since(start)
		if (waited > 2*time.Second && !s.git.GCRunning()) || waited > 90*time.Second {
			return err
		}
		s.git.Reindex()
		time.Sleep(time.Duration(min(attempt+1, 4)) * 5 * time.Millisecond)
	}
}

func isTransient(err error) bool {
	return errors.Is(err, plumbing.ErrObjectNotFound) || errors.Is(err, os.ErrNotExist)
}

// State returns a workflow's state: the stored snapshot when it was made by p's version, else the
// fold of every event with p.
func (s *Store) State(feature string, p Projector) (*Snapshot, error) {
	var snap *Snapshot
	err := s.retryTransient(func() error {
		h, err := s.readHead(feature)
		if err != nil {
			return err
		}
		snap, err = s.snapshotOf(h, p)
		return err
	})
	return snap, err
}

// snapshotOf is h's state for p. The stored snapshot is used when its digest holds and p's version
// made it. One whose digest fails (edited, or written before digests) is never shown or built on:
// the whole log is checked as fsck checks it (segments, unique ids, the id index), refused when
// that fails, and folded otherwise; h then carries the fold, so a write builds on it.
func (s *Store) snapshotOf(h *head, p Projector) (*Snapshot, error) {
	folded := !h.trusted && p != nil
	if folded {
		if err := s.checkLog(h, p); err != nil {
			return nil, err
		}
	}
	snap := &Snapshot{Feature: h.feature, Commit: h.commit, Events: h.snap.Events, LastClock: h.snap.LastClock, State: h.snap.State, Folded: folded}
	if p == nil || h.snap.Projector == p.Version() {
		return snap, nil
	}
	events, err := s.readSegments(h, 0)
	if err != nil {
		return nil, err
	}
	state, err := p.Project(nil, events)
	if err != nil {
		return nil, fmt.Errorf("project %s at %s: %w", h.feature, h.commit, err)
	}
	snap.State, snap.Folded = state, true
	return snap, nil
}

// checkLog runs fsck's checks on h, whose snapshot is not trusted, and replaces the snapshot with
// the fold of its events. Problems with the snapshot itself are what the fold repairs; any other
// (a segment, a duplicated id, an index line) refuses the read.
func (s *Store) checkLog(h *head, p Projector) error {
	problems, transient := s.verifyCommit(h.feature, h.commit, nil)
	if transient != nil {
		return transient
	}
	for _, pr := range problems {
		if pr.Path != "state.json" {
			return &CorruptError{Commit: h.commit, Path: pr.Path, Reason: pr.Message}
		}
	}
	events, err := s.readSegments(h, 0)
	if err != nil {
		return err
	}
	state, err := p.Project(nil, events)
	if err != nil {
		return fmt.Errorf("project %s at %s: %w", h.feature, h.commit, err)
	}
	h.snap.State, h.snap.Projector = state, p.Version()
	if n := len(events); n > 0 {
		h.snap.LastClock = events[n-1].Clock
	}
	h.trusted = true
	return nil
}

// readSegments parses every event from segment index `from` on, checking seq density as it goes.
func (s *Store) readSegments(h *head, from int64) ([]workflow.Event, error) {
	var out []workflow.Event
	for i := from; i < segmentCount(h.snap.Events); i++ {
		evs, err := s.readSegment(h, i)
		if err != nil {
			return nil, err
		}
		out = append(out, evs...)
	}
	return out, nil
}

func (s *Store) readSegment(h *head, i int64) ([]workflow.Event, error) {
	name := segmentName(i)
	path := "events/" + name
	entry, ok := h.events.Entry(name)
	if !ok {
		return nil, &CorruptError{Commit: h.commit, Path: path, Reason: "segment missing"}
	}
	b, err := s.readBlob(entry.Hash)
	if err != nil {
		return nil, err
	}
	want := int64(SegmentSize)
	if last := segmentCount(h.snap.Events) - 1; i == last {
		want = h.snap.Events - last*SegmentSize
	}
	return parseSegment(h.commit, path, b, i*SegmentSize+1, want)
}

// parseSegment decodes one JSONL segment whose first event must have seq firstSeq.
func parseSegment(commit gitrepo.Hash, path string, b []byte, firstSeq, want int64) ([]workflow.Event, error) {
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	if len(b) == 0 {
		lines = nil
	}
	if int64(len(lines)) != want {
		return nil, &CorruptError{Commit: commit, Path: path, Reason: fmt.Sprintf("%d events, want %d", len(lines), want)}
	}
	out := make([]workflow.Event, len(lines))
	for n, line := range lines {
		if err := json.Unmarshal([]byte(line), &out[n]); err != nil {
			return nil, &CorruptError{Commit: commit, Path: fmt.Sprintf("%s line %d", path, n+1), Reason: "does not parse: " + err.Error()}
		}
		if want := firstSeq + int64(n); out[n].Seq != want {
			return nil, &CorruptError{Commit: commit, Path: fmt.Sprintf("%s line %d", path, n+1), Reason: fmt.Sprintf("seq %d, want %d", out[n].Seq, want)}
		}
		if out[n].ID == "" || out[n].Type == "" {
			return nil, &CorruptError{Commit: commit, Path: fmt.Sprintf("%s line %d", path, n+1), Reason: "event without id or type"}
		}
	}
	return out, nil
}

// checkSegment is the cheap form of parseSegment for the write path: the right number of lines,
// each valid JSON, and the last one carrying the expected seq.
func checkSegment(commit gitrepo.Hash, path string, b []byte, firstSeq, want int64) error {
	body := bytes.TrimSuffix(b, []byte("\n"))
	n := int64(0)
	for len(body) > 0 {
		line := body
		if i := bytes.IndexByte(body, '\n'); i >= 0 {
			line, body = body[:i], body[i+1:]
		} else {
			body = nil
		}
		n++
		if !json.Valid(line) {
			return &CorruptError{Commit: commit, Path: fmt.Sprintf("%s line %d", path, n), Reason: "does not parse"}
		}
		if n == want {
			var last struct {
				Seq int64 `json:"seq"`
			}
			json.Unmarshal(line, &last)
			if last.Seq != firstSeq+want-1 {
				return &CorruptError{Commit: commit, Path: fmt.Sprintf("%s line %d", path, n), Reason: fmt.Sprintf("seq %d, want %d", last.Seq, firstSeq+want-1)}
			}
		}
	}
	if n != want {
		return &CorruptError{Commit: commit, Path: path, Reason: fmt.Sprintf("%d events, want %d", n, want)}
	}
	return nil
}

// EventFilter selects events for Events. Zero values select everything.
type EventFilter struct {
	Types    []string
	SinceSeq int64 // only events with seq >= SinceSeq
	Limit    int
}

// Events reads a workflow's events in canonical order, starting at the segment that holds SinceSeq
// rather than at the beginning.
//
// A concurrent gc may move the segments away between reads: the whole read starts over from the
// ref (retryTransient), so `log` fails only on objects that stay missing.
func (s *Store) Events(feature string, f EventFilter) ([]workflow.Event, *Snapshot, error) {
	var out []workflow.Event
	var snap *Snapshot
	err := s.retryTransient(func() error {
		var err error
		out, snap, err = s.eventsOnce(feature, f)
		return err
	})
	return out, snap, err
}

func (s *Store) eventsOnce(feature string, f EventFilter) ([]workflow.Event, *Snapshot, error) {
	h, err := s.readHead(feature)
	if err != nil {
		return nil, nil, err
	}
	types := map[string]bool{}
	for _, t := range f.Types {
		types[t] = true
	}
	from := int64(0)
	if f.SinceSeq > 1 {
		from = (f.SinceSeq - 1) / SegmentSize
	}
	snap := &Snapshot{Feature: feature, Commit: h.commit, Events: h.snap.Events, LastClock: h.snap.LastClock, State: h.snap.State}
	var out []workflow.Event
	for i := from; i < segmentCount(h.snap.Events); i++ {
		done := false
		err := s.scanSegment(h, i, func(e workflow.Event) bool {
			if e.Seq < f.SinceSeq || (len(types) > 0 && !types[e.Type]) {
				return true
			}
			out = append(out, e)
			done = f.Limit > 0 && len(out) >= f.Limit
			return !done
		})
		if err != nil {
			return nil, nil, err
		}
		if done {
			break
		}
	}
	return out, snap, nil
}

// scanSegment decodes segment i line by line, checking each line's seq, and stops when visit
// returns false: `log --limit 1` decodes one event, not 256.
func (s *Store) scanSegment(h *head, i int64, visit func(workflow.Event) bool) error {
	name := segmentName(i)
	entry, ok := h.events.Entry(name)
	if !ok {
		return &CorruptError{Commit: h.commit, Path: "events/" + name, Reason: "segment missing"}
	}
	b, err := s.readBlob(entry.Hash)
	if err != nil {
		return err
	}
	want := int64(SegmentSize)
	if last := segmentCount(h.snap.Events) - 1; i == last {
		want = h.snap.Events - last*SegmentSize
	}
	body := bytes.TrimSuffix(b, []byte("\n"))
	for n := int64(0); len(body) > 0; n++ {
		line := body
		if j := bytes.IndexByte(body, '\n'); j >= 0 {
			line, body = body[:j], body[j+1:]
		} else {
			body = nil
		}
		at := fmt.Sprintf("events/%s line %d", name, n+1)
		if n >= want {
			return &CorruptError{Commit: h.commit, Path: at, Reason: fmt.Sprintf("more than %d events", want)}
		}
		var e workflow.Event
		if err := json.Unmarshal(line, &e); err != nil {
			return &CorruptError{Commit: h.commit, Path: at, Reason: "does not parse: " + err.Error()}
		}
		if e.Seq != i*SegmentSize+n+1 {
			return &CorruptError{Commit: h.commit, Path: at, Reason: fmt.Sprintf("seq %d, want %d", e.Seq, i*SegmentSize+n+1)}
		}
		if !visit(e) {
			return nil
		}
	}
	return nil
}

// Summary is one row of List.
type Summary struct {
	Feature string       `json:"feature"`
	Commit  gitrepo.Hash `json:"-"`
	Head    string       `json:"head"`
	Phase   string       `json:"phase"`
	Type    string       `json:"type"`
	Branch  string       `json:"branch"`
	Events  int64        `json:"events"`
	Updated time.Time    `json:"updated"`
}

// List returns every workflow with its head and phase, read from the commits' trailers: nothing is
// folded and no snapshot is read. Commits are read by a few goroutines at once: each read is a few
// small-file syscalls, and on virtual disks their latency, not CPU, is the cost. Everything that
// decides (verify, fsck, prune, the hooks, resolving a workflow from the branch) lists this way.
func (s *Store) List() ([]Summary, error) { return s.list(false) }

// ListCached is List through the list cache (list_cache.go): a row read before is taken from the
// cache by its commit id. It is for the list command alone, which only shows: the cache is a file
// under .git that anyone can rewrite, and nothing may decide on it.
func (s *Store) ListCached() ([]Summary, error) { return s.list(true) }

func (s *Store) list(useCache bool) ([]Summary, error) {
	// The refs are not checked against the object store first (workflowRefs): reading each commit
	// checks that, and a stat per ref was a tenth of list's time.
	refs, names, _, err := s.git.Refs(RefPrefix, validFeature) // entries that are not workflows are skipped here; fsck names them
	if err != nil {
		return nil, err
	}
	out := make([]Summary, len(names))
	found := make([]bool, len(names))
	errs := make([]error, len(names))
	var cached map[string]listRow
	if useCache {
		cached = s.readListCache()
	}
	var misses []int
	for i, name := range names {
		if row, ok := cached[refs[name].String()]; ok {
			out[i], found[i] = row.summary(strings.TrimPrefix(name, RefPrefix), refs[name]), true
		} else {
			misses = append(misses, i)
		}
	}
	gitrepo.Parallel(len(misses), 16, func(j int) {
		i := misses[j]
		out[i], found[i], errs[i] = s.summary(names[i], refs[names[i]])
	})
	kept := out[:0]
	for i := range out {
		if errs[i] != nil {
			return nil, errs[i]
		}
		if found[i] {
			kept = append(kept, out[i])
		}
	}
	if hits := len(names) - len(misses); useCache && (len(kept) != hits || len(cached) != hits) {
		s.writeListCache(kept) // rows read now in, rows of removed or moved workflows out
	}
	return kept, nil
}

// SummaryOf reads one workflow's head commit as List does (its trailers); found is false when the
// commit is not stored (a broken ref, which fsck names).
func (s *Store) SummaryOf(feature string, commit gitrepo.Hash) (Summary, bool, error) {
	return s.summary(RefName(feature), commit)
}

// summary reads a workflow's head commit. A commit that is not stored (a broken ref; fsck names
// it) is not found, unless a gc is running, which may have moved it or pruned it for a moment.
func (s *Store) summary(name string, commit gitrepo.Hash) (Summary, bool, error) {
	content, err := s.git.ReadObject(commit, plumbing.CommitObject)
	if errors.Is(err, gitrepo.ErrWrongType) {
		return Summary{}, false, nil // a ref to a blob or tree: not a workflow (fsck names it)
	}
	if isTransient(err) {
		s.git.Reindex() // a concurrent gc may have just packed it
		if !s.git.ObjectExists(commit) && !s.git.GCRunning() {
			return Summary{}, false, nil
		}
		err = s.retryTransient(func() error {
			var err error
			content, err = s.git.ReadObject(commit, plumbing.CommitObject)
			return err
		})
	}
	if err != nil {
		return Summary{}, false, fmt.Errorf("read %s: read commit %s: %w", name, commit, err)
	}
	sum, err := summarize(strings.TrimPrefix(name, RefPrefix), commit, content)
	if err != nil {
		return Summary{}, false, fmt.Errorf("read %s: commit %s is corrupt: %w", name, commit, err)
	}
	return sum, true, nil
}

// summarize reads what list shows from a head commit's text: the committer's time and the
// Exarchos-* trailers. Decoding the whole commit made most of list's garbage.
func summarize(feature string, commit gitrepo.Hash, content []byte) (Summary, error) {
	headers, msg, err := gitrepo.CommitHeaders(content)
	if err != nil {
		return Summary{}, err
	}
	when, err := gitrepo.CommitterTime(headers)
	if err != nil {
		return Summary{}, err
	}
	t := ReadTrailers(msg)
	return Summary{Feature: feature, Commit: commit, Head: commit.String(), Updated: when.UTC(), Phase: t.Phase, Type: t.Type, Branch: t.Branch, Events: t.Events}, nil
}

// Exists reports whether a workflow ref exists.
func (s *Store) Exists(feature string) (bool, error) {
	if err := ValidateFeature(feature); err != nil {
		return false, err
	}
	_, ok, err := s.git.Ref(RefName(feature))
	return ok, err
}
