package app

// Review triage (issue 30): `git exarchos review` with findings, `review --resolve`, and the views
// of a workflow's findings (view findings, the task board). What a finding is, how it blocks and
// how it closes is the pure core's (workflow/findings.go); here the findings are read from flags
// or a JSON file, bounded, and checked against the commit the review judged.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"

	"github.com/exarchos/git-exarchos/project"
	"github.com/exarchos/git-exarchos/workflow"
)

// MaxFindingsFile bounds a findings file (or stdin): MaxFindings findings of the longest text and
// path fit in it with room to spare.
const MaxFindingsFile = 256 << 10

// ReviewOptions are `git exarchos review`: a verdict for one dimension with its findings, or
// (Resolve) the closing of one finding with a reason.
type ReviewOptions struct {
	Feature   string
	Dimension string
	// Verdict is pass or fail; "" lets the findings decide (fail when one blocks).
	Verdict string
	Note    string
	Human   bool
	// Findings are --finding values, SEVERITY:FILE:LINE:TEXT each; FindingsFile a JSON array of
	// {"severity","file","line","text"} ("-": Stdin).
	Findings     []string
	FindingsFile string
	Stdin        io.Reader
	// Resolve is the id of a finding to close (Note says why); no dimension, verdict or findings.
	Resolve string
}

// ReviewResult is the write result and where the workflow's findings stand after it.
type ReviewResult struct {
	*project.Result
	Findings *FindingsReport `json:"findings"`
}

// FindingsReport is a workflow's review findings: the open ones that block (the fix cycle's work),
// the open ones that do not (for the pull request), and with All the closed ones.
type FindingsReport struct {
	Feature string `json:"feature"`
	Phase   string `json:"phase"`
	// BlockAt is the least severe severity that blocks under the workflow's definition.
	BlockAt  string             `json:"blockAt"`
	Blocking []workflow.Finding `json:"blocking"`
	Open     []workflow.Finding `json:"open"`
	Closed   []workflow.Finding `json:"closed,omitempty"`
}

// Review records a verdict with findings, or resolves a finding.
func Review(r *Repo, o ReviewOptions) (*ReviewResult, error) {
	cmd, err := o.command()
	if err != nil {
		return nil, err
	}
	feature, err := r.ResolveFeature(o.Feature)
	if err != nil {
		return nil, err
	}
	st, _, err := r.State(feature)
	if err != nil {
		return nil, err
	}
	switch c := cmd.(type) {
	case workflow.RecordReview:
		if c, err = r.bindReview(feature, c); err != nil {
			return nil, err
		}
		if err := r.checkFindingFiles(st, c); err != nil {
			return nil, err
		}
		cmd = c
	case workflow.ResolveFinding:
		if tip, err := r.Facts().BranchTip(st.Branch); err == nil {
			c.Commit = tip // for the record: the resolve does not depend on it
		}
		cmd = c
	}
	res, err := r.Execute(feature, cmd)
	if err != nil {
		return nil, err
	}
	rep, err := r.findingsReport(feature, res.State, false)
	if err != nil {
		return nil, err
	}
	return &ReviewResult{Result: res, Findings: rep}, nil
}

// command builds the workflow command, refusing what does not go together.
func (o ReviewOptions) command() (workflow.Command, error) {
	if o.Resolve != "" {
		if o.Dimension != "" || o.Verdict != "" || len(o.Findings) > 0 || o.FindingsFile != "" {
			return nil, project.Usagef("--resolve closes one finding: give it alone, git exarchos review [<feature>] --resolve %s --note \"why\"", o.Resolve)
		}
		return workflow.ResolveFinding{ID: o.Resolve, Note: o.Note, Human: o.Human}, nil
	}
	if o.Dimension == "" {
		return nil, project.Usagef("name the review dimension: git exarchos review [<feature>] <dimension> [pass|fail] [--finding SEVERITY:FILE:LINE:TEXT]…")
	}
	if o.Dimension == "pass" || o.Dimension == "fail" {
		// The command line tells a dimension from a verdict by position, so these would be ambiguous.
		return nil, project.Usagef("%q is a verdict, not a review dimension: give the dimension first, git exarchos review [<feature>] <dimension> %s (see git exarchos describe for the dimensions)", o.Dimension, o.Dimension)
	}
	findings, err := o.readFindings()
	if err != nil {
		return nil, err
	}
	rv := workflow.RecordReview{Dimension: o.Dimension, Note: o.Note, Human: o.Human, Findings: findings}
	switch o.Verdict {
	case "pass", "fail":
		rv.Pass = o.Verdict == "pass"
	case "":
		if len(findings) == 0 {
			return nil, project.Usagef("give a verdict (pass or fail), or findings for it to follow from: git exarchos review %s fail, or --finding SEVERITY:FILE:LINE:TEXT", o.Dimension)
		}
		rv.Triage = true
	default:
		return nil, project.Usagef("review verdict %q: use pass or fail (or leave it out to let the findings decide)", o.Verdict)
	}
	return rv, nil
}

