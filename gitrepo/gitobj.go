package gitrepo

import (
	"bytes"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
)

// A small codec for the two git object kinds gitstore reads and writes, trees and commits. go-git's
// plumbing/object would do, but it imports an OpenPGP library (for commit signatures we never
// verify) whose package init costs up to 2 ms of CPU on every start of the binary, and every hook
// call starts it. Measured when this codec replaced it (BENCHMARKS.md, "Start-up without go-git's
// plumbing/object", perf stat -r 200): `git-exarchos version` 3.13 → 2.84 ms and `list` 4.18 →
// 3.27 ms of CPU, 22 → 0 OpenPGP packages linked, the static binary 19.6 → 17.4 MB.

// TreeEntry is one line of a tree object.
type TreeEntry struct {
	Name string
	Mode filemode.FileMode
	Hash Hash
}

// tree is a decoded tree object; Entries are in git's order.
type Tree struct {
	Entries []TreeEntry
}

// entry finds the entry called name in this tree (not below it); ok is false when there is none.
func (t *Tree) Entry(name string) (TreeEntry, bool) {
	if t == nil {
		return TreeEntry{}, false
	}
	for _, e := range t.Entries {
		if e.Name == name {
			return e, true
		}
	}
	return TreeEntry{}, false
}

// decodeTree parses a tree's content: "<octal mode> <name>\x00<raw id>", repeated; f says the
// length of an id.
func DecodeTree(content []byte, f ObjectFormat) (*Tree, error) {
	t := &Tree{}
	size := f.Size()
	for len(content) > 0 {
		sp := bytes.IndexByte(content, ' ')
		nul := bytes.IndexByte(content, 0)
		if sp <= 0 || nul < sp+2 || len(content) < nul+1+size {
			return nil, fmt.Errorf("entry %d is truncated", len(t.Entries)+1)
		}
		mode, err := strconv.ParseUint(string(content[:sp]), 8, 32)
		if err != nil {
			return nil, fmt.Errorf("entry %d has mode %q", len(t.Entries)+1, content[:sp])
		}
		e := TreeEntry{Name: string(content[sp+1 : nul]), Mode: filemode.FileMode(mode)}
		content = content[nul+1:]
		e.Hash = hashFromBytes(content[:size])
		content = content[size:]
		t.Entries = append(t.Entries, e)
	}
	return t, nil
}

// encodeTree writes a tree's content as git does, sorting entries in place first.
func EncodeTree(entries []TreeEntry) []byte {
	sortTreeEntries(entries)
	var b bytes.Buffer
	for _, e := range entries {
		b.WriteString(strconv.FormatUint(uint64(e.Mode), 8)) // "40000" for a tree, no leading zero
		b.WriteByte(' ')
		b.WriteString(e.Name)
		b.WriteByte(0)
		b.Write(e.Hash.Bytes())
	}
	return b.Bytes()
}

// sortTreeEntries orders entries as git requires: by name, a tree's name compared as if it ended in "/".
func sortTreeEntries(entries []TreeEntry) {
	key := func(e TreeEntry) string {
		if e.Mode == filemode.Dir {
			return e.Name + "/"
		}
		return e.Name
	}
	sort.Slice(entries, func(i, j int) bool { return key(entries[i]) < key(entries[j]) })
}

// Signature is an author or committer line: "Name <email> <unix seconds> <+hhmm>".
type Signature struct {
	Name  string
	Email string
	When  time.Time
}

func (s Signature) encode(b *bytes.Buffer) {
	fmt.Fprintf(b, "%s <%s> %d %s", s.Name, s.Email, s.When.Unix(), s.When.Format("-0700"))
}

func decodeSignature(line []byte) (Signature, error) {
	lt := bytes.IndexByte(line, '<')
	gt := bytes.LastIndexByte(line, '>')
	if lt < 0 || gt < lt {
		return Signature{}, fmt.Errorf("Signature %q has no <email>", line)
	}
	s := Signature{Name: string(bytes.TrimSpace(line[:lt])), Email: string(line[lt+1 : gt])}
	fields := strings.Fields(string(line[gt+1:]))
	if len(fields) == 0 {
		return Signature{}, fmt.Errorf("Signature %q has no time", line)
	}
	sec, err := strconv.ParseInt(fields[0], 10, 64)
	if err != nil {
		return Signature{}, fmt.Errorf("Signature %q has time %q", line, fields[0])
	}
	loc := time.UTC
	if len(fields) > 1 {
		loc = parseZone(fields[1])
	}
	s.When = time.Unix(sec, 0).In(loc)
	return s, nil
}

// parseZone reads git's "+hhmm"/"-hhmm"; anything else is taken as UTC, as git itself reads it.
func parseZone(z string) *time.Location {
	if len(z) != 5 || (z[0] != '+' && z[0] != '-') {
		return time.UTC
	}
	hh, err1 := strconv.Atoi(z[1:3])
	mm, err2 := strconv.Atoi(z[3:5])
	if err1 != nil || err2 != nil {
		return time.UTC
	}
	off := (hh*60 + mm) * 60
	if z[0] == '-' {
		off = -off
	}
	if off == 0 {
		return time.UTC
	}
	return time.FixedZone("", off)
}

