package ghevidence_test

import (
	"strings"
	"testing"

	"github.com/exarchos/git-exarchos/ghevidence"
)

// TestSeverityOf: each known reviewer's format maps to a severity, and says whose format decided.
func TestSeverityOf(t *testing.T) {
	for _, c := range []struct{ author, body, severity, source string }{
		{"coderabbitai[bot]", "_⚠️ Potential issue_ | _🔴 Critical_\n\n**SQL built from input.**", "critical", "coderabbit"},
		{"coderabbitai[bot]", "_⚠️ Potential issue_ | _🟠 Major_\n\nThe error from Close is dropped.", "high", "coderabbit"},
		{"coderabbitai[bot]", "_⚠️ Potential issue_\n\nThe error from Close is dropped.", "high", "coderabbit"},
		{"coderabbitai[bot]", "_⚠️ Potential issue_ | _🟡 Minor_\n\nA typo in the message.", "medium", "coderabbit"},
		{"coderabbitai[bot]", "_🛠️ Refactor suggestion_\n\nExtract the loop.", "medium", "coderabbit"},
		{"coderabbitai[bot]", "_💡 Verification agent_\n\nCheck the callers.", "medium", "coderabbit"},
		{"coderabbitai[bot]", "_🧹 Nitpick (assertive)_\n\nRename x.", "low", "coderabbit"},
		{"coderabbitai[bot]", "_🔵 Trivial_\n\nA comma.", "low", "coderabbit"},
		{"coderabbitai[bot]", "Thanks for the update!", "medium", "coderabbit"},
		{"coderabbitai[bot]", "This is a minor concern in the middle of a sentence, not a tier.", "medium", "coderabbit"},
		{"Copilot", "The loop never ends when n is 0.", "medium", "copilot"},
		{"copilot-pull-request-reviewer[bot]", "[nitpick] Prefer a switch.", "low", "copilot"},
		{"dependabot[bot]", "Bumps x.", "medium", "bot"},
		{"alice", "Why is this exported?", "medium", "person"},
		{"alice", "nit: a trailing space", "low", "person"},
		{"alice", "Nitpick: wording", "low", "person"},
		{"alice", "blocking: this deletes user data", "high", "person"},
		{"alice", "issue (blocking): the lock is never released", "high", "person"},
		{"alice", "suggestion (non-blocking): a table would read better", "medium", "person"},
		{"alice", "question: is this reachable?", "info", "person"},
		{"alice", "[critical] secrets in the log", "critical", "person"},
		{"alice", "High: no test for the error path", "high", "person"},
		{"alice", "This is high time we refactored it", "medium", "person"},
	} {
		sev, src := ghevidence.SeverityOf(c.author, c.body)
		if sev != c.severity || src != c.source {
			t.Errorf("%s %q: %s (%s), want %s (%s)", c.author, c.body, sev, src, c.severity, c.source)
		}
	}
}

// TestFindingTextDropsMarkup: the finding's text is the comment's prose, on one line, with its
// author, without CodeRabbit's tier line, collapsed details, code blocks or HTML comments, and
// within the bound whatever the comment's size.
func TestFindingTextDropsMarkup(t *testing.T) {
	body := "_⚠️ Potential issue_ | _🟠 Major_\n\n**The error from Close is dropped.**\n\nReturn it.\n\n```suggestion\nreturn f.Close()\n```\n<details><summary>🤖 Prompt for AI Agents</summary>\nlong text\n</details>\n<!-- fingerprinting:abc -->"
	got := ghevidence.FindingText("coderabbitai[bot]", body)
	if got != "@coderabbitai[bot]: **The error from Close is dropped.** Return it." {
		t.Fatalf("%q", got)
	}
	if got := ghevidence.FindingText("alice", strings.Repeat("long ", 100000)); len(got) != 1000 || !strings.HasSuffix(got, "…") {
		t.Fatalf("a 500 KB comment: %d bytes", len(got))
	}
	if got := ghevidence.FindingText("Copilot", "```suggestion\nx := 1\n```"); !strings.Contains(got, "no prose") {
		t.Fatalf("%q", got)
	}
}
