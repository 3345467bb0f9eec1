package gitrepo

// Loose objects read and written by hand, from their files (packs: packs.go). Measured reasons
// (BENCHMARKS.md): go-git's object storage reopened a pack for every object and cannot serve SHA-1
// and SHA-256 repositories from one binary ("Store and git access after the gitrepo split": list
// after gc 1.4x git for-each-ref with it, 0.81x without); a `git cat-file` or `git hash-object`
// process per read or write would cost a process start, 1.5–2.4 ms here (the `git rev-parse HEAD`
// baseline of every table), on every hook call and append. Writing each object with one write(2),
// its directory made only when needed, saved about 40 system calls an append, 7.86 → 7.53 ms
// ("List from a cache of rows, append with fewer system calls", third stop).

import (
	"bytes"
	"compress/zlib"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
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

	mu    sync.Mutex
	packs []*pack // nil until listed; newest first
	// mapped holds every pack mapped so far, by index path. A pack stays mapped until Close even
	// when a gc deletes it, since a concurrent reader may be inside it (the mapping keeps the
	// deleted file readable).
	mapped map[string]*pack
}

func newObjects(commonDir string, format ObjectFormat) *Objects {
	return &Objects{commonDir: commonDir, format: format, mapped: map[string]*pack{}}
}

// Format is the repository's hash function.
func (o *Objects) Format() ObjectFormat { return o.format }

// exists reports whether an object is stored, without reading it: a stat for a loose object, the
// pack indexes otherwise.
func (o *Objects) Exists(h Hash) bool {
	// Packs first: a lookup in a mapped index costs no system call.
	for _, p := range o.packList() {
		if _, ok, _ := p.find(h); ok {
			return true
		}
	}
	_, err := os.Stat(o.LoosePath(h))
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
	hex := h.String()
	if len(hex) < 3 {
		hex = strings.Repeat("0", 2*o.format.Size())
	}
	return filepath.Join(o.commonDir, "objects", hex[:2], hex[2:])
}

// raw returns an object's type and content. A missing object is plumbing.ErrObjectNotFound (a
// concurrent gc may have moved it; see retryTransient).
func (o *Objects) Raw(h Hash) (plumbing.ObjectType, []byte, error) {
	if int(h.n) != o.format.Size() {
		return plumbing.InvalidObject, nil, fmt.Errorf("object id %q is not a %s id: %w", h, o.format, plumbing.ErrObjectNotFound)
	}
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
	if b, err := readFileInto(o.LoosePath(h), (*file)[:0]); err == nil {
		*file = b
		if typ, content, ok := readLoose(b); ok {
			return typ, content, nil
		}
	}
	return plumbing.InvalidObject, nil, plumbing.ErrObjectNotFound
}

// packList returns the repository's packs, listing them on first use.
func (o *Objects) packList() []*pack {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.packs == nil {
		o.packs = listPacks(filepath.Join(o.commonDir, "objects", "pack"), o.format, o.mapped)
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
	return nil
}
