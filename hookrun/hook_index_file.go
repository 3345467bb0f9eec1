package hookrun

// The branch index on disk, in two files, so that a hook call reads a few kilobytes however many
// workflows the repository holds. Read whole, one file of 10,000 workflows (700 KB) was parsed on
// every call and written again on every own move of a ref: with the listing a recent stamp needs,
// the first call of a new session took 1.5–1.8 times as long as before issue 28 (BENCHMARKS.md,
// "The branch index in two files").
//
//   - index, the head (small): the stamp, the base it applies to, and a line for every workflow
//     read from a loose ref (with its inode and stamp) or moved or deleted since the base was
//     written. Every own move rewrites only this file.
//
//     exarchos-hook-index 7 <length>-<CRC-32C of the lines below>
//     settled|recent <base generation> <stamp of the refs>
//     <feature> <commit> <inode or -> <stamp of its loose ref, or -> <branch>   in feature order
//     <feature> -                                                               deleted since the base
//
//   - index-base, written when the index is read again from the refs: every workflow's commit and
//     branch, in 256 buckets by a hash of the branch, each with its place and CRC-32C in a
//     directory of fixed width at the top. A call reads the directory and its branch's bucket.
//
//     exarchos-hook-index-base 1 <generation, 16 hex>
//     <offset, 16 hex> <length, 8 hex> <CRC-32C, 8 hex>                      256 lines
//     <feature> <commit> <branch>                                               per bucket, in feature order
//
// A head line wins over the base's line for its workflow. A base that is missing, damaged or not
// the generation the head names (another process rebuilt it since) is not taken: the refs are
// read again.

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"hash/crc32"
	"hash/fnv"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/exarchos/git-exarchos/gitrepo"
	"github.com/exarchos/git-exarchos/internal/atomicfile"
)

