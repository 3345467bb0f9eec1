package e2e

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/exarchos/git-exarchos/ghclient/fakegithub"
	"github.com/exarchos/git-exarchos/internal/modelserver"
)

// Markers of the plugin's agents: a line of each agent's instructions (claude-plugin/agents/*.md),
// which the client sends as the subagent's system prompt.
const (
	implementerAgent = "You are the exarchos implementer."
	reviewerAgent    = "You are the exarchos reviewer."
)

const mainAgent = modelserver.MainAgent

// featureScript is the model's side of a feature taken from the plugin's /exarchos:feature command
// to a merged pull request. Its turns are split where the human decides: the first part ends in
// plan-review (the agent asks for approval and its own `approve` is refused); the second picks up
// from the approved plan. approve runs the human's approval; in one session it runs while the
// client waits for the model, across a reset between the two sessions.
type featureScript struct {
	e        *Env
	worktree string // the task's worktree, where `task start --worktree` puts it
}

func newFeatureScript(e *Env) *featureScript {
	return &featureScript{e: e, worktree: filepath.Join(e.Dir, ".worktrees", "login", "t1")}
}

// expectAll combines checks of one request.
func expectAll(checks ...func(*modelserver.Request) error) func(*modelserver.Request) error {
	return func(r *modelserver.Request) error {
		var errs []error
		for _, c := range checks {
			if err := c(r); err != nil {
				errs = append(errs, err)
			}
		}
		return errors.Join(errs...)
	}
}

func expectText(want ...string) func(*modelserver.Request) error {
	return func(r *modelserver.Request) error {
		text := r.Text()
		for _, w := range want {
			if !strings.Contains(text, w) {
				return fmt.Errorf("the request lacks %q", w)
			}
		}
		return nil
	}
}

// planning: from the slash command to plan-review, with the drift a planning phase refuses.
func (f *featureScript) planning() []modelserver.Turn {
	return []modelserver.Turn{
		{Agent: mainAgent, Expect: expectText("Feature workflow: login", "git exarchos init <feature> --type feature"),
			ToolUses: []modelserver.ToolUse{Bash("init", "git switch -q -c login && git exarchos init login --type feature")}},
		// ideate: source is refused with the reason; the workflow's own MCP tools are not.
		{Agent: mainAgent, Expect: ExpectResult("init", no, "started login (feature)"),
			ToolUses: []modelserver.ToolUse{
				{ID: "write-src", Name: "Write", Input: map[string]any{"file_path": filepath.Join(f.e.Dir, "login.go"), "content": "package main\n"}},
				{ID: "mcp-status", Name: "mcp__plugin_exarchos_exarchos__workflow_status", Input: map[string]any{"feature": "login"}},
			}},
		{Agent: mainAgent, Expect: expectAll(
			ExpectResult("write-src", yes, "Write is not allowed while workflow login (feature) is in phase ideate", "git exarchos transition login delegate"),
			ExpectResult("mcp-status", no, "ideate")),
			ToolUses: []modelserver.ToolUse{Bash("set-design", "git exarchos set login artifacts.design=docs/login-design.md")}},
		{Agent: mainAgent, Expect: ExpectResult("set-design", no),
			ToolUses: []modelserver.ToolUse{{ID: "design", Name: "Write", Input: map[string]any{"file_path": filepath.Join(f.e.Dir, "docs", "login-design.md"), "content": "# Login design\n\nA login page backed by a session store.\n"}}}},
		{Agent: mainAgent, Expect: ExpectResult("design", no),
			ToolUses: []modelserver.ToolUse{Bash("to-plan", "git add docs/login-design.md && git commit -qm 'login: design' && git exarchos transition login plan && git exarchos set login artifacts.plan=docs/login-plan.md")}},
		{Agent: mainAgent, Expect: ExpectResult("to-plan", no, "the feature workflow is in plan ("),
			ToolUses: []modelserver.ToolUse{{ID: "plan", Name: "Write", Input: map[string]any{"file_path": filepath.Join(f.e.Dir, "docs", "login-plan.md"), "content": "1. t1: the login page (login.go), with a test\n"}}}},
		{Agent: mainAgent, Expect: ExpectResult("plan", no),
			ToolUses: []modelserver.ToolUse{Bash("to-review", "git add docs/login-plan.md && git commit -qm 'login: plan' && git exarchos transition login plan-review")}},
		// plan-review: the approval is the human's; the agent's own is refused.
		{Agent: mainAgent, Expect: ExpectResult("to-review", no, "the feature workflow is in plan-review ("),
			ToolUses: []modelserver.ToolUse{Bash("self-approve", "git exarchos approve login")}},
	}
}

