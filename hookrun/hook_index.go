package hookrun

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/exarchos/git-exarchos/gitrepo"
	"github.com/exarchos/git-exarchos/gitstore"
)

// The hooks' branch → workflow index: which workflows are bound to which branch, so that a tool
// call reads only the workflows of its branch and never lists them all. It is a cache, never taken
// as complete: it is kept with the stamps (inode, size, modification time) of what it summarises,
// the refs/exarchos directory (a ref written by git's lock protocol, by exarchos, `git fetch`,
// `git update-ref` or a restore, is renamed into it), packed-refs and, where refs are kept in
// reftable, its tables.list, and with a checksum of itself.
// A hook call stats those two and reads the one file; when a stamp differs, or the file is missing,
// damaged or short of a line, the index is read again from the refs, with no git process: the
// directory is listed and each loose ref stamped (lstat); a ref whose file's stamp is the one the
// index kept keeps its commit unread, any other file is read; a ref whose commit is the one the
// index knows keeps its branch, any other commit is read (its head commit's Exarchos-Branch
// trailer). With a thousand loose refs, reading every file again after one moved made a session's
// first call 2.4 times slower (BENCHMARKS.md, "Per-ref stamps").
//
// A file system's clock moves in ticks, and a second write within one tick leaves a stamp as it
// was. So a stamp is "settled" (taken alone) only when it is older than a second; a "recent" one
// is taken only together with the loose refs' inode numbers, read from the directory listing
// (gitrepo.DirInodes, no stat): every valid name must be listed with the inode the index read
// its commit from, and no other. A ref replaced by a rename is a new inode, so what moved in the
// same tick is still seen; once the stamp is older than a tick the index is checked against the
// refs' stamps again and kept settled. git exarchos's own moves of a ref keep the index current
// (hook_index_moves.go), so the next session's first call finds it so. Where 1,000 or more
// refs are loose, the hook packs them (packLooseRefsAt), so that what is looked at on each call
// stays small however many workflows a repository holds. The index's two files are described in
// hook_index_file.go.

// indexEntry is one workflow in the index; loose is the stamp of the loose ref file its commit was
// read from, "" when it was packed or its stamp is not to be kept; ino is that file's inode
// number as listed before it was read (0: packed, or not listed).
type indexEntry struct {
	commit, loose, branch string
	ino                   uint64
}

// The index's stamp is settled (taken alone) or recent (taken with the loose refs' inodes).
const (
	stampSettled = "settled"
	stampRecent  = "recent"
)

// refsStamp names the version of the refs the index summarises; fresh is false while a write in
// the same clock tick could still leave it unchanged.
func (r *Repo) refsStamp() (stamp string, fresh bool) {
	common := r.CommonDir()
	fresh = true
	var parts []string
	// reftable/tables.list is renamed over on every ref write where refs are kept in reftable.
	for _, p := range []string{filepath.Join(common, "refs", "exarchos"), filepath.Join(common, "packed-refs"), filepath.Join(common, "reftable", "tables.list")} {
		fi, err := os.Stat(p)
		if err != nil && strings.HasSuffix(p, "tables.list") {
			continue // refs kept as files
		}
		if err != nil {
			parts = append(parts, "-")
			continue
		}
		if time.Since(fi.ModTime()) < time.Second {
			fresh = false
		}
		parts = append(parts, gitrepo.FileStamp(p))
	}
	return strings.Join(parts, "|"), fresh
}

// packLooseRefsAt is how many loose workflow refs make the hook pack them (packRefs, as `git gc`
// packs refs): every look at the loose refs (the listing a recent stamp is taken
// with, the controls' stamps, a rebuild's scan) is proportional to them, and with 10,000 loose
// refs a session's first call took 4.9 times as long as before issue 28 (BENCHMARKS.md, "10,000
// loose workflow refs"). Workflow refs arrive loose: every move of one writes a loose file, and a
// fetch by plain git writes thousands at once.
const packLooseRefsAt = 1000

// packRefs packs the refs when loose is packLooseRefsAt or more, and reports whether it did:
// only the workflow refs where git can (`--include`, git 2.42), every ref as `git gc` does where
// it cannot (the branches' refs read from packed-refs cost git and the hook a little on every
// call). A failure leaves them loose, read as before: another pack-refs or gc holding
// packed-refs.lock (not waited for: git would wait a second for it on every call), or a lock a
// killed git left (not tried at all while it is there: `git exarchos doctor` names it).
func (r *Repo) packRefs(loose int) bool {
	if loose < packLooseRefsAt {
		return false
	}
	if _, err := os.Lstat(filepath.Join(r.CommonDir(), "packed-refs.lock")); err == nil {
		return false
	}
	_, err := r.Location().Git(nil, "-c", "core.packedRefsTimeout=0", "pack-refs", "--include="+gitstore.RefPrefix+"*", "--prune")
	if gitrepo.ExitCode(err) == 129 { // git before 2.42: no --include
		_, err = r.Location().Git(nil, "-c", "core.packedRefsTimeout=0", "pack-refs", "--all", "--prune")
	}
	return err == nil
}

