package gitstore

import (
	"bytes"
	"fmt"
	"strconv"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
)

// commitHeader is what List needs from a workflow commit.
type commitHeader struct {
	When    time.Time
	Message string
}

// readCommitHeader reads a commit's committer time and message, parsing the raw object itself
// (List reads a thousand of these; go-git's decoder does far more than List needs).
func (s *Store) readCommitHeader(h plumbing.Hash) (commitHeader, error) {
	typ, raw, err := s.st.raw(h)
	if err != nil {
		return commitHeader{}, fmt.Errorf("read commit %s: %w", h, err)
	}
	ch, ok := parseCommit(raw)
	if typ != plumbing.CommitObject || !ok {
		return commitHeader{}, fmt.Errorf("read commit %s: not a well-formed commit", h)
	}
	return ch, nil
}

// parseCommit takes the committer time and the message from a commit's content.
func parseCommit(body []byte) (commitHeader, bool) {
	headers, msg, ok := bytes.Cut(body, []byte("\n\n"))
	if !ok {
		return commitHeader{}, false
	}
	ch := commitHeader{Message: string(msg)}
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
