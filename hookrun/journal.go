package hookrun

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/exarchos/git-exarchos/workflow"
)

// The journal holds audit-only events the hook recorded without writing the workflow ref: a
// denial is answered in the time of a ref read, and its tool.denied event is appended by the next
// write to the workflow (any CLI command that changes it, a counted tool call, or audit). One
// file per workflow under <git common dir>/exarchos/journal/; each line is one event, written
// with a single O_APPEND write, so concurrent hooks do not interleave. Every event has an id, so
// a flush that crashed after appending and before removing its file appends nothing twice.
// Lines are numbered by a counter next to the journal, and each flush records the numbers it
// covered in the log (hook.journal-flushed), so a journal deleted or edited before its flush shows
// as "denials lost" in audit and fsck instead of vanishing.
const journalDir = "exarchos/journal"

type journalLine struct {
	ID   string          `json:"id"`
	Type string          `json:"type"`
	Data json.RawMessage `json:"data"`
	Seq  uint64          `json:"seq,omitempty"` // 1, 2, … per workflow, from the counter file
}

// JournalPath is where the workflow's journal lies: denials waiting to ride in its next commit.
func (r *Repo) JournalPath(feature string) string {
	return filepath.Join(r.CommonDir(), filepath.FromSlash(journalDir), feature+".jsonl")
}

// The counter file (<journal>.seq) holds two numbers: the last sequence number given to a
// journal line, and the last one a flush covered. A journal deleted or edited between flushes
// leaves numbers the next flush cannot find; a counter deleted too starts again at 1, behind
// what the workflow's log says was covered. Either shows as "denials lost" in audit and fsck.
type journalCounter struct{ Issued, Flushed uint64 }

func (r *Repo) JournalCounterPath(feature string) string { return r.JournalPath(feature) + ".seq" }

// withJournalCounter runs fn holding the counter file's lock, with its numbers; fn returns them
// changed, or nil to leave the file as it is.
func (r *Repo) withJournalCounter(feature string, fn func(journalCounter) (*journalCounter, error)) error {
	p := r.JournalCounterPath(feature)
	f, err := os.OpenFile(p, os.O_RDWR|os.O_CREATE, 0o644)
	if errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		f, err = os.OpenFile(p, os.O_RDWR|os.O_CREATE, 0o644)
	}
	if err != nil {
		return err
	}
	defer f.Close()
	if err := lockFile(f); err != nil {
		return err
	}
	var c journalCounter
	b := make([]byte, 64)
	n, _ := f.ReadAt(b, 0)
	if f := strings.Fields(string(b[:n])); len(f) == 2 { // decimal with leading zeros (Sscan reads octal)
		c.Issued, _ = strconv.ParseUint(f[0], 10, 64)
		c.Flushed, _ = strconv.ParseUint(f[1], 10, 64)
	}
	next, err := fn(c)
	if err != nil || next == nil || *next == c {
		return err
	}
	// Fixed width, overwritten in place: no truncate, which on ext4 makes the close wait for the
	// data to reach the disk (auto_da_alloc) and cost a denial milliseconds.
	line := fmt.Sprintf("%020d %020d\n", next.Issued, next.Flushed)
	_, err = f.WriteAt([]byte(line), 0)
	return err
}

// Journal appends one event to the workflow's journal, numbered by the counter: it rides in the
// workflow's next commit (Journaled).
func (r *Repo) Journal(feature string, ev workflow.NewEvent) error {
	data, err := json.Marshal(ev.Data)
	if err != nil {
		return err
	}
	return r.withJournalCounter(feature, func(c journalCounter) (*journalCounter, error) {
		c.Issued++
		line, err := json.Marshal(journalLine{ID: ev.ID, Type: ev.Type, Data: data, Seq: c.Issued})
		if err != nil {
			return nil, err
		}
		p := r.JournalPath(feature)
		f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		if err != nil {
			return nil, err
		}
		_, err = f.Write(append(line, '\n'))
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return nil, err
		}
		return &c, nil
	})
}

// JournalBatch is what a flush appends: the journaled events, led by the hook.journal-flushed
// record when there is a range to account for; done() after the append removes the files and
// moves the counter's flushed mark.
type JournalBatch struct {
	Events []workflow.NewEvent
	files  []string
	to     uint64
	repo   *Repo
	feat   string
}

