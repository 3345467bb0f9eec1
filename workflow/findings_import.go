package workflow

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
)

// Findings imported from the pull request (issue 40). `git exarchos review import` reads the
// pull request's review comments on GitHub and records them as findings of the dimension
// DimensionGitHub: each comment thread one finding, its id derived from the thread's first
// comment (so a second import of the same threads adds nothing, whatever was edited), its
// severity from the author's format. A thread GitHub reports resolved (or gone) closes its
// finding. Imported findings block the way out of review like a reviewer's, and an open blocking
// one in synthesize is a synthesis failure: the fix cycle.

// DimensionGitHub is the review dimension of findings imported from the pull request.
const DimensionGitHub = "github"

// ClosedByGitHub: the finding's thread was resolved on GitHub (or its comment deleted).
const ClosedByGitHub = "github"

// EventFindingsImported records findings read from the pull request, and the imported ones whose
// threads GitHub no longer holds open.
const EventFindingsImported = "findings.imported"

// ImportedFinding is one pull request comment thread as a finding: the thread's key (GitHub's id
// of its first comment) and what it says.
type ImportedFinding struct {
	Key    string // e.g. "comment 2048"; the finding's id is derived from it
	Author string
	FindingInput
}

// ImportFindings records what the pull request's review threads say: the open ones as findings
// (new, or changed since the last import), and the imported findings whose threads are resolved.
type ImportFindings struct {
	PR     int
	Commit string // the pull request's head when it was read
	Open   []ImportedFinding
	// Resolved are the ids (ImportedFindingID) of imported findings whose threads GitHub reports
	// resolved, or no longer has.
	Resolved []string
}

func (ImportFindings) command() {}

// FindingsImportedData is the payload of findings.imported.
type FindingsImportedData struct {
	Source   string        `json:"source"` // github
	PR       int           `json:"pr"`
	Commit   string        `json:"commit"`
	Findings []FindingData `json:"findings,omitempty"`
	Closed   []string      `json:"closed,omitempty"` // ids of imported findings now closed
	Actor    string        `json:"actor,omitempty"`
}

// ImportedFindingID is the id of the finding a pull request thread becomes.
func ImportedFindingID(key string) string {
	h := sha256.Sum256([]byte(DimensionGitHub + "\x00" + key))
	return "f" + hex.EncodeToString(h[:4])
}

// importFindings records only what changes: a thread already open with the same severity, file,
// line and text adds nothing, a resolved thread whose finding is closed (or was never imported)
// closes nothing; with nothing to change nothing is recorded, so importing twice is importing once.
func (d decider) importFindings(c ImportFindings) ([]NewEvent, *Rejection) {
	if c.PR <= 0 || c.Commit == "" {
		return nil, reject(CodeBadInput, "an import names the pull request and the head it read")
	}
	in := make([]FindingInput, len(c.Open))
	for i, f := range c.Open {
		in[i] = f.FindingInput
	}
	checked, err := ValidateFindings(DimensionGitHub, in)
	if err != nil {
		return nil, reject(CodeBadInput, "%v", err)
	}
	var open []FindingData
	seen := map[string]bool{}
	for i, f := range checked {
		f.ID = ImportedFindingID(c.Open[i].Key)
		if seen[f.ID] {
			return nil, reject(CodeBadInput, "thread %q given twice", c.Open[i].Key)
		}
		seen[f.ID] = true
		if cur, ok := d.s.Finding(f.ID); ok && cur.Closed == nil && cur.Severity == f.Severity && cur.File == f.File && cur.Line == f.Line && cur.Text == f.Text {
			continue
		}
		open = append(open, f)
	}
	var closed []string
	for _, id := range c.Resolved {
		if cur, ok := d.s.Finding(id); ok && cur.Closed == nil && cur.Dimension == DimensionGitHub && !seen[id] && !slices.Contains(closed, id) {
			closed = append(closed, id)
		}
	}
	if len(open)+len(closed) == 0 {
		return nil, nil
	}
	if r := d.openAfterImport(open, closed); r != nil {
		return nil, r
	}
	return one(EventFindingsImported, FindingsImportedData{Source: DimensionGitHub, PR: c.PR, Commit: c.Commit, Findings: open, Closed: closed, Actor: d.env.Actor}), nil
}

// openAfterImport keeps the open findings within MaxOpenFindings, counted as the fold counts them.
func (d decider) openAfterImport(open []FindingData, closed []string) *Rejection {
	n := 0
	for _, f := range d.s.Findings {
		if f.Closed == nil && !slices.Contains(closed, f.ID) && !slices.ContainsFunc(open, func(o FindingData) bool { return o.ID == f.ID }) {
			n++
		}
	}
	if n += len(open); n > MaxOpenFindings {
		return reject(CodeBadInput, "%s would have %d open review findings, more than %d: resolve threads on GitHub, or fix the blocking findings first (git exarchos view findings %s)",
			d.s.Feature, n, MaxOpenFindings, d.s.Feature)
	}
	return nil
}

// applyFindingsImported opens each imported finding (again) on the head read, and closes the
// imported findings whose threads were resolved. Only findings of DimensionGitHub close this
// way: an import never closes a reviewer's finding.
func (s *State) applyFindingsImported(e Event) error {
	var d FindingsImportedData
	if err := decode(e, &d); err != nil {
		return err
	}
	for _, f := range d.Findings {
		if f.ID == "" || severityRank(f.Severity) < 0 || f.File == "" {
			return fmt.Errorf("an imported finding needs an id, a known severity and a file")
		}
	}
	actor := actorOf(d.Actor, e)
	for _, id := range d.Closed {
		if i := slices.IndexFunc(s.Findings, func(f Finding) bool { return f.ID == id }); i >= 0 {
			if f := &s.Findings[i]; f.Closed == nil && f.Dimension == DimensionGitHub {
				f.Closed = &FindingClosed{By: ClosedByGitHub, Seq: e.Seq, Commit: d.Commit, Note: fmt.Sprintf("thread resolved on pull request #%d", d.PR), Actor: actor}
				f.Text = closedText(f.Text)
			}
		}
	}
	for _, in := range d.Findings {
		f := Finding{ID: in.ID, Dimension: DimensionGitHub, Severity: in.Severity, File: in.File, Line: in.Line, Text: in.Text, Commit: d.Commit, Seq: e.Seq}
		if i := slices.IndexFunc(s.Findings, func(x Finding) bool { return x.ID == in.ID }); i >= 0 {
			s.Findings[i] = f
			continue
		}
		s.Findings = append(s.Findings, f)
	}
	return nil
}