// askApproval ends the first session: the agent asks the human.
func (f *featureScript) askApproval() modelserver.Turn {
	return modelserver.Turn{Agent: mainAgent, Expect: ExpectResult("self-approve", yes, "`git exarchos approve` is a human decision"),
		Text: "The plan is in docs/login-plan.md. Please review it and run `git exarchos approve login` in your terminal."}
}

// delivery: from the approved plan to the merged pull request, with an implementer and a reviewer.
func (f *featureScript) delivery(first func(*modelserver.Request) error, before func() error) []modelserver.Turn {
	wt := f.worktree
	return []modelserver.Turn{
		{Agent: mainAgent, Expect: first, Before: before,
			ToolUses: []modelserver.ToolUse{Bash("to-delegate", "git exarchos transition login delegate && git exarchos task add login t1 --title 'login page' && git exarchos task start login t1 --worktree")}},
		{Agent: mainAgent, Expect: ExpectResult("to-delegate", no, "the feature workflow is in delegate ("),
			ToolUses: []modelserver.ToolUse{{ID: "implement", Name: "Task", Input: map[string]any{
				"description": "implement t1", "subagent_type": "exarchos:implementer", "run_in_background": false,
				"prompt": "Feature login, task t1 (login page). Your worktree: " + wt + ". Plan: docs/login-plan.md. Commit your work there with a test.",
			}}}},
		// The implementer, in its worktree, with the workflow's context from SubagentStart.
		{Agent: implementerAgent, Expect: expectText("workflow login (feature)", "Your worktree: "+wt),
			ToolUses: []modelserver.ToolUse{
				{ID: "impl-write", Name: "Write", Input: map[string]any{"file_path": filepath.Join(wt, "login.go"), "content": "package main\n\nfunc login() bool { return true }\n"}},
				{ID: "impl-test", Name: "Write", Input: map[string]any{"file_path": filepath.Join(wt, "login_test.go"), "content": "package main\n\nimport \"testing\"\n\nfunc TestLogin(t *testing.T) {\n\tif !login() {\n\t\tt.Fatal(\"no login\")\n\t}\n}\n"}},
			}},
		{Agent: implementerAgent, Expect: expectAll(ExpectResult("impl-write", no), ExpectResult("impl-test", no)),
			ToolUses: []modelserver.ToolUse{Bash("impl-commit", "git -C "+wt+" add login.go login_test.go && git -C "+wt+" commit -qm 'login t1: login page' && git -C "+wt+" log --oneline -1")}},
		{Agent: implementerAgent, Expect: ExpectResult("impl-commit", no, "login t1: login page"),
			Text: "Committed login.go and login_test.go on login--t1."},
		{Agent: mainAgent, Expect: ExpectResult("implement", nil, "Committed login.go"),
			ToolUses: []modelserver.ToolUse{Bash("merge", "git merge -q --no-edit login--t1 && git exarchos task done login t1 && git exarchos transition login review")}},
		{Agent: mainAgent, Expect: ExpectResult("merge", no, "the feature workflow is in review ("),
			ToolUses: []modelserver.ToolUse{{ID: "review", Name: "Task", Input: map[string]any{
				"description": "review login", "subagent_type": "exarchos:reviewer", "run_in_background": false,
				"prompt": "Review feature login against docs/login-design.md and docs/login-plan.md; dimensions spec and quality.",
			}}}},
		// The reviewer: fresh context (none of the main conversation), verdicts recorded by itself.
		{Agent: reviewerAgent, Expect: func(r *modelserver.Request) error {
			if strings.Contains(r.Text(), "Feature workflow: login") {
				return errors.New("the reviewer's context carries the main conversation")
			}
			return expectText("dimensions spec and quality")(r)
		}, ToolUses: []modelserver.ToolUse{Bash("verdicts", "git diff --stat origin/main...HEAD && git exarchos review login spec pass && git exarchos review login quality pass")}},
		{Agent: reviewerAgent, Expect: ExpectResult("verdicts", no, "login.go"), Text: "spec: pass, quality: pass."},
		{Agent: mainAgent, Expect: ExpectResult("review", nil, "spec: pass"),
			ToolUses: []modelserver.ToolUse{Bash("to-synth", "git exarchos transition login synthesize && git push -q -u origin login && git exarchos push")}},
		// GitHub: the pull request is opened on GitHub (the fake has no endpoint to create one, so
		// the test opens it for the agent), then found and linked by the agent.
		{Agent: mainAgent, Expect: ExpectResult("to-synth", no, "the feature workflow is in synthesize ("), Before: f.openPR,
			ToolUses: []modelserver.ToolUse{Bash("pr", "git exarchos pr find login")}},
		// The merge is the human's, on GitHub; the agent then completes the workflow on evidence.
		{Agent: mainAgent, Expect: ExpectResult("pr", no, "#7"), Before: f.mergePR,
			ToolUses: []modelserver.ToolUse{Bash("cleanup", "git exarchos cleanup login")}},
		{Agent: mainAgent, Expect: ExpectResult("cleanup", no, "completed"),
			ToolUses: []modelserver.ToolUse{Bash("push", "git exarchos push")}},
		{Agent: mainAgent, Expect: ExpectResult("push", no), Text: "login is merged and its workflow completed."},
	}
}

