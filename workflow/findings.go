package workflow

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Review triage (issue 30). A review verdict may carry findings: a severity, the file and line it
// is about, and what is wrong. Findings at or above the definition's blocking severity (high by
// default) block the way out of review (reviews-passed) and open the fix cycle (review-failed);
// the rest are recorded for the pull request (`git exarchos view findings --markdown`).
//
// A finding's id is derived from what it says (dimension, file, line, text), so the same finding
// reported again is the same finding, and ids do not move when two clones' logs merge. A finding
// closes in one of two ways:
//   - a later review of its dimension, on another commit than the one it was reported on, does not
//     repeat it (the fix was committed, the reviewer judged the new tip and did not find it again);
//   - `git exarchos review --resolve ID --note WHY`, by whom may judge the work (a reviewer
//     subagent that did none of the tasks, or the user with --human; see ResolveFinding).
//
// A finding repeated after it closed opens again.

// Severities, most severe first.
const (
	SeverityCritical = "critical"
	SeverityHigh     = "high"
	SeverityMedium   = "medium"
	SeverityLow      = "low"
	SeverityInfo     = "info"
)

// Severities lists the severities a finding may have, most severe first.
var Severities = []string{SeverityCritical, SeverityHigh, SeverityMedium, SeverityLow, SeverityInfo}

// DefaultBlockingSeverity is the least severe severity that blocks when a definition names none.
const DefaultBlockingSeverity = SeverityHigh

// Bounds on what one review may carry: enough for any real review, small enough that a runaway
// reviewer cannot bloat the log every later read pays for.
const (
	MaxFindings    = 100     // findings in one review call (more: several calls on the same tip)
	MaxFindingText = 1000    // bytes of one finding's text
	MaxFindingPath = 1024    // bytes of one finding's file path
	MaxFindingLine = 1 << 24 // a line number no real file reaches
	// MaxOpenFindings bounds the open findings of one workflow, so the state every hook call reads
	// stays small: past it, fix or resolve some before recording more.
	MaxOpenFindings = 100
)

// EventFindingResolved closes a finding by a reviewer's or a human's word (review --resolve).
const EventFindingResolved = "finding.resolved"

// severityRank is a severity's place in Severities (0 is the most severe), or -1.
func severityRank(s string) int { return slices.Index(Severities, s) }

// BlockingSeverity is the least severe severity that blocks the way out of review.
func (d *Definition) BlockingSeverity() string {
	if d != nil && d.FindingsBlockAt != "" {
		return d.FindingsBlockAt
	}
	return DefaultBlockingSeverity
}

// Blocks reports whether a finding of severity sev blocks under this definition.
func (d *Definition) Blocks(sev string) bool {
	r := severityRank(sev)
	return r >= 0 && r <= severityRank(d.BlockingSeverity())
}

// FindingInput is one finding as a reviewer gives it.
type FindingInput struct {
	Severity string `json:"severity"`
	File     string `json:"file"`
	Line     int    `json:"line,omitempty"` // 0: the file as a whole
	Text     string `json:"text"`
}

// FindingData is a finding in a review.recorded event: the input and its id.
type FindingData struct {
	ID string `json:"id"`
	FindingInput
}

// Finding is one finding in State.Findings: where it stands now.
type Finding struct {
	ID        string `json:"id"`
	Dimension string `json:"dimension"`
	Severity  string `json:"severity"`
	File      string `json:"file"`
	Line      int    `json:"line,omitempty"`
	Text      string `json:"text"`
	// Commit is the commit the review that last reported it judged; Seq that review's event.
	Commit string `json:"commit"`
	Seq    int64  `json:"seq"`
	// Closed says how it closed; nil while it is open.
	Closed *FindingClosed `json:"closed,omitempty"`
}

// Where is the finding's file and line as editors take them (file:line; the file alone for line 0).
func (f Finding) Where() string {
	if f.Line == 0 {
		return f.File
	}
	return f.File + ":" + strconv.Itoa(f.Line)
}

// How a finding closed.
const (
	ClosedByReReview = "re-review" // a later review of its dimension on another commit did not repeat it
	ClosedByResolve  = "resolved"  // review --resolve
)

