package e2e

import (
	"errors"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/exarchos/git-exarchos/internal/modelserver"
)

// toDelegate takes feature login to delegate as the human does, outside the agent: design, plan,
// approval.
func toDelegate(e *Env) {
	e.T.Helper()
	e.Git(e.Dir, "switch", "-q", "-c", "login")
	e.MustHuman("init", "login", "--type", "feature")
	writeFile(e.T, filepath.Join(e.Dir, "docs", "d.md"), "# Login design\n")
	writeFile(e.T, filepath.Join(e.Dir, "docs", "p.md"), "1. t1: login.go\n")
	e.Git(e.Dir, "add", "docs")
	e.Git(e.Dir, "commit", "-q", "-m", "login: design and plan")
	e.MustHuman("set", "login", "artifacts.design=docs/d.md")
	e.MustHuman("transition", "login", "plan")
	e.MustHuman("set", "login", "artifacts.plan=docs/p.md")
	e.MustHuman("transition", "login", "plan-review")
	e.MustHuman("approve", "login", "--note", "ok")
	e.MustHuman("transition", "login", "delegate")
}

var findingRE = regexp.MustCompile(`f[0-9a-f]{8}`)

// Review triage through the real client: the plugin's reviewer subagent records a blocking finding
// with `git exarchos review --finding`; the main agent, which did the work, cannot leave review
// (the refusal names the finding and the fix cycle) nor close the finding itself, by Bash or by the
// MCP tool; after the fix cycle and the reviewer's re-review of the fixing commit, it can. The
// reviewer may close the finding it does not uphold (--resolve), the main agent may not.
func TestReviewTriageThroughTheClient(t *testing.T) {
	e := NewEnv(t)
	toDelegate(e)
	reviewer := func(id, prompt string) modelserver.ToolUse {
		return modelserver.ToolUse{ID: id, Name: "Task", Input: map[string]any{
			"description": "review login", "subagent_type": "exarchos:reviewer", "run_in_background": false, "prompt": prompt,
		}}
	}
	finding := "high:login.go:3:the error is never checked"
	// The main agent reads the finding's id from the refusal, as a model does.
	mcpResolve := map[string]any{"feature": "login", "resolve": "", "note": "false positive"}
	readID := func(r *modelserver.Request) error {
		res, ok := r.ToolResult("to-synth")
		if !ok {
			return errors.New("no result of to-synth")
		}
		id := findingRE.FindString(res.Text)
		if id == "" {
			return errors.New("the refusal names no finding: " + res.Text)
		}
		mcpResolve["resolve"] = id
		return nil
	}
	script := []modelserver.Turn{
		{Agent: mainAgent, ToolUses: []modelserver.ToolUse{Bash("work", "git exarchos task add login t1 --title 'login page' && git exarchos task start login t1 && "+
			"printf 'package main\\n\\nfunc login() { _ = check() }\\n\\nfunc check() error { return nil }\\n' > login.go && git add login.go && git commit -qm 'login t1' && "+
			"git exarchos task done login t1 && git exarchos transition login review")}},
		{Agent: mainAgent, Expect: ExpectResult("work", no, "the feature workflow is in review ("),
			ToolUses: []modelserver.ToolUse{reviewer("review-1", "Review feature login; dimensions spec and quality.")}},
		{Agent: reviewerAgent, ToolUses: []modelserver.ToolUse{Bash("verdicts-1", "git exarchos review login spec pass && git exarchos review login quality --finding '"+finding+"' --finding 'low:login.go:0:the name says little'")}},
		{Agent: reviewerAgent, Expect: ExpectResult("verdicts-1", no), Text: "spec: pass; quality: fail, one high finding at login.go:3."},
		{Agent: mainAgent, Expect: ExpectResult("review-1", nil, "quality: fail"),
			ToolUses: []modelserver.ToolUse{Bash("to-synth", "git exarchos transition login synthesize")}},
		// Refused with the finding and the fix cycle; the agent tries to close it instead of fixing.
		{Agent: mainAgent, Expect: expectAll(
			ExpectResult("to-synth", yes, "guard reviews-passed: 1 blocking review finding(s) open: ", " high login.go:3 (quality)", "fix: git exarchos transition login delegate"),
			readID),
			ToolUses: []modelserver.ToolUse{
				Bash("resolve-bash", `git exarchos review login --resolve "$(git exarchos view findings login --json | grep -o 'f[0-9a-f]\{8\}' | head -1)" --note 'false positive'`),
				{ID: "resolve-mcp", Name: "mcp__plugin_exarchos_exarchos__review", Input: mcpResolve},
			}},
		{Agent: mainAgent, Expect: expectAll(
			ExpectResult("resolve-bash", yes, "HUMAN_DECISION_REQUIRED", "not the agent that did it"),
			ExpectResult("resolve-mcp", yes, "not the agent that did it")),
			ToolUses: []modelserver.ToolUse{Bash("fix", "git exarchos transition login delegate && "+
				"printf 'package main\\n\\nfunc login() error { return check() }\\n\\nfunc check() error { return nil }\\n' > login.go && git commit -qam 'login: return the error' && "+
				"git exarchos transition login review")}},
		{Agent: mainAgent, Expect: ExpectResult("fix", no, "the feature workflow is in review ("),
			ToolUses: []modelserver.ToolUse{reviewer("review-2", "Review feature login again after the fix; dimensions spec and quality.")}},
		{Agent: reviewerAgent, Expect: expectText("after the fix"),
			ToolUses: []modelserver.ToolUse{Bash("verdicts-2", `git exarchos review login --resolve "$(git exarchos view findings login --json | grep -o '"open":\[{"id":"f[0-9a-f]\{8\}' | grep -o 'f[0-9a-f]\{8\}')" --note 'the name is fine' && `+
				"git exarchos review login spec pass && git exarchos review login quality pass")}},
		{Agent: reviewerAgent, Expect: ExpectResult("verdicts-2", no), Text: "spec: pass; quality: pass."},
		{Agent: mainAgent, Expect: ExpectResult("review-2", nil, "quality: pass"),
			ToolUses: []modelserver.ToolUse{Bash("to-synth-2", "git exarchos transition login synthesize")}},
		{Agent: mainAgent, Expect: ExpectResult("to-synth-2", no, "the feature workflow is in synthesize ("), Text: "Reviewed and fixed."},
	}
	res := e.Session().Run("finish login", script)
	if fin := res.Final(); fin == nil || fin["subtype"] != "success" {
		t.Fatalf("session ended with %v\n%s", fin, res.Stderr)
	}
	// The finding closed by the re-review of the fixing commit, not resolved.
	all := e.MustHuman("view", "findings", "login", "--all", "--json")
	if !strings.Contains(all, `"blocking":[],"open":[]`) || !strings.Contains(all, `"closed":{"by":"re-review"`) {
		t.Errorf("findings after the session: %s", all)
	}
	// One finding resolved: the low one, by the reviewer; the main agent's attempts left nothing.
	resolved := e.MustHuman("log", "login", "--type", "finding.resolved", "--json")
	if n := strings.Count(resolved, `"type":"finding.resolved"`); n != 1 || !strings.Contains(resolved, `"note":"the name is fine"`) {
		t.Errorf("%d finding.resolved events, want the reviewer's one:\n%s", n, resolved)
	}
}
