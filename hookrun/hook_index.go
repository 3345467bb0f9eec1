package hookrun

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"sort"
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
// trailer). A stamp younger than a second is not kept (a file system's clock moves in ticks, and a
// second write within one tick leaves the stamp as it was), so the calls of that second read that
// file, or the refs, each time. With a thousand loose refs, reading every file again after one
// moved made a session's first call 2.4 times slower (BENCHMARKS.md, "Per-ref stamps").
//
//	exarchos-hook-index 4 <sha256 of the lines below>
//	<stamp of the refs>
//	<feature> <commit> <stamp of its loose ref, or -> <branch>   one a line, in feature order

const hookIndexVersion = "exarchos-hook-index 4"

// indexEntry is one workflow in the index; loose is the stamp of the loose ref file its commit was
// read from, "" when it was packed or its stamp is not to be kept.
type indexEntry struct{ commit, loose, branch string }

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

// loadIndex reads the index and its stamp; ok is false when it is missing or damaged.
func (c *hookCache) loadIndex() (stamp string, entries map[string]indexEntry, ok bool) {
	b, err := os.ReadFile(c.indexFile())
	if err != nil {
		return "", nil, false
	}
	header, rest, _ := bytes.Cut(b, []byte{'\n'})
	sum := sha256.Sum256(rest)
	if string(header) != hookIndexVersion+" "+hex.EncodeToString(sum[:]) {
		return "", nil, false
	}
	stampLine, body, _ := bytes.Cut(rest, []byte{'\n'})
	entries = map[string]indexEntry{}
	for _, line := range strings.Split(string(body), "\n") {
		if line == "" {
			continue
		}
		f, rest, ok1 := strings.Cut(line, " ")
		commit, rest, ok2 := strings.Cut(rest, " ")
		loose, branch, ok3 := strings.Cut(rest, " ")
		if !ok1 || !ok2 || !ok3 {
			return "", nil, false
		}
		if loose == "-" {
			loose = ""
		}
		entries[f] = indexEntry{commit: commit, loose: loose, branch: branch}
	}
	return string(stampLine), entries, true
}

func (c *hookCache) writeIndex(stamp string, entries map[string]indexEntry) {
	names := make([]string, 0, len(entries))
	for f := range entries {
		names = append(names, f)
	}
	sort.Strings(names)
	var body bytes.Buffer
	body.Grow(len(stamp) + 160*len(names))
	body.WriteString(stamp + "\n")
	for _, f := range names {
		e := entries[f]
		loose := e.loose
		if loose == "" {
			loose = "-"
		}
		for _, s := range []string{f, " ", e.commit, " ", loose, " ", e.branch, "\n"} {
			body.WriteString(s)
		}
	}
	sum := sha256.Sum256(body.Bytes())
	_ = atomicfile.Write(c.indexFile(), append([]byte(hookIndexVersion+" "+hex.EncodeToString(sum[:])+"\n"), body.Bytes()...), 0o644)
}

// branchIndex returns every workflow's commit and branch: the index when the refs are as it
// recorded them, else read again from the refs (and kept). An error means the refs cannot be
// read, and the hook cannot tell what is bound: it fails closed.
func (r *Repo) branchIndex() (map[string]indexEntry, error) {
	c := r.hookCache()
	stamp, fresh := r.refsStamp()
	kept, old, ok := c.loadIndex()
	if ok && kept == stamp && fresh {
		return old, nil
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
	entries := make(map[string]indexEntry, len(names))
	for _, name := range names {
		f, commit := strings.TrimPrefix(name, gitstore.RefPrefix), refs[name]
		if e, ok := old[f]; ok && e.commit == commit.String() {
			e.loose = stamps[name]
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
		entries[f] = indexEntry{commit: commit.String(), loose: stamps[name], branch: branch}
	}
	switch {
	case fresh:
		c.writeIndex(stamp, entries)
	case !ok || !maps.Equal(entries, old):
		c.writeIndex("-", entries) // a stamp that never matches: kept for the commits it need not read again
	}
	return entries, nil
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