// FindingClosed is how and when a finding closed.
type FindingClosed struct {
	By     string `json:"by"` // re-review | resolved | github
	Seq    int64  `json:"seq"`
	Commit string `json:"commit,omitempty"` // the commit the re-review judged
	Note   string `json:"note,omitempty"`   // resolved: why
	Actor  string `json:"actor,omitempty"`
	Human  bool   `json:"human,omitempty"`
}

// FindingID is the id of a finding: what it says, hashed. The same finding reported again (same
// dimension, file, line and text) has the same id; a new severity is the same finding re-graded.
func FindingID(dimension string, f FindingInput) string {
	h := sha256.Sum256([]byte(dimension + "\x00" + f.File + "\x00" + strconv.Itoa(f.Line) + "\x00" + f.Text))
	return "f" + hex.EncodeToString(h[:4])
}

// OpenFindings are the findings not closed, blocking ones (under def) first, each group in the
// order they were reported.
func (s State) OpenFindings(def *Definition) (blocking, rest []Finding) {
	for _, f := range s.Findings {
		switch {
		case f.Closed != nil:
		case def.Blocks(f.Severity):
			blocking = append(blocking, f)
		default:
			rest = append(rest, f)
		}
	}
	return blocking, rest
}

// Finding returns the finding with the given id.
func (s State) Finding(id string) (Finding, bool) {
	i := slices.IndexFunc(s.Findings, func(f Finding) bool { return f.ID == id })
	if i < 0 {
		return Finding{}, false
	}
	return s.Findings[i], true
}

// ValidateFindings checks findings as a reviewer gave them and returns them with their ids; the
// error names the finding (1-based) and what to change.
func ValidateFindings(dimension string, in []FindingInput) ([]FindingData, error) {
	if len(in) > MaxFindings {
		return nil, fmt.Errorf("%d findings in one review, more than %d: record them in several calls of git exarchos review on the same tip (each adds its findings)", len(in), MaxFindings)
	}
	out := make([]FindingData, 0, len(in))
	seen := map[string]int{}
	for i, f := range in {
		n := i + 1
		if severityRank(f.Severity) < 0 {
			return nil, fmt.Errorf("finding %d: unknown severity %q: use one of %s%s", n, f.Severity, strings.Join(Severities, ", "), DidYouMean(Severities, f.Severity))
		}
		if err := checkFindingPath(f.File); err != nil {
			return nil, fmt.Errorf("finding %d: %w", n, err)
		}
		if f.Line < 0 || f.Line > MaxFindingLine {
			return nil, fmt.Errorf("finding %d: line %d: give the line the finding is about (1 or more), or 0 for the file as a whole", n, f.Line)
		}
		switch {
		case strings.TrimSpace(f.Text) == "":
			return nil, fmt.Errorf("finding %d (%s): no text: say what is wrong and what to change", n, f.File)
		case len(f.Text) > MaxFindingText:
			return nil, fmt.Errorf("finding %d (%s): text of %d bytes, over %d: say what is wrong in fewer words (details belong in the code or a note)", n, f.File, len(f.Text), MaxFindingText)
		case !utf8.ValidString(f.Text):
			return nil, fmt.Errorf("finding %d (%s): the text is not UTF-8", n, f.File)
		}
		id := FindingID(dimension, f)
		if j, ok := seen[id]; ok {
			return nil, fmt.Errorf("finding %d repeats finding %d (same file, line and text): give it once", n, j)
		}
		seen[id] = n
		out = append(out, FindingData{ID: id, FindingInput: f})
	}
	return out, nil
}

// checkFindingPath: a path relative to the repository's top, as git names files.
func checkFindingPath(p string) error {
	switch {
	case p == "":
		return fmt.Errorf("no file: name the file the finding is about, relative to the repository's top (e.g. app/login.go)")
	case len(p) > MaxFindingPath:
		return fmt.Errorf("file path of %d bytes, over %d", len(p), MaxFindingPath)
	case !utf8.ValidString(p) || strings.ContainsAny(p, "\x00\n\r\\"):
		return fmt.Errorf("file %q: a path as git names it (forward slashes, no control characters)", p)
	case strings.HasPrefix(p, "/") || path.Clean(p) != p || p == "." || p == ".." || strings.HasPrefix(p, "../"):
		return fmt.Errorf("file %q: a clean path relative to the repository's top (e.g. app/login.go), not %s", p, "an absolute or dotted one")
	}
	return nil
}