const (
	hookIndexVersion = "exarchos-hook-index 7"
	indexBaseVersion = "exarchos-hook-index-base 1"
	indexBuckets     = 256
	// The base's header line and directory have a fixed width: one read gets both.
	indexBaseHeaderLen = len(indexBaseVersion) + 1 + 16 + 1
	indexBaseDirLine   = 16 + 1 + 8 + 1 + 8 + 1
	indexBaseDataStart = indexBaseHeaderLen + indexBuckets*indexBaseDirLine
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

func (c *hookCache) indexFile() string     { return filepath.Join(c.dir, "index") }
func (c *hookCache) indexBaseFile() string { return filepath.Join(c.dir, "index-base") }

// indexFile is the index as read: the head's lines, and where to read the base. After a rebuild
// it holds every entry in memory (all) and reads no file.
type indexFile struct {
	mode, stamp, base string
	head              []byte // the head's entry lines
	basePath          string
	all               map[string]indexEntry
}

// indexSum names the head's content: its length and CRC-32C. It finds damage (a file cut short, a
// line lost); it is not a signature (the cache is under .git/, which the hook keeps the agent from
// writing, and whoever can write there can write a sum too).
func indexSum(b []byte) string {
	return strconv.Itoa(len(b)) + "-" + strconv.FormatUint(uint64(crc32.Checksum(b, castagnoli)), 16)
}

// parseIndexFile reads the head; ok is false when it is damaged.
func parseIndexFile(b []byte, basePath string) (*indexFile, bool) {
	header, rest, _ := bytes.Cut(b, []byte{'\n'})
	if string(header) != hookIndexVersion+" "+indexSum(rest) {
		return nil, false
	}
	stampLine, body, ok := bytes.Cut(rest, []byte{'\n'})
	if !ok || len(body) > 0 && body[len(body)-1] != '\n' {
		return nil, false
	}
	mode, afterMode, ok1 := strings.Cut(string(stampLine), " ")
	base, stamp, ok2 := strings.Cut(afterMode, " ") // the stamp last: it holds spaces
	if !ok1 || !ok2 {
		return nil, false
	}
	return &indexFile{mode: mode, stamp: stamp, base: base, head: body, basePath: basePath}, true
}

// eachLine is each of b's lines, without its newline.
func eachLine(b []byte) func(yield func([]byte) bool) {
	return func(yield func([]byte) bool) {
		for line := range bytes.Lines(b) {
			if !yield(bytes.TrimSuffix(line, []byte{'\n'})) {
				return
			}
		}
	}
}

// parseHeadLine reads one head line: an entry, or a deletion (deleted true).
func parseHeadLine(line []byte) (feature string, e indexEntry, deleted, ok bool) {
	f, rest, ok1 := bytes.Cut(line, []byte{' '})
	if !ok1 || len(f) == 0 {
		return "", indexEntry{}, false, false
	}
	if string(rest) == "-" {
		return string(f), indexEntry{}, true, true
	}
	commit, rest, ok2 := bytes.Cut(rest, []byte{' '})
	ino, rest, ok3 := bytes.Cut(rest, []byte{' '})
	loose, branch, ok4 := bytes.Cut(rest, []byte{' '})
	if !ok2 || !ok3 || !ok4 {
		return "", indexEntry{}, false, false
	}
	e = indexEntry{commit: string(commit), branch: string(branch)}
	if string(loose) != "-" {
		e.loose = string(loose)
	}
	if string(ino) != "-" {
		n, err := strconv.ParseUint(string(ino), 10, 64)
		if err != nil {
			return "", indexEntry{}, false, false
		}
		e.ino = n
	}
	return string(f), e, false, true
}

// appendHeadLine appends e's head line (nil: the feature's deletion).
func appendHeadLine(b []byte, feature string, e *indexEntry) []byte {
	b = append(b, feature...)
	if e == nil {
		return append(b, " -\n"...)
	}
	b = append(append(append(b, ' '), e.commit...), ' ')
	if e.ino == 0 {
		b = append(b, '-')
	} else {
		b = strconv.AppendUint(b, e.ino, 10)
	}
	b = append(b, ' ')
	if e.loose == "" {
		b = append(b, '-')
	} else {
		b = append(b, e.loose...)
	}
	return append(append(append(b, ' '), e.branch...), '\n')
}

// headEntries are the head's lines: entries, and deletions as nil; ok is false when one is damaged.
func (x *indexFile) headEntries() (map[string]*indexEntry, bool) {
	out := map[string]*indexEntry{}
	for line := range eachLine(x.head) {
		f, e, deleted, ok := parseHeadLine(line)
		switch {
		case !ok:
			return nil, false
		case deleted:
			out[f] = nil
		default:
			out[f] = &e
		}
	}
	return out, true
}

// looseEntries are the entries read from a loose file (inode known): all of them are in the head.
func (x *indexFile) looseEntries() (map[string]indexEntry, bool) {
	out := map[string]indexEntry{}
	if x.all != nil {
		for f, e := range x.all {
			if e.ino != 0 {
				out[f] = e
			}
		}
		return out, true
	}
	head, ok := x.headEntries()
	if !ok {
		return nil, false
	}
	for f, e := range head {
		if e != nil && e.ino != 0 {
			out[f] = *e
		}
	}
	return out, true
}

// looseInodes are looseEntries' inode numbers.
func (x *indexFile) looseInodes() (map[string]uint64, bool) {
	loose, ok := x.looseEntries()
	if !ok {
		return nil, false
	}
	out := make(map[string]uint64, len(loose))
	for f, e := range loose {
		out[f] = e.ino
	}
	return out, true
}

// withEntries is the head with each changed workflow's line replaced (nil: deleted), in order.
func (x *indexFile) withEntries(changes map[string]*indexEntry) []byte {
	head, _ := x.headEntries()
	for f, e := range changes {
		head[f] = e
	}
	return encodeHead(head)
}

func encodeHead(head map[string]*indexEntry) []byte {
	names := make([]string, 0, len(head))
	for f := range head {
		names = append(names, f)
	}
	sort.Strings(names)
	var b []byte
	for _, f := range names {
		b = appendHeadLine(b, f, head[f])
	}
	return b
}

// headLines is the number of lines of the head.
func (x *indexFile) headLines() int { return bytes.Count(x.head, []byte{'\n'}) }

// bucketOf is the base's bucket of a branch.
func bucketOf(branch string) int {
	h := fnv.New32a()
	h.Write([]byte(branch))
	return int(h.Sum32() % indexBuckets)
}

// baseSpan is one bucket's place in the base's data, and its CRC-32C.
type baseSpan struct {
	off, n int64
	sum    uint32
}

// openBase opens the base and reads its directory, when it is the generation gen.
func openBase(path, gen string) (*os.File, []baseSpan, bool) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, false
	}
	head := make([]byte, indexBaseDataStart)
	if _, err := io.ReadFull(f, head); err != nil || string(head[:indexBaseHeaderLen]) != indexBaseVersion+" "+gen+"\n" {
		f.Close()
		return nil, nil, false
	}
	spans := make([]baseSpan, indexBuckets)
	for i := range spans {
		line := head[indexBaseHeaderLen+i*indexBaseDirLine:][:indexBaseDirLine]
		off, err1 := strconv.ParseInt(string(line[:16]), 16, 64)
		n, err2 := strconv.ParseInt(string(line[17:25]), 16, 64)
		sum, err3 := strconv.ParseUint(string(line[26:34]), 16, 32)
		if err1 != nil || err2 != nil || err3 != nil || line[indexBaseDirLine-1] != '\n' {
			f.Close()
			return nil, nil, false
		}
		spans[i] = baseSpan{off: off, n: n, sum: uint32(sum)}
	}
	return f, spans, true
}

