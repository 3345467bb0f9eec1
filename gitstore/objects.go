package gitstore

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/storage/filesystem"
)

// bigPackIndex is the total size of pack indexes above which packed objects are read through
// `git cat-file --batch` rather than go-git. go-git reads every pack index in full before its first
// packed read (≈36,000 objects per MiB of index), while git maps them. Measured here
// (BenchmarkStateLargePack): go-git 0.9 ms with a 60,000-object pack, cat-file a flat 2.8 ms; the
// index load grows linearly, so past ≈8 MiB (≈290,000 objects) one git process is the cheaper read,
// and it stays flat however large the repository grows.
var bigPackIndex int64 = 8 << 20

// objectStore is the object database as gitstore uses it: writes through go-git, reads of loose
// objects straight from their files (go-git's chroot filesystem lstat's every path component on
// each open), and reads of packed objects through go-git or, in large repositories, one long-lived
// `git cat-file --batch`. It overrides EncodedObject, the one read entry point that GetCommit,
// GetTree and blob reads all go through.
type objectStore struct {
	*filesystem.Storage
	commonDir string

	mu        sync.Mutex
	packBytes int64 // total .idx size; -1 until measured
	batch     *catFile
}

func newObjectStore(commonDir string) *objectStore {
	return &objectStore{
		Storage:   filesystem.NewStorage(osfs.New(commonDir), cache.NewObjectLRUDefault()),
		commonDir: commonDir,
		packBytes: -1,
	}
}

// EncodedObject reads an object: loose first, then packed.
func (o *objectStore) EncodedObject(t plumbing.ObjectType, h plumbing.Hash) (plumbing.EncodedObject, error) {
	typ, content, err := o.raw(h)
	if err != nil {
		return nil, err
	}
	if t != plumbing.AnyObject && typ != t {
		return nil, plumbing.ErrObjectNotFound
	}
	obj := &plumbing.MemoryObject{}
	obj.SetType(typ)
	obj.Write(content)
	return obj, nil
}

// exists reports whether an object is stored, without reading it: a stat for a loose object, the
// pack indexes otherwise.
func (o *objectStore) exists(h plumbing.Hash) bool {
	if _, err := os.Stat(o.loosePath(h)); err == nil {
		return true
	}
	if o.bigPacks() {
		_, _, err := o.catFile(h)
		return err == nil
	}
	return o.Storage.HasEncodedObject(h) == nil
}

// writeLoose stores an object as a loose file the way git does: zlib of "<type> <size>\x00<content>"
// in a temporary file renamed into place, so a crash never leaves a torn object. It is safe to call
// from several goroutines (go-git's writer is not). `git prune` removes empty objects/xx
// directories, so a rename that finds its directory gone makes it again and retries.
func (o *objectStore) writeLoose(t plumbing.ObjectType, content []byte) (plumbing.Hash, error) {
	h := plumbing.ComputeHash(t, content)
	path := o.loosePath(h)
	dir := filepath.Dir(path)
	var err error
	for attempt := 0; attempt < 10; attempt++ {
		if err = os.MkdirAll(dir, 0o777); err != nil {
			continue
		}
		var f *os.File
		if f, err = os.CreateTemp(dir, tmpObjectPattern()); err != nil {
			continue
		}
		zw := getDeflater(f)
		fmt.Fprintf(zw, "%s %d\x00", t, len(content))
		zw.Write(content)
		err = zw.Close()
		deflaters.Put(zw)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			os.Chmod(f.Name(), 0o444)
			err = os.Rename(f.Name(), path)
		}
		if err != nil {
			os.Remove(f.Name())
			continue
		}
		return h, nil
	}
	return plumbing.ZeroHash, fmt.Errorf("write object %s: %w", h, err)
}

// has reports whether an object is stored, loose or packed.
func (o *objectStore) has(h plumbing.Hash) bool {
	if _, err := os.Stat(o.loosePath(h)); err == nil {
		return true
	}
	_, _, err := o.raw(h)
	return err == nil
}

func (o *objectStore) loosePath(h plumbing.Hash) string {
	hex := h.String()
	return filepath.Join(o.commonDir, "objects", hex[:2], hex[2:])
}

