package app

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/exarchos/git-exarchos/workflow"
)

// The journal holds audit-only events the hook recorded without writing the workflow ref: a
// denial is answered in the time of a ref read, and its tool.denied event is appended by the next
// write to the workflow (any CLI command that changes it, a counted tool call, or audit). One
// file per workflow under <git common dir>/exarchos/journal/; each line is one event, written
// with a single O_APPEND write, so concurrent hooks do not interleave. Every event has an id, so
// a flush that crashed after appending and before removing its file appends nothing twice.
const journalDir = "exarchos/journal"

type journalLine struct {
	ID   string          `json:"id"`
	Type string          `json:"type"`
	Data json.RawMessage `json:"data"`
}

func (r *Repo) journalPath(feature string) string {
	return filepath.Join(r.Store.Loc.CommonDir, filepath.FromSlash(journalDir), feature+".jsonl")
}

// journal appends one event to the workflow's journal.
func (r *Repo) journal(feature string, ev workflow.NewEvent) error {
	data, err := json.Marshal(ev.Data)
	if err != nil {
		return err
	}
	line, err := json.Marshal(journalLine{ID: ev.ID, Type: ev.Type, Data: data})
	if err != nil {
		return err
	}
	p := r.journalPath(feature)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(append(line, '\n'))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// journaled reads the events waiting in the workflow's journal and in flushes that did not finish.
func (r *Repo) journaled(feature string) ([]workflow.NewEvent, []string, error) {
	p := r.journalPath(feature)
	files, _ := filepath.Glob(p + ".*.flushing")
	if _, err := os.Stat(p); err == nil {
		// Move the journal aside first: hooks that answer meanwhile start a new one.
		aside := fmt.Sprintf("%s.%d.flushing", p, os.Getpid())
		if err := os.Rename(p, aside); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, nil, err
		}
		files = append(files, aside)
	}
	var evs []workflow.NewEvent
	seen := map[string]bool{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(bytes.NewReader(b))
		sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
		for sc.Scan() {
			var l journalLine
			if json.Unmarshal(sc.Bytes(), &l) != nil || l.ID == "" || !strings.HasPrefix(l.Type, "tool.") || seen[l.ID] {
				continue // a torn or foreign line: the journal only carries the hook's audit events
			}
			seen[l.ID] = true
			evs = append(evs, workflow.NewEvent{ID: l.ID, Type: l.Type, Data: l.Data})
		}
	}
	return evs, files, nil
}

// flushJournal appends what the journal holds to the workflow's log. Errors leave the journal in
// place for the next flush: it only ever delays the audit, never loses it.
func (r *Repo) flushJournal(feature string) {
	evs, files, err := r.journaled(feature)
	if err != nil || len(files) == 0 {
		return
	}
	if len(evs) > 0 {
		if _, err := r.Store.Append(feature, r.Projector(), evs...); err != nil {
			return
		}
	}
	r.journalDone(files)
}

// journalDone removes journal files whose events are in the log.
func (r *Repo) journalDone(files []string) {
	for _, f := range files {
		_ = os.Remove(f)
	}
}