// readBucket reads one bucket's lines, checked against its CRC-32C.
func readBucket(f *os.File, s baseSpan) ([]byte, bool) {
	b := make([]byte, s.n)
	if _, err := f.ReadAt(b, int64(indexBaseDataStart)+s.off); err != nil && !(err == io.EOF && s.n == 0) {
		return nil, false
	}
	return b, crc32.Checksum(b, castagnoli) == s.sum
}

// eachBaseLine calls fn with each line of a bucket, "<feature> <commit> <branch>"; false when a
// line does not read so.
func eachBaseLine(bucket []byte, fn func(feature, commit, branch string)) bool {
	for line := range eachLine(bucket) {
		f, rest, ok1 := bytes.Cut(line, []byte{' '})
		c, br, ok2 := bytes.Cut(rest, []byte{' '})
		if !ok1 || !ok2 || len(f) == 0 {
			return false
		}
		fn(string(f), string(c), string(br))
	}
	return true
}

// featuresOn returns, for each branch, the workflows the index binds to it, in name order; ok is
// false when the base cannot be read as the head names it.
func (x *indexFile) featuresOn(branches []string) (map[string][]string, bool) {
	out := make(map[string][]string, len(branches))
	if x.all != nil {
		for _, b := range branches {
			for f, e := range x.all {
				if e.branch == b {
					out[b] = append(out[b], f)
				}
			}
			sort.Strings(out[b])
		}
		return out, true
	}
	head, ok := x.headEntries()
	if !ok {
		return nil, false
	}
	f, spans, ok := openBase(x.basePath, x.base)
	if !ok {
		return nil, false
	}
	defer f.Close()
	for _, b := range branches {
		if _, done := out[b]; done || b == "" {
			continue
		}
		bucket, ok := readBucket(f, spans[bucketOf(b)])
		if !ok {
			return nil, false
		}
		var fs []string
		if !eachBaseLine(bucket, func(feature, _, branch string) {
			if _, overridden := head[feature]; branch == b && !overridden {
				fs = append(fs, feature)
			}
		}) {
			return nil, false
		}
		for feature, e := range head {
			if e != nil && e.branch == b {
				fs = append(fs, feature)
			}
		}
		sort.Strings(fs)
		out[b] = fs
	}
	return out, true
}

// entries is every entry, the base's with the head's over them (a rebuild's starting point); ok
// is false when the base cannot be read as the head names it (the head's entries are still given).
func (x *indexFile) entries() (map[string]indexEntry, bool) {
	if x.all != nil {
		return x.all, true
	}
	base, ok := x.baseEntries()
	return x.over(base), ok
}

