package hookrun

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/exarchos/git-exarchos/gitrepo"
	"github.com/exarchos/git-exarchos/gitstore"
	"github.com/exarchos/git-exarchos/internal/atomicfile"
)

// The hooks' branch → workflow index: which workflows are bound to which branch, so that a tool
// call reads only the workflows of its branch and never lists them all. It is a cache, never taken
// as complete: it is kept with the stamps (inode, size, modification time) of what it summarises,
// the refs/exarchos directory (a ref written by git's lock protocol, by exarchos, `git fetch`,
// `git update-ref` or a restore, is renamed into it), packed-refs and, where refs are kept in
// reftable, its tables.list, and with a sha256 of itself.
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
// (hook_index_moves.go), so the next session's first call finds it so.
//
//	exarchos-hook-index 5 <sha256 of the lines below>
//	settled|recent <stamp of the refs>
//	<feature> <commit> <inode or -> <stamp of its loose ref, or -> <branch>   one a line, in feature order

const hookIndexVersion = "exarchos-hook-index 5"

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
	common := r.Store.Loc.CommonDir
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

func (c *hookCache) indexFile() string { return filepath.Join(c.dir, "index") }

// loadIndex reads the index, its stamp and the stamp's mode; ok is false when it is missing or
// damaged.
func (c *hookCache) loadIndex() (mode, stamp string, entries map[string]indexEntry, ok bool) {
	b, err := os.ReadFile(c.indexFile())
	if err != nil {
		return "", "", nil, false
	}
	header, rest, _ := bytes.Cut(b, []byte{'\n'})
	sum := sha256.Sum256(rest)
	if string(header) != hookIndexVersion+" "+hex.EncodeToString(sum[:]) {
		return "", "", nil, false
	}
	stampLine, body, _ := bytes.Cut(rest, []byte{'\n'})
	mode, stamp, _ = strings.Cut(string(stampLine), " ")
	entries = make(map[string]indexEntry, bytes.Count(body, []byte{'\n'}))
	for len(body) > 0 {
		var line []byte
		line, body, _ = bytes.Cut(body, []byte{'\n'})
		f, rest, ok1 := bytes.Cut(line, []byte{' '})
		commit, rest, ok2 := bytes.Cut(rest, []byte{' '})
		ino, rest, ok3 := bytes.Cut(rest, []byte{' '})
		loose, branch, ok4 := bytes.Cut(rest, []byte{' '})
		if !ok1 || !ok2 || !ok3 || !ok4 {
			return "", "", nil, false
		}
		e := indexEntry{commit: string(commit), branch: string(branch)}
		if string(loose) != "-" {
			e.loose = string(loose)
		}
		if string(ino) != "-" {
			if e.ino, err = strconv.ParseUint(string(ino), 10, 64); err != nil {
				return "", "", nil, false
			}
		}
		entries[string(f)] = e
	}
	return mode, stamp, entries, true
}

// loadedIndex is the index as a process read it, under the stamp its file had then: a hook call
// that reads the index and then moves a ref (binding a session) reads the 1,000-line file once.
type loadedIndex struct {
	file, mode, stamp string
	entries           map[string]indexEntry
}

// loadIndex is hookCache.loadIndex, served again from what this process read while the file is
// the one it read (every write of it is a new file: atomicfile). entries is shared: read only.
func (r *Repo) loadIndex() (mode, stamp string, entries map[string]indexEntry, ok bool) {
	c := r.hookCache()
	file := gitrepo.FileStamp(c.indexFile()) // before the read: a file replaced after it is read again next time
	if k := r.hookIndex.Load(); k != nil && file != "" && k.file == file {
		return k.mode, k.stamp, k.entries, true
	}
	r.hookIndex.Store(nil)
	if mode, stamp, entries, ok = c.loadIndex(); ok && file != "" {
		r.hookIndex.Store(&loadedIndex{file: file, mode: mode, stamp: stamp, entries: entries})
	}
	return mode, stamp, entries, ok
}

