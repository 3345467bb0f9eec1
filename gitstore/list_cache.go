package gitstore

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/exarchos/git-exarchos/gitrepo"
	"github.com/exarchos/git-exarchos/internal/atomicfile"
	"github.com/exarchos/git-exarchos/internal/jsonstr"
)

// The list cache keeps each row of `list` under the head commit it was read from, in
// <common dir>/exarchos-cache/list, so that list reads the refs and one file instead of a commit
// per workflow (1,000 commit reads were most of list's time, from loose files or from a pack; with
// the cache and that stop's row writer `list --json` went from 26.17 to 16.34 ms loose and 11.70 to
// 8.15 ms after gc, BENCHMARKS.md,
// "List from a cache of rows, append with fewer system calls", third stop):
//
//	exarchos-list 1 <sha256 of the rest>
//	<commit id> <committer time, unix seconds> <events> <phase>\t<type>\t<branch>
//
// A row is a function of its commit's content, which its id names, so a row is never stale: a
// workflow that moved has a new head and misses. A file that does not hash to its header (edited,
// or from another version) is ignored whole and written again. Everything here may be deleted at
// any time. A row outlives its commit only if the object is deleted by hand while the ref stays:
// that is a broken ref, which fsck names.
const (
	listCacheFile   = "exarchos-cache/list"
	listCacheHeader = "exarchos-list 1"
)

// listRow is what a cached row keeps of a Summary; the feature comes from the ref.
type listRow struct {
	updated, events    int64
	phase, typ, branch string
}

func (s *Store) listCachePath() string {
	return filepath.Join(s.loc.CommonDir, filepath.FromSlash(listCacheFile))
}

// readListCache returns the cached rows by commit id, or nil when there is no intact cache.
func (s *Store) readListCache() map[string]listRow {
	b, err := os.ReadFile(s.listCachePath())
	if err != nil {
		return nil
	}
	first, body, ok := bytes.Cut(b, []byte{'\n'})
	if !ok || string(first) != listCacheHeader+" "+bodySum(body) {
		return nil
	}
	// One string holds the body; ids and fields are slices of it, not copies.
	text := string(body)
	rows := make(map[string]listRow, strings.Count(text, "\n"))
	for len(text) > 0 {
		var line string
		line, text, _ = strings.Cut(text, "\n")
		id, rest, _ := strings.Cut(line, " ")
		updated, rest, _ := strings.Cut(rest, " ")
		events, rest, _ := strings.Cut(rest, " ")
		phase, rest, ok1 := strings.Cut(rest, "\t")
		typ, branch, ok2 := strings.Cut(rest, "\t")
		u, err1 := strconv.ParseInt(updated, 10, 64)
		e, err2 := strconv.ParseInt(events, 10, 64)
		if err1 != nil || err2 != nil || !ok1 || !ok2 || strings.Contains(branch, "\t") {
			return nil // not what this version writes
		}
		rows[id] = listRow{updated: u, events: e, phase: phase, typ: typ, branch: branch}
	}
	return rows
}

// writeListCache writes the rows of sums anew. Errors are ignored: the cache only saves reads, and
// a repository the user cannot write to still lists correctly, only slower.
func (s *Store) writeListCache(sums []Summary) {
	var body bytes.Buffer
	for _, sum := range sums {
		if strings.ContainsAny(sum.Phase+sum.Type+sum.Branch, "\t\n") {
			continue // a trailer this format cannot hold: read from its commit every time
		}
		body.WriteString(sum.Commit.String())
		body.WriteByte(' ')
		body.WriteString(strconv.FormatInt(sum.Updated.Unix(), 10))
		body.WriteByte(' ')
		body.WriteString(strconv.FormatInt(sum.Events, 10))
		body.WriteByte(' ')
		body.WriteString(sum.Phase + "\t" + sum.Type + "\t" + sum.Branch + "\n")
	}
	content := append([]byte(listCacheHeader+" "+bodySum(body.Bytes())+"\n"), body.Bytes()...)
	_ = atomicfile.Write(s.listCachePath(), content, 0o644)
}

func bodySum(body []byte) string {
	sum := sha256.Sum256(body)
	return hex.EncodeToString(sum[:])
}

// AppendJSON appends the summary as encoding/json would encode it (its struct tags, HTML not
// escaped), by hand: reflection over a thousand rows was a tenth of list's time.
func (s Summary) AppendJSON(b []byte) []byte {
	b = append(b, `{"feature":`...)
	b = jsonstr.Append(b, s.Feature, false)
	b = append(b, `,"head":`...)
	b = jsonstr.Append(b, s.Head, false)
	b = append(b, `,"phase":`...)
	b = jsonstr.Append(b, s.Phase, false)
	b = append(b, `,"type":`...)
	b = jsonstr.Append(b, s.Type, false)
	b = append(b, `,"branch":`...)
	b = jsonstr.Append(b, s.Branch, false)
	b = append(b, `,"events":`...)
	b = strconv.AppendInt(b, s.Events, 10)
	b = append(b, `,"updated":"`...)
	b = s.Updated.AppendFormat(b, time.RFC3339Nano)
	return append(b, `"}`...)
}

// summary is the row as list shows it.
func (r listRow) summary(feature string, commit gitrepo.Hash) Summary {
	return Summary{Feature: feature, Commit: commit, Head: commit.String(), Phase: r.phase, Type: r.typ,
		Branch: r.branch, Events: r.events, Updated: time.Unix(r.updated, 0).UTC()}
}