// openPR opens pull request #7, and GitHub runs the workflows its events trigger (the shipped CI
// workflow, from the copy GitHub reads, in fresh checkouts of the origin): the workflow the agent
// pushed, taken the plugin's way, passes the required check (issue 37).
func (f *featureScript) openPR() error {
	f.e.GitHub.SetPR(fakegithub.PR{Number: 7, Head: "login", Base: "main", HeadSHA: f.e.Git(f.e.Dir, "rev-parse", "login"), Author: "octocat"})
	if out, err := f.e.runCI(7, "login", "main"); err != nil {
		return fmt.Errorf("CI on the opened pull request: %v\n%s", err, out)
	}
	return nil
}

// mergePR is the human's merge button: a merge commit on the origin's main, which GitHub reports.
func (f *featureScript) mergePR() error {
	sha, err := f.e.gitHubMerge(7, "login", "main")
	if err != nil {
		return err
	}
	if !f.e.GitHub.UpdatePR(7, func(p *fakegithub.PR) {
		p.State, p.Merged, p.MergeCommitSHA = "closed", true, sha
	}) {
		return errors.New("no pull request 7")
	}
	return nil
}

// checkCI runs the shipped CI workflow for the merged pull request again, as GitHub would on its
// events, with the completed workflow the agent pushed: it passes (issue 37).
func (f *featureScript) checkCI(t *testing.T) {
	t.Helper()
	out, err := f.e.runCI(7, "login", "main")
	if err != nil {
		t.Fatalf("CI on the merged pull request: %v\n%s", err, out)
	}
	for _, want := range []string{"login (feature, completed):", "github: checked: agrees"} {
		if !strings.Contains(out, want) {
			t.Errorf("CI's verify does not say %q:\n%s", want, out)
		}
	}
}

// approve is the human's approval, run by the test outside the agent.
func (f *featureScript) approve() error {
	out, err := f.e.Human("approve", "login", "--note", "scope is right")
	if err != nil {
		return fmt.Errorf("git exarchos approve: %v\n%s", err, out)
	}
	return nil
}

// checkCompleted asserts the outcome from the repository, as the human sees it.
func (f *featureScript) checkCompleted(t *testing.T) {
	t.Helper()
	var st struct {
		Phase string `json:"phase"`
		PR    struct {
			Number     int    `json:"number"`
			VerifiedBy string `json:"verifiedBy"`
		} `json:"pr"`
	}
	if err := json.Unmarshal([]byte(f.e.MustHuman("status", "login", "--json", "--fields", "phase,pr")), &st); err != nil {
		t.Fatal(err)
	}
	if st.Phase != "completed" || st.PR.VerifiedBy != "github" || st.PR.Number != 7 {
		t.Fatalf("status after the session: %+v", st)
	}
	audit := f.e.MustHuman("log", "login")
	for _, want := range []string{"tool.denied", "plan.approved", "review.recorded", "merge.verified"} {
		if !strings.Contains(audit, want) {
			t.Errorf("the log lacks %s:\n%s", want, audit)
		}
	}
	// The approval is the human's, not the agent's.
	approvals := f.e.MustHuman("log", "login", "--type", "plan.approved", "--json")
	if !strings.Contains(approvals, "E2E Human") || strings.Contains(approvals, `"agent":true`) {
		t.Errorf("approval event: %s", approvals)
	}
}

