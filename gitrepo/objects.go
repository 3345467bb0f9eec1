package gitrepo

// Loose objects read and written by hand, from their files (packs: packs.go). Measured reasons
// (BENCHMARKS.md): go-git's object storage reopened a pack for every object and cannot serve SHA-1
// and SHA-256 repositories from one binary ("Store and git access after the gitrepo split": list
// after gc 1.4x git for-each-ref with it, 0.81x without); a `git cat-file` or `git hash-object`
// process per read or write would cost a process start, 1.5–2.4 ms here (the `git rev-parse HEAD`
// baseline of every table), on every hook call and append. Writing each object with one write(2),
// its directory made only when needed, saved about 40 system calls an append, 7.86 → 7.53 ms ("List
// from a cache of rows, append with fewer system calls", third stop). Measured again for issue 31
// (BENCHMARKS.md, "Issue 31: what each fast path buys"): a loose read 10–11 µs against 2.0–2.2 ms
// for a `git cat-file --batch` started for it, a write 0.7–1.1 against 2.0–3.4 ms for `git
// hash-object -w`; an append reads three objects and writes about five.

import (
	"bytes"
	"compress/zlib"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"github.com/go-git/go-git/v5/plumbing"
)

// Objects is the object database as gitstore uses it, in the repository's hash (SHA-1 or
// SHA-256): loose objects are read and written straight from their files, packed objects are read
// by a small pack reader of our own (packs.go) that keeps one handle per pack for the life of the
// process and looks ids up in the pack index without loading it. go-git's object storage cannot
// read SHA-256 repositories in a binary built for SHA-1, and it reopens a pack for every object.
type Objects struct {
	commonDir string
	format    ObjectFormat
	// promisor is the remote a partial clone fetches missing objects from ("" when it is not one).
	promisor string
	// git answers what the fast path misses (catfile.go).
	git *catFile

	mu    sync.Mutex
	packs []*pack // nil until listed; newest first
	// dirs is this repository's object directory, then those objects/info/alternates names (and
	// theirs), read with the packs.
	dirs []string
	// mapped holds every pack mapped so far, by index path. A pack stays mapped until Close even
	// when a gc deletes it, since a concurrent reader may be inside it (the mapping keeps the
	// deleted file readable).
	mapped map[string]*pack
}

func newObjects(commonDir string, f repoFeatures) *Objects {
	o := &Objects{commonDir: commonDir, format: f.format, promisor: f.promisor, mapped: map[string]*pack{}, git: &catFile{gitDir: commonDir}}
	// A store nobody closes (a command runs once and exits) still ends its git process when the
	// tests that open thousands drop it.
	runtime.AddCleanup(o, func(c *catFile) { c.close() }, o.git)
	return o
}

// Format is the repository's hash function.
func (o *Objects) Format() ObjectFormat { return o.format }

// HasLocal reports whether an object is stored where the fast path reads (this repository's
// loose files and packs, and its alternates'), without reading it and without asking git. A writer
// uses it to skip writing what is there: a miss only costs a duplicate write.
func (o *Objects) HasLocal(h Hash) bool {
	// Packs first: a lookup in a mapped index costs no system call.
	for _, p := range o.packList() {
		if _, ok, _ := p.find(h); ok {
			return true
		}
	}
	for _, dir := range o.objectDirs() {
		if _, err := os.Stat(loosePath(dir, h, o.format)); err == nil {
			return true
		}
	}
	return false
}

// Exists reports whether git can read an object: the fast path, else git itself (which also
// fetches a partial clone's missing object from its promisor). Nothing is called missing that git
// can read.
func (o *Objects) Exists(h Hash) bool {
	if o.HasLocal(h) {
		return true
	}
	_, _, err := o.Raw(h)
	return err == nil
}

// writeLoose stores an object as a loose file the way git does: zlib of "<type> <size>\x00<content>"
// in a temporary file renamed into place, so a crash never leaves a torn object. It is safe to call
// from several goroutines. `git prune` removes empty objects/xx directories, so a rename that
// finds its directory gone makes it again and retries.
func (o *Objects) WriteLoose(t plumbing.ObjectType, content []byte) (Hash, error) {
	h := o.format.Sum(t, content)
	path := o.LoosePath(h)
	dir := filepath.Dir(path)
	// The object is compressed in memory and written with one call. Its directory is made only
	// when creating the file says it is missing, and it is renamed with rename(2) itself (os.Rename
	// looks at the target first): an append writes five objects, and each system call of a file
	// made in a directory counts.
	zbuf := scratch.Get().(*[]byte)
	defer scratch.Put(zbuf)
	b := bytes.NewBuffer((*zbuf)[:0])
	zw := getDeflater(b)
	fmt.Fprintf(zw, "%s %d\x00", t, len(content))
	zw.Write(content)
	err := zw.Close()
	deflaters.Put(zw)
	if err != nil {
		return ZeroHash, fmt.Errorf("write object %s: %w", h, err)
	}
	*zbuf = b.Bytes()
	for attempt := 0; attempt < 10; attempt++ {
		var f *os.File
		if f, err = os.CreateTemp(dir, TmpObjectPattern()); errors.Is(err, fs.ErrNotExist) {
			if err = os.MkdirAll(dir, 0o777); err == nil {
				f, err = os.CreateTemp(dir, TmpObjectPattern())
			}
		}
		if err != nil {
			continue
		}
		_, err = f.Write(*zbuf)
		if err == nil {
			err = f.Chmod(0o444)
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			err = syscall.Rename(f.Name(), path)
		}
		if err != nil {
			os.Remove(f.Name())
			continue
		}
		return h, nil
	}
	return ZeroHash, fmt.Errorf("write object %s: %w", h, err)
}