// findingFlag is --finding's SEVERITY:FILE:LINE:TEXT: the line is the first all-digit field after
// the severity, so a text may hold colons (and a path may, unless one of its parts is all digits).
var findingFlag = regexp.MustCompile(`^([^:]*):(.*?):([0-9]+):(.*)$`)

// parseFinding reads one --finding value.
func parseFinding(s string) (workflow.FindingInput, error) {
	m := findingFlag.FindStringSubmatch(s)
	if m == nil {
		return workflow.FindingInput{}, project.Usagef("--finding %q: write SEVERITY:FILE:LINE:TEXT, e.g. --finding 'high:app/login.go:42:the error from Close is dropped' (LINE 0: the file as a whole)", clipText(s))
	}
	line, err := strconv.Atoi(m[3])
	if err != nil { // more digits than an int holds
		line = -1
	}
	return workflow.FindingInput{Severity: m[1], File: m[2], Line: line, Text: m[4]}, nil
}

// readFindings gathers the flags' findings, then the file's, bounded.
func (o ReviewOptions) readFindings() ([]workflow.FindingInput, error) {
	var out []workflow.FindingInput
	if len(o.Findings) > workflow.MaxFindings {
		return nil, project.Usagef("%d --finding flags, more than %d in one review: record them in several calls on the same tip (each adds its findings)", len(o.Findings), workflow.MaxFindings)
	}
	for _, s := range o.Findings {
		f, err := parseFinding(s)
		if err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	if o.FindingsFile == "" {
		return out, nil
	}
	in, name := o.Stdin, "stdin"
	if o.FindingsFile != "-" {
		f, err := os.Open(o.FindingsFile)
		if err != nil {
			return nil, project.Usagef("--findings-file: %v", err)
		}
		defer f.Close()
		in, name = f, o.FindingsFile
	}
	if in == nil {
		return nil, project.Usagef("--findings-file -: no standard input to read")
	}
	b, err := io.ReadAll(io.LimitReader(in, MaxFindingsFile+1))
	if err != nil {
		return nil, fmt.Errorf("read the findings from %s: %w", name, err)
	}
	if len(b) > MaxFindingsFile {
		return nil, project.Usagef("the findings in %s are over %d KiB: a review records at most %d findings of %d bytes each; split them over several calls on the same tip", name, MaxFindingsFile>>10, workflow.MaxFindings, workflow.MaxFindingText)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var fs []workflow.FindingInput
	if err := dec.Decode(&fs); err != nil || dec.More() {
		if err == nil {
			err = errors.New("more after the array")
		}
		return nil, project.Usagef(`the findings in %s: %v: write a JSON array of {"severity": "high", "file": "app/login.go", "line": 42, "text": "…"}`, name, err)
	}
	return append(out, fs...), nil
}

// checkFindingFiles: a finding names a file of the commit the review judged. The shape of each
// finding is the core's to check (first, so its message comes first).
func (r *Repo) checkFindingFiles(st workflow.State, rv workflow.RecordReview) error {
	if _, err := workflow.ValidateFindings(rv.Dimension, rv.Findings); err != nil {
		return &workflow.Rejection{Code: workflow.CodeBadInput, Message: err.Error()}
	}
	facts := r.Facts()
	for i, f := range rv.Findings {
		ok, err := facts.FileExists(rv.Commit, f.File)
		if err != nil {
			return fmt.Errorf("finding %d: read %s in %s: %w", i+1, f.File, project.Short(rv.Commit), err)
		}
		if !ok {
			return &workflow.Rejection{Code: workflow.CodeBadInput, Message: fmt.Sprintf(
				"finding %d: %s is not a file in %s, the tip of %s the review judges: name a file as committed there (a path from the repository's top; git ls-tree -r --name-only %s lists them)",
				i+1, f.File, project.Short(rv.Commit), st.Branch, st.Branch)}
		}
	}
	return nil
}

// FindingsOptions are `git exarchos view findings [<feature>]`.
type FindingsOptions struct {
	Feature string
	All     bool // the closed findings too
}

// ShowFindings reads a workflow's findings from its snapshot.
func ShowFindings(r *Repo, o FindingsOptions) (*FindingsReport, error) {
	feature, st, _, err := r.ResolveState(o.Feature)
	if err != nil {
		return nil, err
	}
	return r.findingsReport(feature, st, o.All)
}

func (r *Repo) findingsReport(feature string, st workflow.State, all bool) (*FindingsReport, error) {
	def, err := r.Definition(st.Type)
	if err != nil {
		return nil, err
	}
	blocking, open := st.OpenFindings(def)
	rep := &FindingsReport{Feature: feature, Phase: st.Phase, BlockAt: def.BlockingSeverity(), Blocking: orEmpty(blocking), Open: orEmpty(open)}
	if all {
		rep.Closed = []workflow.Finding{}
		for _, f := range st.Findings {
			if f.Closed != nil {
				rep.Closed = append(rep.Closed, f)
			}
		}
	}
	return rep, nil
}

func orEmpty(fs []workflow.Finding) []workflow.Finding {
	if fs == nil {
		return []workflow.Finding{}
	}
	return fs
}

func clipText(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}
