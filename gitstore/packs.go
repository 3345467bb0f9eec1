package gitstore

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

// A reader for git's pack files (version 2 packs, version 2 indexes) in either hash. An id is
// looked up in the index with a few positioned reads (fan-out table, then a binary search of one
// bucket), so the cost of a lookup does not grow with the size of the pack, and each pack's files
// stay open for the life of the process.

// pack is one objects/pack/pack-*.pack with its .idx.
type pack struct {
	format ObjectFormat
	idx    *os.File
	data   *os.File
	size   int64 // of the .pack file
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

// listPacks opens every pack with a readable index, newest first (as git searches them). A pack
// whose index is still being written, or of a version we do not read, is skipped.
func listPacks(dir string, format ObjectFormat) []*pack {
	idxs, _ := filepath.Glob(filepath.Join(dir, "*.idx"))
	type found struct {
		p     *pack
		mtime int64
	}
	var all []found
	for _, path := range idxs {
		p, err := openPack(strings.TrimSuffix(path, ".idx"), format)
		if err != nil {
			continue
		}
		fi, _ := p.data.Stat()
		all = append(all, found{p, fi.ModTime().UnixNano()})
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].mtime > all[j].mtime })
	out := make([]*pack, 0, len(all))
	for _, f := range all {
		out = append(out, f.p)
	}
	return out
}

func openPack(base string, format ObjectFormat) (*pack, error) {
	idx, err := os.Open(base + ".idx")
	if err != nil {
		return nil, err
	}
	var hdr [idxHeader]byte
	if _, err := idx.ReadAt(hdr[:], 0); err != nil {
		idx.Close()
		return nil, err
	}
	if !bytes.Equal(hdr[:4], []byte("\377tOc")) || binary.BigEndian.Uint32(hdr[4:8]) != 2 {
		idx.Close()
		return nil, fmt.Errorf("%s.idx: not a version 2 pack index", base)
	}
	data, err := os.Open(base + ".pack")
	if err != nil {
		idx.Close()
		return nil, err
	}
	fi, err := data.Stat()
	if err != nil {
		idx.Close()
		data.Close()
		return nil, err
	}
	p := &pack{format: format, idx: idx, data: data, size: fi.Size(), cache: map[int64]cachedObject{}}
	for i := range p.fanout {
		p.fanout[i] = binary.BigEndian.Uint32(hdr[8+4*i:])
	}
	return p, nil
}

func (p *pack) close() {
	p.idx.Close()
	p.data.Close()
}

// find returns the offset of object h in the pack; ok is false when the pack does not hold it.
func (p *pack) find(h Hash) (int64, bool, error) {
	id := h.Bytes()
	if len(id) != p.format.Size() {
		return 0, false, nil
	}
	lo := uint32(0)
	if id[0] > 0 {
		lo = p.fanout[id[0]-1]
	}
	hi := p.fanout[id[0]]
	sz := int64(p.format.Size())
	count := int64(p.fanout[255])
	buf := make([]byte, sz)
	for lo < hi { // binary search of the names sharing the first byte
		mid := lo + (hi-lo)/2
		if _, err := p.idx.ReadAt(buf, idxHeader+int64(mid)*sz); err != nil {
			return 0, false, fmt.Errorf("read pack index: %w", err)
		}
		switch c := bytes.Compare(buf, id); {
		case c == 0:
			return p.offsetOf(int64(mid), count, sz)
		case c < 0:
			lo = mid + 1
		default:
			hi = mid
		}
	}
	return 0, false, nil
}

// offsetOf reads the pack offset of the pos-th object: 31 bits, or an index into the table of
// 64-bit offsets when the high bit is set.
func (p *pack) offsetOf(pos, count, sz int64) (int64, bool, error) {
	var b [8]byte
	offTable := idxHeader + count*sz + count*4
	if _, err := p.idx.ReadAt(b[:4], offTable+pos*4); err != nil {
		return 0, false, fmt.Errorf("read pack index: %w", err)
	}
	v := binary.BigEndian.Uint32(b[:4])
	if v&0x80000000 == 0 {
		return int64(v), true, nil
	}
	if _, err := p.idx.ReadAt(b[:], offTable+count*4+int64(v&0x7fffffff)*8); err != nil {
		return 0, false, fmt.Errorf("read pack index: %w", err)
	}
	return int64(binary.BigEndian.Uint64(b[:])), true, nil
}

const (
	packOfsDelta = 6
	packRefDelta = 7
)

// objectAt reads and, for a delta, resolves the object at offset off. The content returned may be
// shared with the cache, so its capacity is clipped: an append by the caller copies.
func (p *pack) objectAt(o *objectStore, off int64) (plumbing.ObjectType, []byte, error) {
	p.mu.Lock()
	c, ok := p.cache[off]
	p.mu.Unlock()
	if ok {
		return c.typ, c.content[:len(c.content):len(c.content)], nil
	}
	var hdr [64]byte
	n, err := p.data.ReadAt(hdr[:], off)
	if n == 0 {
		return plumbing.InvalidObject, nil, fmt.Errorf("read pack at %d: %w", off, err)
	}
	h := hdr[:n]
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
		bt, base, err := o.raw(hashFromBytes(h[i : i+sz]))
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
	if size > uint64(p.size)*1024+1<<20 {
		return nil, corruptPack(off, "object size")
	}
	zr, err := getZlib(io.NewSectionReader(p.data, off, p.size-off))
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
