package gitstore

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
)

// The trailers of a workflow's commit: what `list` and the hook read from a head commit alone (no
// tree, no state.json), and what an audit maps events to commits by. This file is their one
// writer (Trailers.Message) and their one reader (ReadTrailers); other packages name a trailer
// through these constants (in a `git log --format=%(trailers:key=…)`, say).
const (
	TrailerPhase  = "Exarchos-Phase"
	TrailerType   = "Exarchos-Type"
	TrailerBranch = "Exarchos-Branch"
	// TrailerSeq is "first..last", the seqs of the events the commit added (none on a merge).
	TrailerSeq = "Exarchos-Seq"
	// TrailerEvents is how many events the log holds at the commit.
	TrailerEvents = "Exarchos-Events"
)

// Trailers is what a workflow commit's message carries below its subject. Phase, Type and Branch
// come from the projected state (their JSON names are the state's).
type Trailers struct {
	Phase  string `json:"phase"`
	Type   string `json:"type"`
	Branch string `json:"branch"`
	// FirstSeq..LastSeq are the events the commit added; 0 when it added none (a merge).
	FirstSeq, LastSeq int64 `json:"-"`
	Events            int64 `json:"-"`
}

// Message is a commit message: the subject, a blank line, then the trailers (those that are set;
// Events always).
func (t Trailers) Message(subject string) string {
	var m strings.Builder
	fmt.Fprintf(&m, "%s\n\n", subject)
	for _, kv := range [][2]string{{TrailerPhase, t.Phase}, {TrailerType, t.Type}, {TrailerBranch, t.Branch}} {
		if kv[1] != "" {
			fmt.Fprintf(&m, "%s: %s\n", kv[0], kv[1])
		}
	}
	if t.FirstSeq > 0 {
		fmt.Fprintf(&m, "%s: %d..%d\n", TrailerSeq, t.FirstSeq, t.LastSeq)
	}
	fmt.Fprintf(&m, "%s: %d\n", TrailerEvents, t.Events)
	return m.String()
}

// ReadTrailers reads the trailers of a commit's message (the message alone, or the commit's whole
// text: header lines never start with "Exarchos-"). A trailer that is absent or does not parse is
// left zero.
func ReadTrailers(msg []byte) Trailers {
	var t Trailers
	for len(msg) > 0 {
		var line []byte
		line, msg, _ = bytes.Cut(msg, []byte("\n"))
		k, v, ok := bytes.Cut(line, []byte(": "))
		if !ok || !bytes.HasPrefix(k, []byte("Exarchos-")) {
			continue
		}
		v = bytes.TrimSpace(v)
		switch string(k) {
		case TrailerPhase:
			t.Phase = string(v)
		case TrailerType:
			t.Type = string(v)
		case TrailerBranch:
			t.Branch = string(v)
		case TrailerEvents:
			t.Events, _ = strconv.ParseInt(string(v), 10, 64)
		case TrailerSeq:
			lo, hi, ok := bytes.Cut(v, []byte(".."))
			first, errA := strconv.ParseInt(string(lo), 10, 64)
			last, errB := strconv.ParseInt(string(hi), 10, 64)
			if ok && errA == nil && errB == nil && first > 0 && first <= last {
				t.FirstSeq, t.LastSeq = first, last
			}
		}
	}
	return t
}

// EventCommits maps each event's seq to the first commit of the workflow's history whose
// TrailerSeq range holds it (oldest first, so a merge that brought an event in later does not
// take it): one `git log` over the ref.
func (s *Store) EventCommits(feature string) (map[int64]string, error) {
	ref := RefName(feature)
	out, err := s.loc.Git(nil, "log", "-z", "--reverse", "--topo-order", "--format=%H%n%B", ref, "--")
	if err != nil {
		return nil, fmt.Errorf("read the history of %s: %w", ref, err)
	}
	m := map[int64]string{}
	for _, rec := range strings.Split(out, "\x00") {
		commit, msg, _ := strings.Cut(rec, "\n")
		t := ReadTrailers([]byte(msg))
		for seq := t.FirstSeq; seq > 0 && seq <= t.LastSeq && seq-t.FirstSeq < 1<<20; seq++ {
			if _, seen := m[seq]; !seen {
				m[seq] = commit
			}
		}
	}
	return m, nil
}
