package gitrepo

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"
)

// A reader for git's pack files (version 2 packs, version 2 indexes) in either hash. Both files are
// memory-mapped once per process, as git maps them: an id is found by a binary search of one
// fan-out bucket of the index and an object is inflated straight from the mapped pack, without a
// system call, so the cost of a read does not grow with the size of the pack.
//
// Why not go-git's object storage (BENCHMARKS.md, "Store and git access after the gitrepo split"):
// it reopened the pack for every object, which made list after `git gc` 1.4x `git for-each-ref` in
// process (74.6 against 53.5 ms) where this reader gives 0.81x, and it panicked under list's
// concurrent readers (a nil map in loadIdxFile). A read in a pack of 60,000 other objects stays
// flat (BenchmarkStateLargePack) where the `git cat-file --batch` fallback this also replaced took
// 2.33 ms ("Event store (issue 2)"). Measured again for issue 31 (BENCHMARKS.md, "Issue 31: what
// each fast path buys"): 0.1–1.1 µs a read against 1.4–1.6 ms for a `git cat-file --batch` started
// for it.

// pack is one objects/pack/pack-*.pack with its .idx.
type pack struct {
	format ObjectFormat
	idx    []byte
	data   []byte
	unmap  []func()
	mtime  int64
	fanout [256]uint32

	mu         sync.Mutex
	cache      map[int64]cachedObject // resolved objects by offset: delta bases repeat
	cacheBytes int
}

type cachedObject struct {
	typ     plumbing.ObjectType
	content []byte
}

// maxPackCache bounds the memory held by resolved delta bases per pack.
const maxPackCache = 32 << 20

const idxHeader = 8 + 256*4 // magic, version, fan-out table

// listPacks returns every pack with a readable index, newest first (as git searches them). A pack
// whose index is still being written, or of a version we do not read, is skipped. Packs already in
// open are reused (a pack's name is the hash of its content, so the same name is the same pack);
// new ones are opened and added to it.
func listPacks(dir string, format ObjectFormat, open map[string]*pack) []*pack {
	idxs, _ := filepath.Glob(filepath.Join(dir, "*.idx"))
	out := make([]*pack, 0, len(idxs))
	for _, path := range idxs {
		if p, ok := open[path]; ok {
			out = append(out, p)
			continue
		}
		if p, err := openPack(strings.TrimSuffix(path, ".idx"), format); err == nil {
			open[path] = p
			out = append(out, p)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].mtime > out[j].mtime })
	return out
}

func openPack(base string, format ObjectFormat) (*pack, error) {
	p := &pack{format: format, cache: map[int64]cachedObject{}}
	var err error
	if p.idx, err = p.mapFile(base + ".idx"); err != nil {
		p.close()
		return nil, err
	}
	if len(p.idx) < idxHeader || !bytes.Equal(p.idx[:4], []byte("\377tOc")) || binary.BigEndian.Uint32(p.idx[4:8]) != 2 {
		p.close()
		return nil, fmt.Errorf("%s.idx: not a version 2 pack index", base)
	}
	for i := range p.fanout {
		p.fanout[i] = binary.BigEndian.Uint32(p.idx[8+4*i:])
	}
	count, sz := int(p.fanout[255]), format.Size()
	if len(p.idx) < idxHeader+count*(sz+8) { // names, CRCs, offsets
		p.close()
		return nil, fmt.Errorf("%s.idx is truncated", base)
	}
	if p.data, err = p.mapFile(base + ".pack"); err != nil {
		p.close()
		return nil, err
	}
	return p, nil
}

func (p *pack) mapFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close() // a mapping outlives its descriptor
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	p.mtime = fi.ModTime().UnixNano()
	b, unmap, err := mapFile(f, fi.Size())
	if err != nil {
		return nil, err
	}
	p.unmap = append(p.unmap, unmap)
	return b, nil
}

func (p *pack) close() {
	for _, u := range p.unmap {
		u()
	}
	p.unmap = nil
}