// A feature from the plugin's slash command to a merged pull request in one session: the human's
// approval is given while the client waits on the model.
func TestFeatureThroughThePluginInOneSession(t *testing.T) {
	e := NewEnv(t)
	e.shipCIWorkflow()
	f := newFeatureScript(e)
	script := append(f.planning(), f.delivery(ExpectResult("self-approve", yes, "`git exarchos approve` is a human decision"), f.approve)...)
	prompt := "/exarchos:feature login add a login page"
	res := e.Session().Run(prompt, script)
	if fin := res.Final(); fin == nil || fin["subtype"] != "success" {
		t.Fatalf("session ended with %v\n%s", fin, res.Stderr)
	}
	f.checkCompleted(t)
	f.checkCI(t)
	// The README's transcript is this run.
	doc := transcriptHeader + "```text\n" + transcript(e, prompt, res, map[string][]string{
		"to-delegate": {`human  $ git exarchos approve login --note "scope is right"    # in the human's own terminal`},
		"pr":          {"github   pull request #7 opened for branch login", "github   exarchos verify (.github/workflows/exarchos-verify.yml, a fresh clone) passes on #7"},
		"cleanup":     {"human    merges pull request #7 on GitHub"},
	}) + "```\n"
	if err := compareDoc(filepath.Join("docs", "claude-code-transcript.md"), doc); err != nil {
		t.Error(err)
	}
	if err := readmeExcerptIn(doc); err != nil {
		t.Error(err)
	}
}

// readmeExcerptIn checks that every line of the README's transcript excerpt is a line of the
// transcript, so the README shows nothing a run did not do.
func readmeExcerptIn(doc string) error {
	readme, err := os.ReadFile(filepath.Join(moduleRoot, "README.md"))
	if err != nil {
		return err
	}
	_, rest, ok := strings.Cut(string(readme), "<!-- transcript excerpt:")
	if !ok {
		return errors.New("README.md has no transcript excerpt")
	}
	_, rest, _ = strings.Cut(rest, "```text\n")
	excerpt, _, _ := strings.Cut(rest, "```")
	lines := map[string]bool{}
	for _, l := range strings.Split(doc, "\n") {
		lines[l] = true
	}
	n := 0
	for _, l := range strings.Split(strings.TrimSuffix(excerpt, "\n"), "\n") {
		if !lines[l] {
			return fmt.Errorf("README.md's transcript excerpt has a line no run produced: %q", l)
		}
		n++
	}
	if n < 5 {
		return fmt.Errorf("README.md's transcript excerpt has %d lines", n)
	}
	return nil
}

const transcriptHeader = `# A feature through the Claude Code plugin: the transcript

What the real Claude Code client did with the exarchos plugin, from ` + "`/exarchos:feature`" + ` to a merged pull
request: every tool call of the agent and its subagents, the first line of what came back (✗: refused),
and the human's steps where they happened. The model's side is scripted (a test's model server); the
client, the plugin, the hooks, git and git exarchos are real. Produced and checked by
TestFeatureThroughThePluginInOneSession (e2e/feature_test.go; ` + "`go test ./e2e -run TestFeatureThroughThePluginInOneSession -update`" + `
rewrites it).

`

// The same feature across a context reset: the first session stops at plan-review, the human
// approves between sessions, and a new session (no conversation carried over) learns where the
// workflow stands from SessionStart's context and the plugin's status command.
func TestFeatureThroughThePluginAcrossAContextReset(t *testing.T) {
	e := NewEnv(t)
	e.shipCIWorkflow()
	f := newFeatureScript(e)
	first := e.Session()
	res := first.Run("/exarchos:feature login add a login page", append(f.planning(), f.askApproval()))
	if fin := res.Final(); fin == nil || !strings.Contains(fmt.Sprint(fin["result"]), "git exarchos approve login") {
		t.Fatalf("first session ended with %v", fin)
	}
	if err := f.approve(); err != nil {
		t.Fatal(err)
	}
	second := e.Session()
	rehydrated := func(r *modelserver.Request) error {
		if strings.Contains(r.Text(), "Feature workflow: login") {
			return errors.New("the new session carries the old conversation")
		}
		return expectText("workflow login (feature) on branch login is in phase plan-review", "/exarchos:status")(r)
	}
	res = second.Run("/exarchos:status login", f.delivery(rehydrated, nil))
	if fin := res.Final(); fin == nil || fin["subtype"] != "success" {
		t.Fatalf("second session ended with %v\n%s", fin, res.Stderr)
	}
	if second.ID == first.ID {
		t.Fatal("the second session is the first one resumed")
	}
	f.checkCompleted(t)
}
