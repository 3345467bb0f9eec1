package gitrepo

import (
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"strconv"

	"github.com/go-git/go-git/v5/plumbing"
)

// Hash is an object id in the repository's own hash: 20 bytes in a SHA-1 repository, 32 in a
// SHA-256 one. go-git v5 fixes the size of Hash when it is compiled (build tag sha256),
// so one binary serving both formats needs its own. The zero value means "no object".
type Hash struct {
	b [32]byte
	n uint8
}

// ZeroHash is "no object".
var ZeroHash Hash

// IsZero reports whether h names no object.
func (h Hash) IsZero() bool { return h.n == 0 }

// Bytes returns the raw id.
func (h Hash) Bytes() []byte { return h.b[:h.n] }

// String is the id in lowercase hex; "" for the zero hash.
func (h Hash) String() string { return hex.EncodeToString(h.b[:h.n]) }

// MarshalText writes the hex id, so JSON carries the id git shows.
func (h Hash) MarshalText() ([]byte, error) { return []byte(h.String()), nil }

// UnmarshalText reads a hex id of either length.
func (h *Hash) UnmarshalText(b []byte) error {
	if len(b) == 0 {
		*h = ZeroHash
		return nil
	}
	v, ok := ParseHash(b)
	if !ok {
		return fmt.Errorf("%q is not an object id", b)
	}
	*h = v
	return nil
}

// ParseHash reads a 40- or 64-digit lowercase hex object id. All zeros (git's "no object") is the
// zero hash.
func ParseHash[S ~string | ~[]byte](s S) (Hash, bool) {
	if len(s) != 40 && len(s) != 64 {
		return ZeroHash, false
	}
	// Decoded by table, not by encoding/hex: its []byte(s) copies every id, list parses
	// thousands, and a table has no branch to mispredict on random digits.
	var h Hash
	h.n = uint8(len(s) / 2)
	var bad, nonzero byte
	for i := range int(h.n) {
		hi, lo := hexValue[s[2*i]], hexValue[s[2*i+1]]
		bad |= hi | lo
		h.b[i] = hi<<4 | lo&0x0f
		nonzero |= h.b[i]
	}
	if bad&0x80 != 0 {
		return ZeroHash, false
	}
	if nonzero == 0 {
		return ZeroHash, true
	}
	return h, true
}

// hexValue is each lowercase hex digit's value; every other byte has the high bit set.
var hexValue = func() (t [256]byte) {
	for i := range t {
		t[i] = 0x80
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = byte(c - '0')
	}
	for c := 'a'; c <= 'f'; c++ {
		t[c] = byte(c - 'a' + 10)
	}
	return t
}()

// hashFromBytes makes a Hash from raw bytes (the length says the format).
func hashFromBytes(b []byte) Hash {
	var h Hash
	h.n = uint8(copy(h.b[:], b))
	return h
}

// ObjectFormat is a repository's hash function (extensions.objectFormat).
type ObjectFormat uint8

const (
	SHA1 ObjectFormat = iota
	SHA256
)

func (f ObjectFormat) String() string {
	if f == SHA256 {
		return "sha256"
	}
	return "sha1"
}

// Size is the length of a raw object id.
func (f ObjectFormat) Size() int {
	if f == SHA256 {
		return sha256.Size
	}
	return sha1.Size
}

func (f ObjectFormat) hasher() hash.Hash {
	if f == SHA256 {
		return sha256.New()
	}
	return sha1.New()
}

// Sum is the id git gives an object: the hash of "<type> <size>\x00<content>".
func (f ObjectFormat) Sum(t plumbing.ObjectType, content []byte) Hash {
	hh := f.hasher()
	hh.Write([]byte(t.String()))
	hh.Write([]byte{' '})
	hh.Write([]byte(strconv.Itoa(len(content))))
	hh.Write([]byte{0})
	hh.Write(content)
	return hashFromBytes(hh.Sum(nil))
}

// parseID reads a hex id that must be of this format.
func (f ObjectFormat) parseID(s string) (Hash, bool) {
	if len(s) != 2*f.Size() {
		return ZeroHash, false
	}
	return ParseHash(s)
}

// IsLowerHex reports whether s is made of lowercase hex digits only.
func IsLowerHex[S ~string | ~[]byte](s S) bool {
	for i := 0; i < len(s); i++ {
		if !(s[i] >= '0' && s[i] <= '9' || s[i] >= 'a' && s[i] <= 'f') {
			return false
		}
	}
	return true
}
