package hookrun

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"

	"github.com/exarchos/git-exarchos/gitrepo"
	"github.com/exarchos/git-exarchos/internal/faults"
)

// The hooks' branch index kept current by git exarchos's own writes. Every move of a workflow ref
// this process makes (appends, transitions, restore, cancel, sync's merges and deletions: all go
// through gitstore, which tells its MoveWatcher) puts the ref's new commit, branch and inode in the
// index, under the refs' stamp after the move, marked recent. Without it, the first hook call of
// a new session after any workflow moved read every loose ref's stamp again: 1.5–2.5 times the
// call before issue 28 with 1,000 loose refs (BENCHMARKS.md, "The hook index kept by its writers").
//
// The index is updated only when it is proven to summarise the refs as they are after the move:
//   - it summarised them just before (its stamp is the refs' stamp taken right before the move;
//     a settled stamp proves nothing moved since it was taken, a recent one is checked below);
//   - packed-refs did not change in between;
//   - the loose refs listed after the move (gitrepo.DirInodes) are exactly the index's, each with
//     the inode its commit was read from, the moved ref with the one whose content is this
//     process's commit (read after the listing: a later move shows another inode).
//
// Anything else (a plain `git update-ref` or fetch in between, pack-refs, a concurrent writer
// whose update this one would hide, an index missing or damaged) leaves the index as it was, and
// its stamp no longer matches: the next hook call reads the refs, as before. A kill between the
// move and the index's rename leaves the old index, whose stamp no longer matches either. Two
// writers at once may overwrite each other's update (the file is replaced whole, without a lock):
// the lost one's ref then shows another inode than the index says, and the reader reads the refs.
//
// What a recent stamp cannot see: a ref replaced twice within one clock tick whose second file
// the file system gives the first one's inode number back (inode numbers are reused only once
// freed, so never by a single replacement).

// indexMove is the store's gitstore.MoveWatcher.
func (r *Repo) indexMove(feature string) func(gitrepo.Hash) {
	pre, _ := r.refsStamp()
	return func(commit gitrepo.Hash) {
		faults.Hit("index-before-update") // a kill here leaves the ref moved and the index as it was
		r.indexMoved(feature, pre, commit)
	}
}

// indexMoved puts feature's move to commit (zero: deleted) in the index when the index summarised
// the refs as they were at pre, the refs' stamp taken just before the move. Only the moved
// ref's line in the head changes: the base is kept as it is.
func (r *Repo) indexMoved(feature, pre string, commit gitrepo.Hash) {
	c := r.hookCache()
	kept, ok := r.loadIndex()
	if !ok || kept.stamp != pre || kept.mode != stampSettled && kept.mode != stampRecent || kept.headLines() > 2*packLooseRefsAt {
		return // a head this long is folded into a new base by the next reader
	}
	head, ok := kept.headEntries() // every loose ref's line is in the head
	if !ok {
		return
	}
	indexed := map[string]uint64{}
	for f, e := range head {
		if e != nil && e.ino != 0 && f != feature {
			indexed[f] = e.ino
		}
	}
	post, _ := r.refsStamp() // before the listing: a move after the listing shows another inode
	if packedStamp(post) != packedStamp(pre) {
		return
	}
	inodes, err := gitrepo.DirInodes(r.refsDir())
	if err != nil {
		return
	}
	var moved *indexEntry
	if !commit.IsZero() {
		ino, listed := inodes[feature]
		b, err := os.ReadFile(filepath.Join(r.refsDir(), feature))
		if !listed || err != nil || string(bytes.TrimSpace(b)) != commit.String() {
			return // moved again since, by someone else
		}
		sum, found, err := r.Store.SummaryOf(feature, commit)
		if err != nil || !found || sum.Branch == "" {
			return // the reader reads it (a head without the trailer needs its state)
		}
		moved = &indexEntry{commit: commit.String(), branch: sum.Branch, ino: ino}
		indexed[feature] = ino
	}
	if !listedAsIndexed(indexed, inodes) {
		return
	}
	head[feature] = moved
	_ = c.writeHead(stampRecent, post, kept.base, encodeHead(head))
}

// packedStamp is the packed-refs part of refsStamp's stamp.
func packedStamp(stamp string) string {
	_, packed, _ := strings.Cut(stamp, "|")
	return packed
}

// IndexCurrent reports whether a hook call would take the branch index as it is, reading no ref
// (doctor's and the tests' view of what the writers above keep).
func (r *Repo) IndexCurrent() bool {
	stamp, fresh := r.refsStamp()
	x, ok := r.hookCache().loadIndex()
	if !ok || !r.indexTaken(x, stamp, fresh) {
		return false
	}
	_, ok = x.baseEntries() // a bucket that does not match its CRC is read again when asked for
	return ok
}

// IndexedCommits are the commits the index file names, by workflow; ok is false when it cannot
// be read.
func (r *Repo) IndexedCommits() (commits map[string]string, ok bool) {
	x, ok := r.hookCache().loadIndex()
	if !ok {
		return nil, false
	}
	entries, ok := x.entries()
	if !ok {
		return nil, false
	}
	commits = map[string]string{}
	for f, e := range entries {
		commits[f] = e.commit
	}
	return commits, true
}