// Journaled reads the events waiting in the workflow's journal and in flushes that did not finish.
func (r *Repo) Journaled(feature string) (*JournalBatch, error) {
	p := r.JournalPath(feature)
	batch := &JournalBatch{repo: r, feat: feature}
	var c journalCounter
	var contents [][]byte
	// Under the counter's lock: move the journal aside (the lines waiting are then exactly those
	// numbered up to Issued; hooks that answer meanwhile start a new one) and read every file
	// waiting, so a concurrent flush's done (which removes files and moves Flushed under the same
	// lock) is seen whole or not at all.
	err := r.withJournalCounter(feature, func(cur journalCounter) (*journalCounter, error) {
		c = cur
		if _, err := os.Stat(p); err == nil {
			// Unique per flush: a process that flushes again after a failed append (the MCP
			// server) must not move a new journal over the one still waiting.
			aside := fmt.Sprintf("%s.%d-%d.flushing", p, os.Getpid(), time.Now().UnixNano())
			if err := os.Rename(p, aside); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return nil, err
			}
		}
		batch.files, _ = filepath.Glob(p + ".*.flushing")
		for _, f := range batch.files {
			if b, err := os.ReadFile(f); err == nil {
				contents = append(contents, b)
			}
		}
		return nil, nil
	})
	if err != nil {
		return batch, err
	}
	seen := map[string]bool{}
	present := map[uint64]string{}
	var maxSeq uint64
	for _, b := range contents {
		sc := bufio.NewScanner(bytes.NewReader(b))
		sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
		for sc.Scan() {
			var l journalLine
			if json.Unmarshal(sc.Bytes(), &l) != nil || l.ID == "" || !strings.HasPrefix(l.Type, "tool.") || seen[l.ID] {
				continue // a torn or foreign line: the journal only carries the hook's audit events
			}
			seen[l.ID] = true
			if l.Seq > 0 {
				if _, dup := present[l.Seq]; !dup {
					present[l.Seq] = l.ID
				}
				maxSeq = max(maxSeq, l.Seq)
			}
			batch.Events = append(batch.Events, workflow.NewEvent{ID: l.ID, Type: l.Type, Data: l.Data})
		}
	}
	from, to := c.Flushed+1, max(c.Issued, maxSeq)
	if to >= from {
		d := workflow.JournalFlushedData{From: from, To: to, FirstID: present[from]}
		for s := from; s <= to && s-from < 1<<20; s++ {
			if _, ok := present[s]; ok {
				continue
			}
			if n := len(d.Missing); n > 0 && d.Missing[n-1][1] == s-1 {
				d.Missing[n-1][1] = s
			} else {
				d.Missing = append(d.Missing, [2]uint64{s, s})
			}
		}
		rec := workflow.NewEvent{ID: fmt.Sprintf("journal-flushed:%d-%d:%s", from, to, d.FirstID), Type: workflow.EventHookJournalFlushed, Data: d}
		batch.Events = append([]workflow.NewEvent{rec}, batch.Events...)
		batch.to = to
	}
	return batch, nil
}

// done removes the journal files whose events are in the log and records how far the log covers.
func (b *JournalBatch) Done() {
	if b == nil {
		return
	}
	_ = b.repo.withJournalCounter(b.feat, func(c journalCounter) (*journalCounter, error) {
		for _, f := range b.files {
			_ = os.Remove(f)
		}
		if b.to == 0 {
			return nil, nil
		}
		c.Flushed = max(c.Flushed, b.to)
		c.Issued = max(c.Issued, b.to)
		return &c, nil
	})
}

// flushJournal appends what the journal holds to the workflow's log. Errors leave the journal in
// place for the next flush: it only ever delays the audit, never loses it.
func (r *Repo) FlushJournal(feature string) {
	b, err := r.Journaled(feature)
	if err != nil || len(b.Events) == 0 && len(b.files) == 0 {
		return
	}
	if len(b.Events) > 0 {
		if _, err := r.Append(feature, b.Events...); err != nil {
			return
		}
	}
	b.Done()
}

// JournalLoss is a stretch of the hook's journal that never reached the workflow's log.
type JournalLoss struct {
	Seq     int64  `json:"seq"` // the hook.journal-flushed event that found it
	Message string `json:"message"`
}

// journalLosses reads the hook.journal-flushed records in log order and says where the journal
// lost lines: numbers a flush did not find, numbers skipped between flushes, and a counter that
// went back to numbers an earlier flush already covered.
func JournalLosses(events []workflow.Event) []JournalLoss {
	var out []JournalLoss
	var last uint64
	logged := map[string]bool{} // ids of the events already in the log
	for _, e := range events {
		if e.Type != workflow.EventHookJournalFlushed {
			logged[e.ID] = true
			continue
		}
		var d workflow.JournalFlushedData
		if e.DecodeData(&d) != nil {
			continue
		}
		loss := func(msg string) { out = append(out, JournalLoss{Seq: e.Seq, Message: msg}) }
		// A flush redone after a crash, or one that read the journal before another flush finished
		// and appended after it, starts at a line already in the log; a counter reset starts at a
		// line that is new.
		repeat := d.From <= last && d.FirstID != "" && logged[d.FirstID]
		switch {
		case repeat:
		case d.From <= last:
			loss(fmt.Sprintf("the journal's counter went back to %d after %d had been flushed: the journal and its counter were deleted or edited, and denials journaled after %d may be lost", d.From, last, last))
		case d.From > last+1:
			loss(fmt.Sprintf("journal lines %s never reached the log (deleted or edited before a flush)", seqRange(last+1, d.From-1)))
		}
		for _, m := range d.Missing {
			loss(fmt.Sprintf("journal lines %s were missing when the next write flushed the journal (deleted or edited): the denials they held are lost", seqRange(m[0], m[1])))
		}
		if repeat {
			last = max(last, d.To)
		} else {
			last = d.To
		}
	}
	return out
}

func seqRange(a, b uint64) string {
	if a == b {
		return fmt.Sprint(a)
	}
	return fmt.Sprintf("%d-%d", a, b)
}