// branchIndex returns the index: as kept when the refs are as it recorded them, else read again
// from the refs (and kept). An error means the refs cannot be read, and the hook cannot tell what
// is bound: it fails closed.
func (r *Repo) branchIndex() (*indexFile, error) {
	return r.readBranchIndex(true, false)
}

// featuresOnBranches returns, for each branch, the workflows the index binds to it, in name order.
func (r *Repo) featuresOnBranches(branches []string) (map[string][]string, error) {
	x, err := r.branchIndex()
	if err != nil {
		return nil, err
	}
	if out, ok := x.featuresOn(branches); ok {
		return out, nil
	}
	// The base is gone, damaged, or another process's since the head was read: read the refs.
	if x, err = r.readBranchIndex(false, true); err != nil {
		return nil, err
	}
	out, _ := x.featuresOn(branches) // a rebuilt index answers from memory
	return out, nil
}

// readBranchIndex is branchIndex; mayPack lets it pack the refs, rebuild reads the refs whatever
// the index says.
func (r *Repo) readBranchIndex(mayPack, rebuild bool) (*indexFile, error) {
	c := r.hookCache()
	stamp, fresh := r.refsStamp()
	kept, ok := r.loadIndex()
	if ok && kept.stamp == stamp && !rebuild {
		switch {
		case kept.mode == stampSettled && fresh:
			return kept, nil
		case kept.mode == stampRecent:
			if inodes := r.inodesAsIndexed(kept); inodes != nil {
				if mayPack && r.packRefs(len(inodes)) {
					return r.readBranchIndex(false, false)
				}
				if !fresh {
					return kept, nil
				}
				if settled := r.settleIndex(kept, stamp); settled != nil {
					return settled, nil
				}
			}
		}
	}
	var old, base map[string]indexEntry
	if ok {
		base, _ = kept.baseEntries() // read once: compared below, and under the head the known commits
		old = kept.over(base)
	}
	// A recent stamp is kept with the inodes listed before any file is read (a ref replaced after
	// this shows another inode next time); a settled one takes them from the refs' own stamps.
	var inodes map[string]uint64
	if !fresh {
		inodes, _ = gitrepo.DirInodes(r.refsDir())
	}
	known := make(map[string]gitrepo.StampedRef, len(old))
	for f, e := range old {
		if h, ok := gitrepo.ParseHash([]byte(e.commit)); ok && e.loose != "" {
			known[gitstore.RefPrefix+f] = gitrepo.StampedRef{Hash: h, Stamp: e.loose}
		}
	}
	refs, names, stamps, err := gitrepo.ScanRefsKnown(r.CommonDir(), gitstore.RefPrefix, func(f string) bool { return gitstore.ValidateFeature(f) == nil }, known)
	if err != nil {
		return nil, fmt.Errorf("read the workflow refs for the hooks' branch index: %w", err)
	}
	if mayPack && r.packRefs(len(stamps)) {
		return r.readBranchIndex(false, true)
	}
	inodeOf := func(f, name string) uint64 {
		if inodes != nil {
			return inodes[f]
		}
		return stampInode(stamps[name])
	}
	entries := make(map[string]indexEntry, len(names))
	for _, name := range names {
		f, commit := strings.TrimPrefix(name, gitstore.RefPrefix), refs[name]
		if e, ok := old[f]; ok && e.commit == commit.String() {
			e.loose, e.ino = stamps[name], inodeOf(f, name)
			entries[f] = e
			continue
		}
		// What fsck reports (a ref to a missing commit) binds nothing; a commit that cannot be
		// read is an error: the workflow may be bound here.
		sum, found, err := r.Store.SummaryOf(f, commit)
		if err != nil {
			return nil, fmt.Errorf("workflow %s: %w", f, err)
		}
		if !found {
			continue
		}
		branch := sum.Branch
		if branch == "" { // a head without the trailer (an older version wrote it)
			st, ok, err := r.hookState(f)
			if err != nil {
				return nil, fmt.Errorf("workflow %s: %w", f, err)
			}
			if !ok {
				continue
			}
			branch = st.Branch
		}
		entries[f] = indexEntry{commit: commit.String(), loose: stamps[name], branch: branch, ino: inodeOf(f, name)}
	}
	// The base is written again only when a workflow's commit or branch differs from it; the
	// head keeps the loose refs' entries.
	gen := ""
	if ok && sameCommitsAndBranches(base, entries) {
		gen = kept.base
	} else if gen, err = c.writeBase(entries); err != nil {
		gen = "-"
	}
	head := map[string]*indexEntry{}
	for f, e := range entries {
		if e.ino != 0 || e.loose != "" {
			head[f] = &e
		}
	}
	mode, keptStamp := stampRecent, "-" // a stamp that never matches: kept for the commits it need not read again
	switch {
	case fresh:
		mode, keptStamp = stampSettled, stamp
	case inodes != nil:
		keptStamp = stamp
	}
	_ = c.writeHead(mode, keptStamp, gen, encodeHead(head))
	return &indexFile{mode: mode, stamp: keptStamp, base: gen, all: entries}, nil
}

