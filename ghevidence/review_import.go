package ghevidence

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/exarchos/git-exarchos/project"
	"github.com/exarchos/git-exarchos/workflow"
)

// ReviewImportOptions are `git exarchos review import [<feature>]`.
type ReviewImportOptions struct {
	Feature string
	DryRun  bool // decide what would be recorded; record nothing
}

// ImportedThread is one review thread of the pull request as the import read it.
type ImportedThread struct {
	ID       string `json:"id"` // the finding's id
	Comment  int64  `json:"comment"`
	Author   string `json:"author"`
	Source   string `json:"source"` // coderabbit | copilot | person | bot: whose format set the severity
	Severity string `json:"severity"`
	File     string `json:"file"`
	Line     int    `json:"line,omitempty"`
	Text     string `json:"text"`
	Resolved bool   `json:"resolved"`
	URL      string `json:"url,omitempty"`
}

// ReviewImportResult is what review import read and recorded.
type ReviewImportResult struct {
	Feature     string           `json:"feature"`
	PR          int              `json:"pr"`
	PRHead      string           `json:"prHead"`
	Threads     []ImportedThread `json:"threads"`
	Changed     bool             `json:"changed"` // something was recorded (or, with --dry-run, would be)
	DryRun      bool             `json:"dryRun,omitempty"`
	Head        string           `json:"head"`
	Appended    []workflow.Event `json:"appended"`
	Warnings    []string         `json:"warnings"`
	Requests    int              `json:"requests"`
	TokenSource string           `json:"tokenSource"`
}

// ImportReviews reads the linked pull request's review threads (every page) and records them as
// findings of dimension github: each thread's first comment is a finding, its severity from the
// author's format (CodeRabbit's tiers, Copilot's suggestions, a person's comment medium unless
// marked), its id from the comment, so importing again adds only what changed; a thread resolved
// on GitHub, or deleted, closes its finding.
func ImportReviews(r *Repo, o ReviewImportOptions) (*ReviewImportResult, error) {
	feature, st, snap, err := r.ResolveState(o.Feature)
	if err != nil {
		return nil, err
	}
	if st.PR == nil || st.PR.URL == "" {
		return nil, fmt.Errorf("%w to %s: open it with `git exarchos pr create %s`, or link it (`git exarchos pr find %s`)", ErrNotLinked, feature, feature, feature)
	}
	gh, n, err := r.linkedClient(feature, st.PR.URL)
	if err != nil {
		return nil, err
	}
	ctx := context.Background()
	pr, err := gh.PullRequest(ctx, n)
	if err != nil {
		return nil, err
	}
	comments, err := gh.ReviewComments(ctx, n)
	if err != nil {
		return nil, err
	}
	threads, err := gh.ReviewThreads(ctx, n)
	if err != nil {
		return nil, err
	}
	res := &ReviewImportResult{Feature: feature, PR: n, PRHead: pr.HeadSHA, Threads: []ImportedThread{}, DryRun: o.DryRun, Head: snap.Commit.String(),
		Appended: []workflow.Event{}, Warnings: []string{}, TokenSource: gh.TokenSource()}
	cmd := workflow.ImportFindings{PR: n, Commit: pr.HeadSHA}
	current := map[string]bool{}
	for _, c := range comments {
		if c.ReplyTo != 0 {
			continue // a reply belongs to its thread's finding
		}
		sev, source := SeverityOf(c.Author, c.Body)
		key := "comment " + strconv.FormatInt(c.ID, 10)
		t := ImportedThread{ID: workflow.ImportedFindingID(key), Comment: c.ID, Author: c.Author, Source: source, Severity: sev, File: c.Path, Line: c.Line,
			Text: findingText(c.Author, c.Body), Resolved: threads[c.ID].Resolved, URL: c.URL}
		res.Threads = append(res.Threads, t)
		current[t.ID] = true
		if t.Resolved {
			cmd.Resolved = append(cmd.Resolved, t.ID)
			continue
		}
		cmd.Open = append(cmd.Open, workflow.ImportedFinding{Key: key, Author: c.Author,
			FindingInput: workflow.FindingInput{Severity: sev, File: c.Path, Line: c.Line, Text: t.Text}})
	}
	for _, f := range st.Findings { // a thread deleted on GitHub: its finding closes too
		if f.Dimension == workflow.DimensionGitHub && f.Closed == nil && !current[f.ID] {
			cmd.Resolved = append(cmd.Resolved, f.ID)
		}
	}
	if len(cmd.Open) > workflow.MaxFindings {
		return nil, project.Usagef("pull request #%d has %d open review threads, more than %d: resolve some on GitHub first", n, len(cmd.Open), workflow.MaxFindings)
	}
	if pr.HeadSHA != "" {
		if tip, err := r.Store.Facts().BranchTip(st.Branch); err == nil && tip != pr.HeadSHA {
			res.Warnings = append(res.Warnings, fmt.Sprintf("the pull request's head %s is not the local branch's tip %s: push or pull before fixing what it says", shortSHA(pr.HeadSHA), shortSHA(tip)))
		}
	}
	run := r.Execute
	if o.DryRun {
		run = r.Preview
	}
	out, err := run(feature, cmd)
	res.Requests = gh.Requests()
	if err != nil {
		return nil, err
	}
	res.Appended, res.Changed = out.Appended, len(out.Appended) > 0
	if !o.DryRun {
		res.Head = out.Head
	}
	return res, nil
}