// ResolveFinding closes an open finding with a reason: a false positive, or fixed where a re-review
// would not show it. Like a verdict it counts only from whom may judge the work: the definition's
// reviewBy decides (a reviewer subagent that did none of the tasks or a human by default; a
// human's --human only with reviewBy: human; anyone with reviewBy: agent).
type ResolveFinding struct {
	ID    string
	Note  string
	Human bool
	// Commit is the branch tip when it was resolved (for the record).
	Commit string
}

func (ResolveFinding) command() {}

// FindingResolvedData is the payload of finding.resolved.
type FindingResolvedData struct {
	ID        string `json:"id"`
	Note      string `json:"note"`
	Actor     string `json:"actor,omitempty"`
	Commit    string `json:"commit,omitempty"`
	Human     bool   `json:"human,omitempty"`
	Session   string `json:"session,omitempty"`
	Agent     string `json:"agent,omitempty"`
	AgentType string `json:"agentType,omitempty"`
}

// openAfter refuses a review that would leave more than MaxOpenFindings open, counted as the fold
// will count them (applyFindings): each finding it reports is open after it; of the others, those
// of its dimension judged on another commit close.
func (d decider) openAfter(dimension, commit string, findings []FindingData) *Rejection {
	reported := map[string]bool{}
	for _, f := range findings {
		reported[f.ID] = true
	}
	open := len(findings)
	for _, f := range d.s.Findings {
		if f.Closed == nil && !reported[f.ID] && (f.Dimension != dimension || f.Commit == commit) {
			open++
		}
	}
	if open > MaxOpenFindings {
		return reject(CodeBadInput, "%s would have %d open review findings, more than %d: fix the blocking ones (the fix cycle) and resolve what needs no fix (git exarchos view findings %s) before recording more",
			d.s.Feature, open, MaxOpenFindings, d.s.Feature)
	}
	return nil
}

func (d decider) resolveFinding(c ResolveFinding) ([]NewEvent, *Rejection) {
	f, ok := d.s.Finding(c.ID)
	if !ok {
		ids := make([]string, 0, len(d.s.Findings))
		for _, f := range d.s.Findings {
			ids = append(ids, f.ID)
		}
		return nil, reject(CodeBadInput, "%s has no finding %q: git exarchos view findings %s lists them%s", d.s.Feature, c.ID, d.s.Feature, DidYouMean(ids, c.ID))
	}
	if f.Closed != nil {
		return nil, nil // already closed: nothing to record, as a transition to the current phase
	}
	if strings.TrimSpace(c.Note) == "" {
		return nil, reject(CodeBadInput, "say why %s is resolved: git exarchos review %s --resolve %s --note \"false positive: …\"", c.ID, d.s.Feature, c.ID)
	}
	if len(c.Note) > MaxFindingText {
		return nil, reject(CodeBadInput, "a note of %d bytes, over %d: say why in fewer words", len(c.Note), MaxFindingText)
	}
	if c.Human && d.def.ReviewBy != "human" && d.def.ReviewBy != "" {
		return nil, reject(CodeBadInput, "the %s definition takes reviews from %s, not human decisions: resolve without --human", d.def.Type, orAgent(d.def.ReviewBy))
	}
	by := d.env.Caller
	switch {
	case d.def.ReviewBy == "agent":
	case d.def.ReviewBy == "human" && !c.Human:
		return nil, reject(CodeHumanDecision, "the %s definition takes reviews from a human: ask the user to run git exarchos review %s --resolve %s --human --note \"…\"", d.def.Type, d.s.Feature, c.ID)
	case !c.Human && !d.s.Independent(by):
		// Closing a finding without the fix chooses less process: not the call of the agent that did the work.
		return nil, reject(CodeHumanDecision, "%s is resolved by whom may judge the work, not the agent that did it: a reviewer subagent (one that completed none of the tasks) runs git exarchos review %s --resolve %s --note \"…\", or ask the user to run it with --human; or fix it in a task and review again",
			c.ID, d.s.Feature, c.ID)
	}
	return one(EventFindingResolved, FindingResolvedData{ID: c.ID, Note: c.Note, Actor: d.env.Actor, Commit: c.Commit, Human: c.Human,
		Session: by.Session, Agent: by.Agent, AgentType: by.AgentType}), nil
}