// commit is a decoded commit object. Headers other than these (gpgsig, mergetag, encoding) are
// skipped when reading and never written.
type Commit struct {
	Tree      Hash
	Parents   []Hash
	Author    Signature
	Committer Signature
	Message   string
}

// decodeCommit parses a commit's content: headers, a blank line, the message as stored; ids must
// be in format f.
func DecodeCommit(content []byte, f ObjectFormat) (*Commit, error) {
	headers, msg, err := CommitHeaders(content)
	if err != nil {
		return nil, err
	}
	c := &Commit{Message: string(msg)}
	var sawTree bool
	for _, line := range bytes.Split(headers, []byte("\n")) {
		key, val, _ := bytes.Cut(line, []byte(" "))
		var err error
		switch string(key) {
		case "tree":
			c.Tree, err = parseHash(val, f)
			sawTree = true
		case "parent":
			var p Hash
			p, err = parseHash(val, f)
			c.Parents = append(c.Parents, p)
		case "author":
			c.Author, err = decodeSignature(val)
		case "committer":
			c.Committer, err = decodeSignature(val)
		}
		if err != nil {
			return nil, fmt.Errorf("%s header: %w", key, err)
		}
	}
	if !sawTree {
		return nil, errors.New("no tree header")
	}
	return c, nil
}

// CommitHeaders splits a commit's text into its header lines and its message, as DecodeCommit
// does, without decoding them: list reads a thousand commits for two of their fields.
func CommitHeaders(content []byte) (headers, msg []byte, err error) {
	headers, msg, ok := bytes.Cut(content, []byte("\n\n"))
	if !ok {
		if !bytes.HasSuffix(content, []byte("\n")) {
			return nil, nil, errors.New("no blank line after the headers")
		}
		headers = content[:len(content)-1]
	}
	return headers, msg, nil
}

// CommitterTime is the committer's time in a commit's header lines.
func CommitterTime(headers []byte) (time.Time, error) {
	for len(headers) > 0 {
		line, rest, _ := bytes.Cut(headers, []byte("\n"))
		headers = rest
		if val, ok := bytes.CutPrefix(line, []byte("committer ")); ok {
			sig, err := decodeSignature(val)
			if err != nil {
				return time.Time{}, fmt.Errorf("committer header: %w", err)
			}
			return sig.When, nil
		}
	}
	return time.Time{}, errors.New("no committer header")
}

func parseHash(text []byte, f ObjectFormat) (Hash, error) {
	h, ok := f.parseID(string(text))
	if !ok || h.IsZero() {
		return ZeroHash, fmt.Errorf("%q is not a %s object id", text, f)
	}
	return h, nil
}

// encode writes a commit's content exactly as git does.
func (c *Commit) Encode() []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "tree %s\n", c.Tree)
	for _, p := range c.Parents {
		fmt.Fprintf(&b, "parent %s\n", p)
	}
	b.WriteString("author ")
	c.Author.encode(&b)
	b.WriteString("\ncommitter ")
	c.Committer.encode(&b)
	b.WriteString("\n\n")
	b.WriteString(c.Message)
	return b.Bytes()
}

// ErrWrongType is an object of another type than the one named (a ref to a blob, say).
var ErrWrongType = errors.New("wrong object type")

// readObject reads an object that must be of type want. A missing object keeps its
// plumbing.ErrObjectNotFound (a concurrent gc may have moved it; see retryTransient).
func (s *Repo) ReadObject(h Hash, want plumbing.ObjectType) ([]byte, error) {
	typ, content, err := s.st.Raw(h)
	if err != nil {
		return nil, err
	}
	if typ != want {
		return nil, fmt.Errorf("object %s is a %s, not a %s: %w", h, typ, want, ErrWrongType)
	}
	return content, nil
}

// getTree reads and decodes a tree object.
func (s *Repo) GetTree(h Hash) (*Tree, error) {
	content, err := s.ReadObject(h, plumbing.TreeObject)
	if err != nil {
		return nil, err
	}
	t, err := DecodeTree(content, s.st.format)
	if err != nil {
		return nil, fmt.Errorf("tree %s is corrupt: %w", h, err)
	}
	return t, nil
}

// getCommit reads and decodes a commit object.
func (s *Repo) GetCommit(h Hash) (*Commit, error) {
	content, err := s.ReadObject(h, plumbing.CommitObject)
	if err != nil {
		return nil, err
	}
	c, err := DecodeCommit(content, s.st.format)
	if err != nil {
		return nil, fmt.Errorf("commit %s is corrupt: %w", h, err)
	}
	return c, nil
}

// findPath finds the entry at a slash-separated path below t, reading subtrees on the way; ok is
// false when some component is missing or is not a directory.
func (s *Repo) FindPath(t *Tree, path string) (e TreeEntry, ok bool, err error) {
	for {
		name, rest, more := strings.Cut(path, "/")
		if e, ok = t.Entry(name); !ok || !more {
			return e, ok, nil
		}
		if e.Mode != filemode.Dir {
			return TreeEntry{}, false, nil
		}
		if t, err = s.GetTree(e.Hash); err != nil {
			return TreeEntry{}, false, err
		}
		path = rest
	}
}