// find returns the offset of object h in the pack; ok is false when the pack does not hold it.
func (p *pack) find(h Hash) (int64, bool, error) {
	id := h.Bytes()
	sz := p.format.Size()
	if len(id) != sz {
		return 0, false, nil
	}
	lo := 0
	if id[0] > 0 {
		lo = int(p.fanout[id[0]-1])
	}
	hi := int(p.fanout[id[0]])
	names := p.idx[idxHeader:]
	i := lo + sort.Search(hi-lo, func(i int) bool {
		return bytes.Compare(names[(lo+i)*sz:(lo+i+1)*sz], id) >= 0
	})
	if i >= hi || !bytes.Equal(names[i*sz:(i+1)*sz], id) {
		return 0, false, nil
	}
	// Offsets: 31 bits, or an index into the table of 64-bit offsets when the high bit is set.
	count := int(p.fanout[255])
	offTable := idxHeader + count*sz + count*4
	v := binary.BigEndian.Uint32(p.idx[offTable+i*4:])
	if v&0x80000000 == 0 {
		return int64(v), true, nil
	}
	at := offTable + count*4 + int(v&0x7fffffff)*8
	if at+8 > len(p.idx) {
		return 0, false, fmt.Errorf("pack index is truncated")
	}
	return int64(binary.BigEndian.Uint64(p.idx[at:])), true, nil
}

const (
	packOfsDelta = 6
	packRefDelta = 7
)

// objectAt reads and, for a delta, resolves the object at offset off. The content returned may be
// shared with the cache, so its capacity is clipped: an append by the caller copies.
func (p *pack) objectAt(o *Objects, off int64) (plumbing.ObjectType, []byte, error) {
	p.mu.Lock()
	c, ok := p.cache[off]
	p.mu.Unlock()
	if ok {
		return c.typ, c.content[:len(c.content):len(c.content)], nil
	}
	if off < 12 || off >= int64(len(p.data)) {
		return plumbing.InvalidObject, nil, corruptPack(off, "offset outside the pack")
	}
	h := p.data[off:min(off+64, int64(len(p.data)))]
	var err error
	typ := (h[0] >> 4) & 7
	size := uint64(h[0] & 15)
	i, shift := 1, uint(4)
	for h[i-1]&0x80 != 0 {
		if i >= len(h) {
			return plumbing.InvalidObject, nil, corruptPack(off, "object header")
		}
		size |= uint64(h[i]&0x7f) << shift
		shift += 7
		i++
	}
	var t plumbing.ObjectType
	var content []byte
	switch typ {
	case 1, 2, 3, 4:
		t = plumbing.ObjectType(typ)
		if content, err = p.inflate(off+int64(i), size); err != nil {
			return plumbing.InvalidObject, nil, err
		}
	case packOfsDelta:
		if i >= len(h) {
			return plumbing.InvalidObject, nil, corruptPack(off, "delta header")
		}
		c := h[i]
		i++
		back := int64(c & 0x7f)
		for c&0x80 != 0 {
			if i >= len(h) {
				return plumbing.InvalidObject, nil, corruptPack(off, "delta offset")
			}
			c = h[i]
			i++
			back = (back+1)<<7 | int64(c&0x7f)
		}
		if back <= 0 || back > off {
			return plumbing.InvalidObject, nil, corruptPack(off, "delta base offset")
		}
		bt, base, err := p.objectAt(o, off-back)
		if err != nil {
			return plumbing.InvalidObject, nil, err
		}
		if t, content, err = p.applyAt(off, off+int64(i), size, bt, base); err != nil {
			return plumbing.InvalidObject, nil, err
		}
	case packRefDelta:
		sz := p.format.Size()
		if i+sz > len(h) {
			return plumbing.InvalidObject, nil, corruptPack(off, "delta base id")
		}
		bt, base, err := o.Raw(hashFromBytes(h[i : i+sz]))
		if err != nil {
			return plumbing.InvalidObject, nil, err
		}
		if t, content, err = p.applyAt(off, off+int64(i+sz), size, bt, base); err != nil {
			return plumbing.InvalidObject, nil, err
		}
	default:
		return plumbing.InvalidObject, nil, corruptPack(off, fmt.Sprintf("object type %d", typ))
	}
	p.mu.Lock()
	if p.cacheBytes+len(content) > maxPackCache {
		p.cache, p.cacheBytes = map[int64]cachedObject{}, 0
	}
	p.cache[off] = cachedObject{typ: t, content: content}
	p.cacheBytes += len(content)
	p.mu.Unlock()
	return t, content[:len(content):len(content)], nil
}