// Known review bots' logins.
var (
	coderabbitLogins = []string{"coderabbitai[bot]", "coderabbitai"}
	copilotLogins    = []string{"Copilot", "copilot[bot]", "github-copilot[bot]", "copilot-pull-request-reviewer[bot]"}
)

var (
	// CodeRabbit marks each finding with an italic tier line (`_⚠️ Potential issue_ | _🟠 Major_`)
	// or, in older comments, a heading word. No \b inside the italics: `_` is a word character.
	crCritical = regexp.MustCompile(`(?i)_[^_\n]*critical[^_\n]*_|(^|\n)[ \t]*[#*]*\s*critical\b`)
	crMajor    = regexp.MustCompile(`(?i)_[^_\n]*major[^_\n]*_|(^|\n)[ \t]*[#*]*\s*major\b`)
	crMinor    = regexp.MustCompile(`(?i)_[^_\n]*minor[^_\n]*_|(^|\n)[ \t]*[#*]*\s*minor\b`)
	crTrivial  = regexp.MustCompile(`(?i)_[^_\n]*(trivial|nitpick)[^_\n]*_|(^|\n)[ \t]*[#*]*\s*nitpick\b`)
	crIssue    = regexp.MustCompile(`(?i)_[^_\n]*potential issue_`)
	crRefactor = regexp.MustCompile(`(?i)_[^_\n]*refactor suggestion_`)
	crVerify   = regexp.MustCompile(`(?i)_[^_\n]*verification agent_`)
	// A person marks a comment's weight at its start, as Conventional Comments do
	// ("blocking:", "nit:", "issue (blocking):") or with a severity word ("high:", "[critical]").
	personMark = regexp.MustCompile(`(?i)^\W*\[?(critical|high|medium|low|info|blocking|must|nit|nitpick|minor|optional|question|suggestion|issue)\s*(\(([a-z -]+)\))?\s*[\]:]`)
)

// SeverityOf maps a review comment's author and text to a finding's severity, and says whose
// format decided it: CodeRabbit's tier (Critical: critical; Major or a potential issue: high;
// Minor, a refactor suggestion or a verification: medium; Trivial or a nitpick: low), Copilot's
// (suggestions without a tier: medium; "[nitpick]": low), another bot's (medium), or a person's
// (medium unless the comment starts with its weight).
func SeverityOf(author, body string) (severity, source string) {
	switch {
	case isOneOf(author, coderabbitLogins):
		switch {
		case crCritical.MatchString(body):
			return workflow.SeverityCritical, "coderabbit"
		case crMajor.MatchString(body), crIssue.MatchString(body) && !crMinor.MatchString(body) && !crTrivial.MatchString(body):
			return workflow.SeverityHigh, "coderabbit"
		case crTrivial.MatchString(body):
			return workflow.SeverityLow, "coderabbit"
		case crMinor.MatchString(body), crRefactor.MatchString(body), crVerify.MatchString(body):
			return workflow.SeverityMedium, "coderabbit"
		}
		return workflow.SeverityMedium, "coderabbit"
	case isOneOf(author, copilotLogins):
		if strings.HasPrefix(strings.ToLower(strings.TrimSpace(body)), "[nitpick]") {
			return workflow.SeverityLow, "copilot"
		}
		return workflow.SeverityMedium, "copilot"
	case strings.HasSuffix(author, "[bot]"):
		return workflow.SeverityMedium, "bot"
	}
	m := personMark.FindStringSubmatch(body)
	if m == nil {
		return workflow.SeverityMedium, "person"
	}
	word, decoration := strings.ToLower(m[1]), strings.ToLower(m[3])
	switch {
	case decoration == "blocking" || word == "blocking" || word == "must":
		return workflow.SeverityHigh, "person"
	case word == "critical" || word == "high" || word == "medium" || word == "low" || word == "info":
		return word, "person"
	case word == "nit" || word == "nitpick" || word == "minor" || word == "optional":
		return workflow.SeverityLow, "person"
	case word == "question":
		return workflow.SeverityInfo, "person"
	}
	return workflow.SeverityMedium, "person"
}

func isOneOf(login string, logins []string) bool {
	for _, l := range logins {
		if strings.EqualFold(login, l) {
			return true
		}
	}
	return false
}

var (
	htmlComment = regexp.MustCompile(`(?s)<!--.*?-->`)
	detailsTag  = regexp.MustCompile(`(?s)<details>.*?</details>`)
	fenced      = regexp.MustCompile("(?s)```.*?```")
	tierLine    = regexp.MustCompile(`(?m)^\s*_[^_\n]+_(\s*\|\s*_[^_\n]+_)*\s*$`)
)

// findingText is a comment as a finding's text: its author, then its prose without markup the
// finding does not need (HTML comments, collapsed details, code blocks, CodeRabbit's tier line),
// on one line and within the finding's bound.
func findingText(author, body string) string {
	b := htmlComment.ReplaceAllString(body, "")
	b = detailsTag.ReplaceAllString(b, "")
	b = fenced.ReplaceAllString(b, "")
	b = tierLine.ReplaceAllString(b, "")
	text := "@" + author + ": " + strings.Join(strings.Fields(b), " ")
	if strings.TrimSpace(b) == "" {
		text = "@" + author + ": (a suggestion with no prose: see the pull request)"
	}
	if len(text) > workflow.MaxFindingText {
		text = strings.ToValidUTF8(text[:workflow.MaxFindingText-3], "") + "…"
	}
	return text
}