func (o *Objects) LoosePath(h Hash) string {
	return loosePath(filepath.Join(o.commonDir, "objects"), h, o.format)
}

func loosePath(objectDir string, h Hash, f ObjectFormat) string {
	hex := h.String()
	if len(hex) < 3 {
		hex = strings.Repeat("0", 2*f.Size())
	}
	return filepath.Join(objectDir, hex[:2], hex[2:])
}

// Raw returns an object's type and content: from the fast path, else from git (catfile.go). A
// missing object is plumbing.ErrObjectNotFound only once git agrees it is missing (a concurrent gc
// may have moved it; see retryTransient); one the fast path cannot parse is git's to judge.
func (o *Objects) Raw(h Hash) (plumbing.ObjectType, []byte, error) {
	if int(h.n) != o.format.Size() {
		return plumbing.InvalidObject, nil, fmt.Errorf("object id %q is not a %s id: %w", h, o.format, plumbing.ErrObjectNotFound)
	}
	typ, content, err := o.rawFast(h)
	if err == nil {
		return typ, content, nil
	}
	gtyp, gcontent, gerr := o.git.read(h)
	switch {
	case gerr == nil:
		return gtyp, gcontent, nil
	case o.promisor != "" && errors.Is(err, plumbing.ErrObjectNotFound):
		// git died or said missing: either way the promisor could not give it.
		return plumbing.InvalidObject, nil, &MissingPromisedError{ID: h, Remote: o.promisor, Detail: o.git.lastStderr()}
	case !errors.Is(gerr, errGitMissing):
		return plumbing.InvalidObject, nil, fmt.Errorf("read object %s: %v; git cannot read it either: %w", h, err, gerr)
	case !errors.Is(err, plumbing.ErrObjectNotFound):
		return plumbing.InvalidObject, nil, err
	}
	return plumbing.InvalidObject, nil, plumbing.ErrObjectNotFound
}

// MissingPromisedError is an object a partial clone lacks that git could not fetch from the
// promisor remote (offline, no credentials, the remote lost it). It is plumbing.ErrObjectNotFound
// to errors.Is, and says the way out.
type MissingPromisedError struct {
	ID     Hash
	Remote string
	Detail string
}

func (e *MissingPromisedError) Error() string {
	msg := fmt.Sprintf("object %s is not in this partial clone and git could not fetch it from the promisor remote %q: check that `git fetch %s` works (network, credentials), or fetch the workflows in full with `git fetch --no-filter %s '+refs/exarchos/*:refs/exarchos-remotes/%s/*'`, then run the command again", e.ID, e.Remote, e.Remote, e.Remote, e.Remote)
	if e.Detail != "" {
		msg += " (git said: " + e.Detail + ")"
	}
	return msg
}

func (e *MissingPromisedError) Is(target error) bool { return target == plumbing.ErrObjectNotFound }

// rawFast reads an object from packs and loose files, this repository's and its alternates'.
func (o *Objects) rawFast(h Hash) (plumbing.ObjectType, []byte, error) {
	// Packs first, as git looks: a lookup in a mapped index costs no system call, a failed open of
	// a loose file does.
	for _, p := range o.packList() {
		off, ok, err := p.find(h)
		if err != nil {
			return plumbing.InvalidObject, nil, err
		}
		if ok {
			return p.objectAt(o, off)
		}
	}
	file := scratch.Get().(*[]byte)
	defer scratch.Put(file)
	for _, dir := range o.objectDirs() {
		if b, err := readFileInto(loosePath(dir, h, o.format), (*file)[:0]); err == nil {
			*file = b
			if typ, content, ok := readLoose(b); ok {
				return typ, content, nil
			}
			return plumbing.InvalidObject, nil, fmt.Errorf("loose object %s does not inflate", h)
		}
	}
	return plumbing.InvalidObject, nil, plumbing.ErrObjectNotFound
}