// sameCommitsAndBranches reports whether base names every workflow of entries at its commit and
// branch, and no other.
func sameCommitsAndBranches(base, entries map[string]indexEntry) bool {
	if base == nil || len(base) != len(entries) {
		return false
	}
	for f, e := range entries {
		if b, ok := base[f]; !ok || b.commit != e.commit || b.branch != e.branch {
			return false
		}
	}
	return true
}

// stampInode is the inode number in a loose ref's stamp (dev:ino:size:mtime:ctime), 0 when it has
// none.
func stampInode(stamp string) uint64 {
	if parts := strings.Split(stamp, ":"); len(parts) >= 4 {
		if ino, err := strconv.ParseUint(parts[1], 10, 64); err == nil {
			return ino
		}
	}
	return 0
}

// settleIndex takes as settled a recent index whose stamp is now older than a clock tick, its
// loose refs listed as it read them (inodesAsIndexed, by the caller): each loose ref's file is
// stamped, and read again where its stamp is not one the index kept (a rewrite in place after the
// index read it). nil when a file is younger than a tick, gone, or holds
// another commit: the caller reads the refs again. With packed refs and a few loose ones this is a
// few stats, where reading the refs again parsed packed-refs and every line of the index.
func (r *Repo) settleIndex(x *indexFile, stamp string) *indexFile {
	loose, ok := x.looseEntries()
	if !ok {
		return nil
	}
	names := make([]string, 0, len(loose))
	for f := range loose {
		names = append(names, f)
	}
	changes := map[string]*indexEntry{}
	for i, s := range gitrepo.SettledStampsIn(r.refsDir(), names) {
		e := loose[names[i]]
		if s == "" || stampInode(s) != e.ino {
			return nil
		}
		if s == e.loose {
			continue
		}
		b, err := os.ReadFile(filepath.Join(r.refsDir(), names[i])) // after its stamp: a later write shows as another
		if err != nil || string(bytes.TrimSpace(b)) != e.commit {
			return nil
		}
		e.loose = s
		changes[names[i]] = &e
	}
	// Kept in memory only: a session's first call moves a ref next (its binding), and that move
	// writes the index again; creating a file costs this disk half a millisecond.
	head := x.head
	if len(changes) > 0 {
		head = x.withEntries(changes)
	}
	return &indexFile{mode: stampSettled, stamp: stamp, base: x.base, head: head, basePath: x.basePath}
}

// indexTaken reports whether the index x would be taken, without reading the refs, while their
// stamp is stamp (fresh: older than a tick).
func (r *Repo) indexTaken(x *indexFile, stamp string, fresh bool) bool {
	if x.stamp != stamp {
		return false
	}
	switch x.mode {
	case stampSettled:
		return fresh
	case stampRecent:
		return !fresh && r.inodesAsIndexed(x) != nil
	}
	return false
}

func (r *Repo) refsDir() string { return filepath.Join(r.CommonDir(), "refs", "exarchos") }

// inodesAsIndexed lists the loose refs with their inodes and returns the listing when it is the
// one x was read from (listedAsIndexed); nil otherwise, or when the directory cannot be listed so.
func (r *Repo) inodesAsIndexed(x *indexFile) map[string]uint64 {
	indexed, ok := x.looseInodes()
	if !ok {
		return nil
	}
	inodes, err := gitrepo.DirInodes(r.refsDir())
	if errors.Is(err, fs.ErrNotExist) {
		inodes, err = map[string]uint64{}, nil
	}
	if err != nil || !listedAsIndexed(indexed, inodes) {
		return nil
	}
	return inodes
}

// listedAsIndexed reports whether every valid ref name in the listing is indexed with the inode
// its commit was read from, and every entry read from a loose file (indexed) is listed.
func listedAsIndexed(indexed, inodes map[string]uint64) bool {
	unmatched := len(indexed)
	for name, ino := range inodes {
		if gitstore.ValidateFeature(name) != nil {
			continue // not a ref (a lock, junk): skipped by every reader
		}
		if i, ok := indexed[name]; !ok || i != ino {
			return false
		}
		unmatched--
	}
	return unmatched == 0
}