// Independent reports whether a caller is someone other than the agent that recorded the work: a
// subagent (as the client reports it) that completed none of the tasks. A session's main agent,
// or a call from outside any agent session, is never told apart from the agent that did the work.
func (s State) Independent(c Caller) bool {
	if c.Agent == "" {
		return false
	}
	for _, t := range s.Tasks {
		if t.Agent == c.Agent && t.Session == c.Session {
			return false
		}
	}
	return true
}

// applyFindings folds a review's findings: each reported one is open (again) on the review's
// commit; an open one of the same dimension reported on another commit and not repeated closes.
func (s *State) applyFindings(d ReviewData, actor string, seq int64) error {
	for _, f := range d.Findings {
		if f.ID == "" || severityRank(f.Severity) < 0 || f.File == "" {
			return fmt.Errorf("a finding needs an id, a known severity and a file")
		}
	}
	reported := map[string]bool{}
	for _, f := range d.Findings {
		reported[f.ID] = true
	}
	for i := range s.Findings {
		f := &s.Findings[i]
		if f.Dimension == d.Dimension && f.Closed == nil && !reported[f.ID] && f.Commit != d.Commit {
			f.Closed = &FindingClosed{By: ClosedByReReview, Seq: seq, Commit: d.Commit, Actor: actor, Human: d.Human}
			f.Text = closedText(f.Text)
		}
	}
	for _, in := range d.Findings {
		f := Finding{ID: in.ID, Dimension: d.Dimension, Severity: in.Severity, File: in.File, Line: in.Line, Text: in.Text, Commit: d.Commit, Seq: seq}
		if i := slices.IndexFunc(s.Findings, func(x Finding) bool { return x.ID == in.ID }); i >= 0 {
			s.Findings[i] = f // repeated: open, on this commit, with this severity
			continue
		}
		s.Findings = append(s.Findings, f)
	}
	return nil
}

// ClosedTextBytes is how much of a closed finding's text the state keeps: closed findings stay in
// the state every hook call reads, and their whole text stays in the review's event.
const ClosedTextBytes = 200

func closedText(t string) string {
	if len(t) <= ClosedTextBytes {
		return t
	}
	return strings.ToValidUTF8(t[:ClosedTextBytes], "") + "…"
}

// applyFindingResolved closes a finding; a resolve Decide would have refused (by the agent that did
// the work, hand-built into the log) has no effect: the fold keeps the rule, not the command alone.
func (s *State) applyFindingResolved(def *Definition, e Event) error {
	var d FindingResolvedData
	if err := decode(e, &d); err != nil {
		return err
	}
	i := slices.IndexFunc(s.Findings, func(f Finding) bool { return f.ID == d.ID })
	if i < 0 {
		return fmt.Errorf("no finding %q", d.ID)
	}
	switch by := (Caller{Session: d.Session, Agent: d.Agent}); {
	case def.ReviewBy == "agent":
	case def.ReviewBy == "human" && !d.Human:
		return fmt.Errorf("finding %s resolved by other than a human under reviewBy: human: no effect", d.ID)
	case !d.Human && !s.Independent(by):
		return fmt.Errorf("finding %s resolved by the agent that did the work: no effect", d.ID)
	}
	if f := &s.Findings[i]; f.Closed == nil { // resolved twice (two clones): the first stands
		f.Closed = &FindingClosed{By: ClosedByResolve, Seq: e.Seq, Commit: d.Commit, Note: d.Note, Actor: actorOf(d.Actor, e), Human: d.Human}
		f.Text = closedText(f.Text)
	}
	return nil
}