// objectDirs is this repository's object directory, then its alternates.
func (o *Objects) objectDirs() []string {
	o.packList()
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.dirs
}

// packList returns the repository's packs, listing them on first use.
func (o *Objects) packList() []*pack {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.packs == nil {
		own := filepath.Join(o.commonDir, "objects")
		o.dirs = append([]string{own}, readAlternates(own)...)
		o.packs = []*pack{}
		for _, dir := range o.dirs {
			o.packs = append(o.packs, listPacks(filepath.Join(dir, "pack"), o.format, o.mapped)...)
		}
	}
	return o.packs
}

// Reindex lists the packs again on the next read, after a concurrent gc or a fetch changed them.
func (o *Objects) Reindex() {
	o.mu.Lock()
	o.packs = nil
	o.mu.Unlock()
}

// readLoose inflates a loose object file: "<type> <size>\x00<content>". It inflates into a reused
// buffer and copies the content out once: list reads a thousand commits, and growing a slice for
// each was a good part of its allocations.
func readLoose(file []byte) (plumbing.ObjectType, []byte, bool) {
	zr, err := getZlib(bytes.NewReader(file))
	if err != nil {
		return plumbing.InvalidObject, nil, false
	}
	defer zlibPool.Put(zr)
	buf := scratch.Get().(*[]byte)
	defer scratch.Put(buf)
	w := bytes.NewBuffer((*buf)[:0])
	_, err = w.ReadFrom(zr)
	*buf = w.Bytes()
	if err != nil {
		return plumbing.InvalidObject, nil, false
	}
	raw := w.Bytes()
	nul := bytes.IndexByte(raw, 0)
	if nul < 0 {
		return plumbing.InvalidObject, nil, false
	}
	name, size, ok := strings.Cut(string(raw[:nul]), " ")
	typ, err := plumbing.ParseObjectType(name)
	if !ok || err != nil || size != strconv.Itoa(len(raw)-nul-1) {
		return plumbing.InvalidObject, nil, false
	}
	return typ, bytes.Clone(raw[nul+1:]), true
}

// scratch holds reusable buffers for reading and inflating loose objects.
var scratch = sync.Pool{New: func() any { b := make([]byte, 0, 8192); return &b }}

// deflaters reuses compressors: a new one allocates several hundred KiB of state.
var deflaters sync.Pool

func getDeflater(w io.Writer) *zlib.Writer {
	if zw, ok := deflaters.Get().(*zlib.Writer); ok {
		zw.Reset(w)
		return zw
	}
	zw, _ := zlib.NewWriterLevel(w, zlib.BestSpeed)
	return zw
}

// zlibPool reuses inflaters: setting one up costs more than inflating a small object.
var zlibPool sync.Pool

func getZlib(r io.Reader) (io.ReadCloser, error) {
	if zr, ok := zlibPool.Get().(io.ReadCloser); ok {
		if err := zr.(zlib.Resetter).Reset(r, nil); err != nil {
			return nil, err
		}
		return zr, nil
	}
	return zlib.NewReader(r)
}

// Close unmaps the pack files this store read; the store must not be used afterwards.
func (s *Repo) Close() error {
	s.st.mu.Lock()
	defer s.st.mu.Unlock()
	for path, p := range s.st.mapped {
		p.close()
		delete(s.st.mapped, path)
	}
	s.st.packs = nil
	s.st.git.close()
	return nil
}

// readAlternates returns the object directories that objects/info/alternates in objectDir names,
// and theirs, as git reads them: one path a line (relative to objectDir, or quoted as C strings),
// "#" comments, at most five levels deep. A directory that does not exist is skipped, as git warns
// and skips it; what the fast path does not find there is git's to find (catfile.go).
func readAlternates(objectDir string) []string {
	seen := map[string]bool{filepath.Clean(objectDir): true}
	var out []string
	var walk func(dir string, depth int)
	walk = func(dir string, depth int) {
		b, err := os.ReadFile(filepath.Join(dir, "info", "alternates"))
		if err != nil || depth > 5 {
			return
		}
		for _, line := range strings.Split(string(b), "\n") {
			line = strings.TrimRight(line, "\r")
			if line == "" || line[0] == '#' {
				continue
			}
			if line[0] == '"' {
				if u, err := strconv.Unquote(line); err == nil {
					line = u
				}
			}
			if !filepath.IsAbs(line) {
				line = filepath.Join(dir, line)
			}
			line = filepath.Clean(line)
			if seen[line] {
				continue
			}
			seen[line] = true
			if fi, err := os.Stat(line); err != nil || !fi.IsDir() {
				continue
			}
			out = append(out, line)
			walk(line, depth+1)
		}
	}
	walk(objectDir, 0)
	return out
}
