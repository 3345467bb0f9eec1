package gitstore

import (
	"bytes"
	"compress/zlib"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// commitHeader is what List needs from a workflow commit.
type commitHeader struct {
	When    time.Time
	Message string
}

// readCommitHeader reads a commit's committer time and message. Loose objects are read directly
// (go-git's chroot filesystem lstat's every path component on each open, which dominates a list
// of a thousand workflows); packed ones go through go-git.
func (s *Store) readCommitHeader(h plumbing.Hash) (commitHeader, error) {
	hex := h.String()
	f, err := os.Open(filepath.Join(s.Loc.CommonDir, "objects", hex[:2], hex[2:]))
	if err == nil {
		defer f.Close()
		if ch, ok := parseLooseCommit(f); ok {
			return ch, nil
		}
	}
	c, err := object.GetCommit(s.st, h)
	if err != nil {
		return commitHeader{}, fmt.Errorf("read commit %s: %w", h, err)
	}
	return commitHeader{When: c.Committer.When, Message: c.Message}, nil
}

// zlibPool reuses inflaters: setting one up costs more than inflating a small commit.
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

// parseLooseCommit inflates a loose object and parses it as a commit; ok is false for anything
// unexpected, and the caller falls back to go-git.
func parseLooseCommit(r io.Reader) (commitHeader, bool) {
	zr, err := getZlib(r)
	if err != nil {
		return commitHeader{}, false
	}
	defer zlibPool.Put(zr)
	raw, err := io.ReadAll(io.LimitReader(zr, 1<<20))
	if err != nil {
		return commitHeader{}, false
	}
	nul := bytes.IndexByte(raw, 0)
	if nul < 0 || !bytes.HasPrefix(raw, []byte("commit ")) {
		return commitHeader{}, false
	}
	body := raw[nul+1:]
	headers, msg, ok := bytes.Cut(body, []byte("\n\n"))
	if !ok {
		return commitHeader{}, false
	}
	var ch commitHeader
	ch.Message = string(msg)
	for _, line := range bytes.Split(headers, []byte("\n")) {
		rest, ok := bytes.CutPrefix(line, []byte("committer "))
		if !ok {
			continue
		}
		// "Name <email> 1700000000 +0000"
		gt := bytes.LastIndexByte(rest, '>')
		if gt < 0 {
			return commitHeader{}, false
		}
		fields := bytes.Fields(rest[gt+1:])
		if len(fields) < 1 {
			return commitHeader{}, false
		}
		sec, err := strconv.ParseInt(string(fields[0]), 10, 64)
		if err != nil {
			return commitHeader{}, false
		}
		ch.When = time.Unix(sec, 0).UTC()
	}
	return ch, true
}
