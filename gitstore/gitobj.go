package gitstore

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
// call starts it.

// treeEntry is one line of a tree object.
type treeEntry struct {
	Name string
	Mode filemode.FileMode
	Hash Hash
}

// tree is a decoded tree object; Entries are in git's order.
type tree struct {
	Entries []treeEntry
}

// entry finds the entry called name in this tree (not below it); ok is false when there is none.
func (t *tree) entry(name string) (treeEntry, bool) {
	if t == nil {
		return treeEntry{}, false
	}
	for _, e := range t.Entries {
		if e.Name == name {
			return e, true
		}
	}
	return treeEntry{}, false
}

// decodeTree parses a tree's content: "<octal mode> <name>\x00<raw id>", repeated; f says the
// length of an id.
func decodeTree(content []byte, f ObjectFormat) (*tree, error) {
	t := &tree{}
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
		e := treeEntry{Name: string(content[sp+1 : nul]), Mode: filemode.FileMode(mode)}
		content = content[nul+1:]
		e.Hash = hashFromBytes(content[:size])
		content = content[size:]
		t.Entries = append(t.Entries, e)
	}
	return t, nil
}

// encodeTree writes a tree's content as git does, sorting entries in place first.
func encodeTree(entries []treeEntry) []byte {
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
func sortTreeEntries(entries []treeEntry) {
	key := func(e treeEntry) string {
		if e.Mode == filemode.Dir {
			return e.Name + "/"
		}
		return e.Name
	}
	sort.Slice(entries, func(i, j int) bool { return key(entries[i]) < key(entries[j]) })
}

// signature is an author or committer line: "Name <email> <unix seconds> <+hhmm>".
type signature struct {
	Name  string
	Email string
	When  time.Time
}

func (s signature) encode(b *bytes.Buffer) {
	fmt.Fprintf(b, "%s <%s> %d %s", s.Name, s.Email, s.When.Unix(), s.When.Format("-0700"))
}

func decodeSignature(line []byte) (signature, error) {
	lt := bytes.IndexByte(line, '<')
	gt := bytes.LastIndexByte(line, '>')
	if lt < 0 || gt < lt {
		return signature{}, fmt.Errorf("signature %q has no <email>", line)
	}
	s := signature{Name: string(bytes.TrimSpace(line[:lt])), Email: string(line[lt+1 : gt])}
	fields := strings.Fields(string(line[gt+1:]))
	if len(fields) == 0 {
		return signature{}, fmt.Errorf("signature %q has no time", line)
	}
	sec, err := strconv.ParseInt(fields[0], 10, 64)
	if err != nil {
		return signature{}, fmt.Errorf("signature %q has time %q", line, fields[0])
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
type commit struct {
	Tree      Hash
	Parents   []Hash
	Author    signature
	Committer signature
	Message   string
}

// decodeCommit parses a commit's content: headers, a blank line, the message as stored; ids must
// be in format f.
func decodeCommit(content []byte, f ObjectFormat) (*commit, error) {
	headers, msg, ok := bytes.Cut(content, []byte("\n\n"))
	if !ok {
		if !bytes.HasSuffix(content, []byte("\n")) {
			return nil, errors.New("no blank line after the headers")
		}
		headers = content[:len(content)-1] // headers only, empty message
	}
	c := &commit{Message: string(msg)}
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

func parseHash(text []byte, f ObjectFormat) (Hash, error) {
	h, ok := f.parseID(string(text))
	if !ok || h.IsZero() {
		return ZeroHash, fmt.Errorf("%q is not a %s object id", text, f)
	}
	return h, nil
}

// encode writes a commit's content exactly as git does.
func (c *commit) encode() []byte {
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

// readObject reads an object that must be of type want. A missing object keeps its
// plumbing.ErrObjectNotFound (a concurrent gc may have moved it; see retryTransient).
func (s *Store) readObject(h Hash, want plumbing.ObjectType) ([]byte, error) {
	typ, content, err := s.st.raw(h)
	if err != nil {
		return nil, err
	}
	if typ != want {
		return nil, fmt.Errorf("object %s is a %s, not a %s", h, typ, want)
	}
	return content, nil
}

// getTree reads and decodes a tree object.
func (s *Store) getTree(h Hash) (*tree, error) {
	content, err := s.readObject(h, plumbing.TreeObject)
	if err != nil {
		return nil, err
	}
	t, err := decodeTree(content, s.st.format)
	if err != nil {
		return nil, fmt.Errorf("tree %s is corrupt: %w", h, err)
	}
	return t, nil
}

// getCommit reads and decodes a commit object.
func (s *Store) getCommit(h Hash) (*commit, error) {
	content, err := s.readObject(h, plumbing.CommitObject)
	if err != nil {
		return nil, err
	}
	c, err := decodeCommit(content, s.st.format)
	if err != nil {
		return nil, fmt.Errorf("commit %s is corrupt: %w", h, err)
	}
	return c, nil
}

// findPath finds the entry at a slash-separated path below t, reading subtrees on the way; ok is
// false when some component is missing or is not a directory.
func (s *Store) findPath(t *tree, path string) (e treeEntry, ok bool, err error) {
	for {
		name, rest, more := strings.Cut(path, "/")
		if e, ok = t.entry(name); !ok || !more {
			return e, ok, nil
		}
		if e.Mode != filemode.Dir {
			return treeEntry{}, false, nil
		}
		if t, err = s.getTree(e.Hash); err != nil {
			return treeEntry{}, false, err
		}
		path = rest
	}
}

// putTree writes a tree of entries (sorted in place).
func (b *builder) putTree(entries []treeEntry) (Hash, error) {
	return b.put(plumbing.TreeObject, encodeTree(entries))
}

// putCommitObject writes a commit with the given parents (one for an append, two for a merge). The
// commit is the last object of every build, so it writes everything put before it too: once it
// returns, the commit and all it needs are stored and a ref may point at it.
func (b *builder) putCommitObject(sig signature, root Hash, parents []Hash, message string) (Hash, error) {
	c := &commit{Tree: root, Parents: parents, Author: sig, Committer: sig, Message: message}
	h, err := b.put(plumbing.CommitObject, c.encode())
	if err != nil {
		return ZeroHash, err
	}
	if err := b.flush(); err != nil {
		return ZeroHash, err
	}
	return h, nil
}