func (p *pack) applyAt(off, dataOff int64, size uint64, bt plumbing.ObjectType, base []byte) (plumbing.ObjectType, []byte, error) {
	delta, err := p.inflate(dataOff, size)
	if err != nil {
		return plumbing.InvalidObject, nil, err
	}
	out, err := applyDelta(base, delta)
	if err != nil {
		return plumbing.InvalidObject, nil, corruptPack(off, err.Error())
	}
	return bt, out, nil
}

// inflate reads size bytes of zlib data starting at off.
func (p *pack) inflate(off int64, size uint64) ([]byte, error) {
	if off >= int64(len(p.data)) || size > uint64(len(p.data))*1032+1<<20 {
		return nil, corruptPack(off, "object size")
	}
	zr, err := getZlib(bytes.NewReader(p.data[off:]))
	if err != nil {
		return nil, corruptPack(off, err.Error())
	}
	defer zlibPool.Put(zr)
	out := make([]byte, size)
	if _, err := io.ReadFull(zr, out); err != nil {
		return nil, corruptPack(off, err.Error())
	}
	return out, nil
}

func corruptPack(off int64, what string) error {
	return fmt.Errorf("pack is corrupt at offset %d (%s): run `git fsck`", off, what)
}

// applyDelta rebuilds an object from its base and a git delta: the two sizes, then copy (from the
// base) and insert (literal) instructions.
func applyDelta(base, delta []byte) ([]byte, error) {
	srcSize, delta, ok := deltaSize(delta)
	if !ok || srcSize != uint64(len(base)) {
		return nil, errors.New("delta base size does not match")
	}
	dstSize, delta, ok := deltaSize(delta)
	if !ok {
		return nil, errors.New("delta size")
	}
	out := make([]byte, 0, dstSize)
	for len(delta) > 0 {
		op := delta[0]
		delta = delta[1:]
		switch {
		case op&0x80 != 0:
			var off, n uint64
			for bit := 0; bit < 7; bit++ {
				if op&(1<<bit) == 0 {
					continue
				}
				if len(delta) == 0 {
					return nil, errors.New("truncated copy instruction")
				}
				if bit < 4 {
					off |= uint64(delta[0]) << (8 * bit)
				} else {
					n |= uint64(delta[0]) << (8 * (bit - 4))
				}
				delta = delta[1:]
			}
			if n == 0 {
				n = 0x10000
			}
			if off+n > uint64(len(base)) {
				return nil, errors.New("copy beyond the base")
			}
			out = append(out, base[off:off+n]...)
		case op != 0:
			if int(op) > len(delta) {
				return nil, errors.New("truncated insert instruction")
			}
			out = append(out, delta[:op]...)
			delta = delta[op:]
		default:
			return nil, errors.New("reserved delta instruction 0")
		}
	}
	if uint64(len(out)) != dstSize {
		return nil, errors.New("delta result size does not match")
	}
	return out, nil
}

func deltaSize(d []byte) (uint64, []byte, bool) {
	var v uint64
	var shift uint
	for i, c := range d {
		v |= uint64(c&0x7f) << shift
		shift += 7
		if c&0x80 == 0 {
			return v, d[i+1:], true
		}
		if shift > 63 {
			break
		}
	}
	return 0, nil, false
}
