package hookrun

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"

	"github.com/exarchos/git-exarchos/gitrepo"
	"github.com/exarchos/git-exarchos/gitstore"
)

// The hooks' branch index kept current by git exarchos's own writes. Every move of a workflow ref
// this process makes (appends, transitions, restore, cancel: writes.go; sync's merges and
// deletions: engine.Follow) is handed to Moved by the write's caller, from the store's result
// (gitstore.Move), and puts the ref's new commit, branch and inode in the index, under the refs'
// stamp after the move, marked recent. The store calls nobody: a move not handed over (a store
// call made directly) leaves the index's stamp behind, and the next call reads the refs. Without it, the first hook call of
// a new session after any workflow moved read every loose ref's stamp again: 1.5–2.5 times the
// call before issue 28 with 1,000 loose refs (BENCHMARKS.md, "The hook index kept by its writers").
//
// The index is updated only when it is proven to summarise the refs as they are after the move:
//   - it summarised them before (its stamp is the refs' stamp taken before the write, BeforeMoves;
//     a settled stamp proves nothing moved since it was taken, a recent one is checked below);
//   - packed-refs did not change in between (a fetch with --prune rewrites it: a pull that
//     prunes leaves the index to the next reader);
//   - the ref-write log has no line since then naming another ref than the moved ones (another
//     git exarchos process moved one meanwhile: onlyOwnMovesLogged, hook_controls_moves.go);
//   - the loose refs listed after the moves (gitrepo.DirInodes) are exactly the index's, each with
//     the inode its commit was read from, each moved ref with the one whose content is this
//     process's commit (read after the listing: a later move shows another inode), a deleted one
//     absent.
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
// freed, so never by a single replacement). The same holds of the window between BeforeMoves and
// Moved, which is longer than a clock tick: a ref replaced twice in it by something that does not
// write the ref-write log (not git exarchos), its second file given the first's inode back.

// indexMoved puts the refs this process moved, at the commits to names (zero: deleted), in the
// index when the index summarised the refs as they were at pre, the refs' stamp taken before the write that made them
// (RefsBefore). Only the moved refs' lines in the head change: the base is kept as it is.
func (r *Repo) indexMoved(pre string, to map[string]gitrepo.Hash) {
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
		if _, moved := to[f]; e != nil && e.ino != 0 && !moved {
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
	entries := make(map[string]*indexEntry, len(to))
	for feature, commit := range to {
		if commit.IsZero() {
			entries[feature] = nil
			continue
		}
		ino, listed := inodes[feature]
		b, err := os.ReadFile(filepath.Join(r.refsDir(), feature))
		if !listed || err != nil || string(bytes.TrimSpace(b)) != commit.String() {
			return // moved again since, by someone else
		}
		sum, found, err := r.Store.SummaryOf(feature, commit)
		if err != nil || !found || sum.Branch == "" {
			return // the reader reads it (a head without the trailer needs its state)
		}
		entries[feature] = &indexEntry{commit: commit.String(), branch: sum.Branch, ino: ino}
		indexed[feature] = ino
	}
	if !listedAsIndexed(indexed, inodes) {
		return
	}
	for f, e := range entries {
		head[f] = e
	}
	_ = c.writeHead(stampRecent, post, kept.base, encodeHead(head))
}

// finalCommits is the commit each moved ref holds after all of moves, in order (zero: deleted).
func finalCommits(moves []gitstore.Move) map[string]gitrepo.Hash {
	to := make(map[string]gitrepo.Hash, len(moves))
	for _, m := range moves {
		to[m.Feature] = m.To
	}
	return to
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