func (c *hookCache) writeIndex(mode, stamp string, entries map[string]indexEntry) error {
	names := make([]string, 0, len(entries))
	for f := range entries {
		names = append(names, f)
	}
	sort.Strings(names)
	body := make([]byte, 0, len(stamp)+16+180*len(names))
	body = append(append(append(append(body, mode...), ' '), stamp...), '\n')
	for _, f := range names {
		e := entries[f]
		body = append(append(append(append(body, f...), ' '), e.commit...), ' ')
		if e.ino == 0 {
			body = append(body, '-')
		} else {
			body = strconv.AppendUint(body, e.ino, 10)
		}
		body = append(body, ' ')
		if e.loose == "" {
			body = append(body, '-')
		} else {
			body = append(body, e.loose...)
		}
		body = append(append(append(body, ' '), e.branch...), '\n')
	}
	sum := sha256.Sum256(body)
	return atomicfile.Write(c.indexFile(), append([]byte(hookIndexVersion+" "+hex.EncodeToString(sum[:])+"\n"), body...), 0o644)
}

// branchIndex returns every workflow's commit and branch: the index when the refs are as it
// recorded them, else read again from the refs (and kept). An error means the refs cannot be
// read, and the hook cannot tell what is bound: it fails closed.
func (r *Repo) branchIndex() (map[string]indexEntry, error) {
	c := r.hookCache()
	stamp, fresh := r.refsStamp()
	mode, kept, old, ok := r.loadIndex()
	if ok && r.indexTaken(mode, kept, stamp, fresh, old) {
		return old, nil
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
	refs, names, stamps, err := gitrepo.ScanRefsKnown(r.Store.Loc.CommonDir, gitstore.RefPrefix, func(f string) bool { return gitstore.ValidateFeature(f) == nil }, known)
	if err != nil {
		return nil, fmt.Errorf("read the workflow refs for the hooks' branch index: %w", err)
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
	switch {
	case fresh:
		_ = c.writeIndex(stampSettled, stamp, entries)
	case inodes != nil && (!ok || mode != stampRecent || kept != stamp || !maps.Equal(entries, old)):
		_ = c.writeIndex(stampRecent, stamp, entries)
	case inodes == nil && (!ok || !maps.Equal(entries, old)):
		_ = c.writeIndex(stampRecent, "-", entries) // a stamp that never matches: kept for the commits it need not read again
	}
	return entries, nil
}

// stampInode is the inode number in a loose ref's stamp (dev:ino:size:mtime), 0 when it has none.
func stampInode(stamp string) uint64 {
	if parts := strings.Split(stamp, ":"); len(parts) == 4 {
		if ino, err := strconv.ParseUint(parts[1], 10, 64); err == nil {
			return ino
		}
	}
	return 0
}

// indexTaken reports whether an index kept under mode and stamp kept summarises the refs, whose
// stamp is now stamp (fresh: older than a tick), without reading them.
func (r *Repo) indexTaken(mode, kept, stamp string, fresh bool, entries map[string]indexEntry) bool {
	if kept != stamp {
		return false
	}
	switch mode {
	case stampSettled:
		return fresh
	case stampRecent:
		return !fresh && r.inodesAsIndexed(entries) != nil
	}
	return false
}

func (r *Repo) refsDir() string { return filepath.Join(r.Store.Loc.CommonDir, "refs", "exarchos") }

// inodesAsIndexed lists the loose refs with their inodes and returns the listing when it is the
// one entries were read from (listedAsIndexed); nil otherwise, or when the directory cannot be
// listed so.
func (r *Repo) inodesAsIndexed(entries map[string]indexEntry) map[string]uint64 {
	inodes, err := gitrepo.DirInodes(r.refsDir())
	if errors.Is(err, fs.ErrNotExist) {
		inodes, err = map[string]uint64{}, nil
	}
	if err != nil || !listedAsIndexed(entries, inodes) {
		return nil
	}
	return inodes
}

// listedAsIndexed reports whether every valid ref name in the listing is in entries with the
// inode its commit was read from, and every entry read from a loose file is listed.
func listedAsIndexed(entries map[string]indexEntry, inodes map[string]uint64) bool {
	unmatched := 0
	for _, e := range entries {
		if e.ino != 0 {
			unmatched++
		}
	}
	for name, ino := range inodes {
		if gitstore.ValidateFeature(name) != nil {
			continue // not a ref (a lock, junk): skipped by every reader
		}
		if e, ok := entries[name]; !ok || e.ino != ino {
			return false
		}
		unmatched--
	}
	return unmatched == 0
}

// featuresOn are the workflows the index binds to branch, in name order.
func featuresOn(entries map[string]indexEntry, branch string) []string {
	var out []string
	for f, e := range entries {
		if e.branch == branch {
			out = append(out, f)
		}
	}
	sort.Strings(out)
	return out
}