// over is base (read by baseEntries, nil when it could not be) with the head's lines over it.
func (x *indexFile) over(base map[string]indexEntry) map[string]indexEntry {
	out := make(map[string]indexEntry, len(base))
	for f, e := range base {
		out[f] = e
	}
	head, _ := x.headEntries()
	for f, e := range head {
		if e == nil {
			delete(out, f)
		} else {
			out[f] = *e
		}
	}
	return out
}

// baseEntries reads every bucket of the base.
func (x *indexFile) baseEntries() (map[string]indexEntry, bool) {
	f, spans, ok := openBase(x.basePath, x.base)
	if !ok {
		return nil, false
	}
	defer f.Close()
	out := map[string]indexEntry{}
	for _, s := range spans {
		bucket, ok := readBucket(f, s)
		if !ok {
			return nil, false
		}
		if !eachBaseLine(bucket, func(feature, commit, branch string) {
			out[feature] = indexEntry{commit: commit, branch: branch}
		}) {
			return nil, false
		}
	}
	return out, true
}

// loadedIndex is the head as a process read it, under the stamp its file had then: a hook call
// that reads the index and then moves a ref (binding a session) reads the file once.
type loadedIndex struct {
	file  string
	index *indexFile
}

// loadIndex reads the head, served again from what this process read while the file is the one
// it read (every write of it is a new file: atomicfile); ok is false when it is missing or
// damaged. The result is shared: read only.
func (r *Repo) loadIndex() (*indexFile, bool) {
	c := r.hookCache()
	file := gitrepo.FileStamp(c.indexFile()) // before the read: a file replaced after it is read again next time
	if k := r.hookIndex.Load(); k != nil && file != "" && k.file == file {
		return k.index, true
	}
	r.hookIndex.Store(nil)
	x, ok := c.loadIndex()
	if ok && file != "" {
		r.hookIndex.Store(&loadedIndex{file: file, index: x})
	}
	return x, ok
}

func (c *hookCache) loadIndex() (*indexFile, bool) {
	b, err := os.ReadFile(c.indexFile())
	if err != nil {
		return nil, false
	}
	return parseIndexFile(b, c.indexBaseFile())
}

// writeHead writes the head.
func (c *hookCache) writeHead(mode, stamp, base string, head []byte) error {
	rest := make([]byte, 0, len(mode)+len(stamp)+len(base)+3+len(head))
	rest = append(append(append(append(append(append(append(rest, mode...), ' '), base...), ' '), stamp...), '\n'), head...)
	return atomicfile.Write(c.indexFile(), append([]byte(hookIndexVersion+" "+indexSum(rest)+"\n"), rest...), 0o644)
}

// writeBase writes every entry's commit and branch as a new base, and returns its generation.
func (c *hookCache) writeBase(entries map[string]indexEntry) (string, error) {
	var buckets [indexBuckets][]string
	for f, e := range entries {
		if strings.ContainsAny(f, " \n") || strings.ContainsAny(e.commit, " \n") || strings.ContainsAny(e.branch, "\n") {
			continue // no valid name holds one
		}
		i := bucketOf(e.branch)
		buckets[i] = append(buckets[i], f)
	}
	gen := make([]byte, 8)
	if _, err := rand.Read(gen); err != nil {
		return "", err
	}
	genHex := hex.EncodeToString(gen)
	var dir, data bytes.Buffer
	dir.WriteString(indexBaseVersion + " " + genHex + "\n")
	for _, names := range buckets {
		sort.Strings(names)
		start := data.Len()
		for _, f := range names {
			e := entries[f]
			data.WriteString(f + " " + e.commit + " " + e.branch + "\n")
		}
		b := data.Bytes()[start:]
		fmt.Fprintf(&dir, "%016x %08x %08x\n", start, len(b), crc32.Checksum(b, castagnoli))
	}
	if dir.Len() != indexBaseDataStart {
		return "", fmt.Errorf("index base directory of %d bytes", dir.Len())
	}
	dir.Write(data.Bytes())
	return genHex, atomicfile.Write(c.indexBaseFile(), dir.Bytes(), 0o644)
}