// raw returns an object's type and content.
func (o *objectStore) raw(h plumbing.Hash) (plumbing.ObjectType, []byte, error) {
	if f, err := os.Open(o.loosePath(h)); err == nil {
		typ, content, ok := readLoose(f)
		f.Close()
		if ok {
			return typ, content, nil
		}
	}
	if o.bigPacks() {
		return o.catFile(h)
	}
	obj, err := o.Storage.EncodedObject(plumbing.AnyObject, h)
	if err != nil {
		return plumbing.InvalidObject, nil, err
	}
	r, err := obj.Reader()
	if err != nil {
		return plumbing.InvalidObject, nil, err
	}
	defer r.Close()
	content, err := io.ReadAll(r)
	return obj.Type(), content, err
}

// Reindex forgets what is known about packs, after a concurrent gc moved objects.
func (o *objectStore) Reindex() {
	o.Storage.ObjectStorage.Reindex()
	o.mu.Lock()
	o.packBytes = -1
	o.mu.Unlock()
}

func (o *objectStore) bigPacks() bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.packBytes < 0 {
		o.packBytes = 0
		idx, _ := filepath.Glob(filepath.Join(o.commonDir, "objects", "pack", "*.idx"))
		for _, p := range idx {
			if fi, err := os.Stat(p); err == nil {
				o.packBytes += fi.Size()
			}
		}
	}
	return o.packBytes > bigPackIndex
}

// readLoose inflates a loose object file: "<type> <size>\x00<content>".
func readLoose(r io.Reader) (plumbing.ObjectType, []byte, bool) {
	zr, err := getZlib(r)
	if err != nil {
		return plumbing.InvalidObject, nil, false
	}
	defer zlibPool.Put(zr)
	raw, err := io.ReadAll(zr)
	if err != nil {
		return plumbing.InvalidObject, nil, false
	}
	nul := bytes.IndexByte(raw, 0)
	if nul < 0 {
		return plumbing.InvalidObject, nil, false
	}
	name, size, ok := strings.Cut(string(raw[:nul]), " ")
	typ, err := plumbing.ParseObjectType(name)
	if !ok || err != nil || size != strconv.Itoa(len(raw)-nul-1) {
		return plumbing.InvalidObject, nil, false
	}
	return typ, raw[nul+1:], true
}

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

// catFile is a running `git cat-file --batch`, started on first use.
type catFile struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
}

func (o *objectStore) catFile(h plumbing.Hash) (plumbing.ObjectType, []byte, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.batch == nil {
		cmd := exec.Command("git", "--git-dir="+o.commonDir, "cat-file", "--batch")
		cmd.Env = cleanGitEnv()
		in, err := cmd.StdinPipe()
		if err != nil {
			return plumbing.InvalidObject, nil, err
		}
		out, err := cmd.StdoutPipe()
		if err != nil {
			return plumbing.InvalidObject, nil, err
		}
		if err := cmd.Start(); err != nil {
			return plumbing.InvalidObject, nil, fmt.Errorf("start git cat-file: %w", err)
		}
		o.batch = &catFile{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 64*1024)}
	}
	b := o.batch
	if _, err := fmt.Fprintf(b.in, "%s\n", h); err != nil {
		o.closeBatch()
		return plumbing.InvalidObject, nil, fmt.Errorf("git cat-file: %w", err)
	}
	header, err := b.out.ReadString('\n')
	if err != nil {
		o.closeBatch()
		return plumbing.InvalidObject, nil, fmt.Errorf("git cat-file: %w", err)
	}
	fields := strings.Fields(header)
	if len(fields) == 2 && fields[1] == "missing" {
		return plumbing.InvalidObject, nil, plumbing.ErrObjectNotFound
	}
	if len(fields) != 3 {
		o.closeBatch()
		return plumbing.InvalidObject, nil, fmt.Errorf("git cat-file: unexpected answer %q", header)
	}
	typ, err := plumbing.ParseObjectType(fields[1])
	size, err2 := strconv.Atoi(fields[2])
	if err != nil || err2 != nil {
		o.closeBatch()
		return plumbing.InvalidObject, nil, fmt.Errorf("git cat-file: unexpected answer %q", header)
	}
	content := make([]byte, size+1) // content and its trailing newline
	if _, err := io.ReadFull(b.out, content); err != nil {
		o.closeBatch()
		return plumbing.InvalidObject, nil, fmt.Errorf("git cat-file: %w", err)
	}
	return typ, content[:size], nil
}

// closeBatch stops the cat-file process; the next read starts a new one.
func (o *objectStore) closeBatch() {
	if o.batch != nil {
		o.batch.in.Close()
		o.batch.cmd.Wait()
		o.batch = nil
	}
}

// Close releases the cat-file process, if one was started.
func (s *Store) Close() error {
	s.st.mu.Lock()
	defer s.st.mu.Unlock()
	s.st.closeBatch()
	return nil
}
