package e2e

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/exarchos/git-exarchos/ghclient/fakegithub"
	"github.com/exarchos/git-exarchos/internal/modelserver"
)

// codeRabbitMajor is a CodeRabbit review comment as the bot writes it: its tier line
// (`_⚠️ Potential issue_ | _🟠 Major_`), the finding in bold, then collapsed details.
const codeRabbitMajor = "_⚠️ Potential issue_ | _🟠 Major_\n\n**login accepts every password.**\n\n<details><summary>🤖 Prompt for AI Agents</summary>\n\nIn login.go, check the password.\n</details>"

// Issue 40 items 1-3 through the real client and the plugin: the agent opens the pull request
// (`pr create`), a bot's review on GitHub (CodeRabbit, a Major issue) becomes a blocking finding
// through `review import`, the agent opens the fix cycle with one task for it, fixes it, a reviewer
// subagent re-reviews, the bot resolves its thread, and the workflow comes back to synthesize with
// the pull request merge-ready (checks green, no blocking finding, ready for review): shepherd's
// end, where it stops for the user's merge.
func TestShepherdThroughThePlugin(t *testing.T) {
	e := NewEnv(t)
	toDelegate(e)
	reviewer := func(id string) modelserver.ToolUse {
		return modelserver.ToolUse{ID: id, Name: "Task", Input: map[string]any{
			"description": "review login", "subagent_type": "exarchos:reviewer", "run_in_background": false,
			"prompt": "Review feature login at its tip against docs/login-design.md and docs/login-plan.md; dimensions spec and quality.",
		}}
	}
	verdicts := "git exarchos review login spec pass && git exarchos review login quality pass"
	first := []modelserver.Turn{
		{Agent: mainAgent, ToolUses: []modelserver.ToolUse{Bash("work", `git exarchos task add login t1 --title 'login page' && printf 'package main\n\nfunc login(user, password string) bool { return true }\n' > login.go && git add login.go && git commit -qm 'login t1: login page' && git exarchos task done login t1 && git exarchos transition login review`)}},
		{Agent: mainAgent, Expect: ExpectResult("work", no, "the feature workflow is in review ("), ToolUses: []modelserver.ToolUse{reviewer("review")}},
		{Agent: reviewerAgent, ToolUses: []modelserver.ToolUse{Bash("verdicts", verdicts)}},
		{Agent: reviewerAgent, Expect: ExpectResult("verdicts", no), Text: "spec: pass, quality: pass."},
		{Agent: mainAgent, Expect: ExpectResult("review", nil, "spec: pass"),
			ToolUses: []modelserver.ToolUse{Bash("open", "git exarchos transition login synthesize && git push -q -u origin login && git exarchos push && git exarchos pr create login")}},
		{Agent: mainAgent, Expect: ExpectResult("open", no, "the feature workflow is in synthesize (", "login: opened ready for review pull request #1"),
			Text: "Pull request #1 is open; run /exarchos:shepherd to take it to merge-ready."},
	}
	s := e.Session()
	res := s.Run("implement login and open its pull request", first)
	mustSucceed(t, res, "first session")
	pr, ok := e.GitHub.PR(1)
	if !ok || pr.Head != "login" || pr.Draft || !strings.Contains(pr.Body, "login") {
		t.Fatalf("the pull request the agent opened: %+v (found %v)", pr, ok)
	}

	// On GitHub: CI passes on the head, and CodeRabbit reviews with a Major issue.
	e.GitHub.SetPR(withHead(pr, e.Git(e.Dir, "rev-parse", "login")))
	e.GitHub.AddCheckRun(pr.HeadSHA, fakegithub.CheckRun{Name: "test", Status: "completed", Conclusion: "success"})
	thread := e.GitHub.AddReviewComment(1, fakegithub.ReviewComment{User: "coderabbitai[bot]", Path: "login.go", Line: 3, Body: codeRabbitMajor})
	e.GitHub.AddReview(1, fakegithub.Review{User: "coderabbitai[bot]", State: "COMMENTED"})

	// The fix cycle's task names the finding, read from the import as a model reads it.
	fixCycle := Bash("fix-cycle", "")
	readFinding := func(r *modelserver.Request) error {
		if err := ExpectResult("read", no, "login: 1 thread(s) on pull request #1", "(coderabbit) @coderabbitai[bot]: **login accepts every password.**", "1 blocking")(r); err != nil {
			return err
		}
		res, _ := r.ToolResult("read")
		id := findingRE.FindString(res.Text)
		if id == "" {
			return errors.New("the import names no finding: " + res.Text)
		}
		fixCycle.Input.(map[string]any)["command"] = "git exarchos transition login delegate && git exarchos task add login fix-1 --title '" + id + ": check the password'"
		return nil
	}
	resolved := func() error {
		e.GitHub.ResolveThread(1, thread, true) // the bot resolves its thread once the fix is pushed
		tip := e.Git(e.Dir, "rev-parse", "login")
		e.GitHub.UpdatePR(1, func(p *fakegithub.PR) { p.HeadSHA = tip })
		e.GitHub.AddCheckRun(tip, fakegithub.CheckRun{Name: "test", Status: "completed", Conclusion: "success"})
		return nil
	}
	second := []modelserver.Turn{
		{Agent: mainAgent, Expect: expectText("Follow skill `exarchos:shepherd`"),
			ToolUses: []modelserver.ToolUse{Bash("read", "git exarchos pr refresh login && git exarchos review import login && git exarchos view findings login")}},
		{Agent: mainAgent, Expect: readFinding, ToolUses: []modelserver.ToolUse{fixCycle}},
		{Agent: mainAgent, Expect: ExpectResult("fix-cycle", no, "the feature workflow is in delegate ("),
			ToolUses: []modelserver.ToolUse{Bash("fix", `printf 'package main\n\nfunc login(user, password string) bool { return password == "secret" }\n' > login.go && git commit -qam 'login fix-1: check the password' && git exarchos task done login fix-1 && git exarchos transition login review && git push -q && git exarchos push`)}},
		{Agent: mainAgent, Expect: ExpectResult("fix", no, "the feature workflow is in review ("), Before: resolved, ToolUses: []modelserver.ToolUse{reviewer("re-review")}},
		{Agent: reviewerAgent, ToolUses: []modelserver.ToolUse{Bash("re-verdicts", verdicts)}},
		{Agent: reviewerAgent, Expect: ExpectResult("re-verdicts", no), Text: "spec: pass, quality: pass."},
		{Agent: mainAgent, Expect: ExpectResult("re-review", nil, "spec: pass"),
			ToolUses: []modelserver.ToolUse{Bash("back", "git exarchos review import login && git exarchos transition login synthesize && git exarchos pr create login && git exarchos pr refresh login && git exarchos view findings login && git exarchos transitions login")}},
		{Agent: mainAgent, Expect: ExpectResult("back", no, "the feature workflow is in synthesize (", "login: updated ready for review pull request #1", "0 blocking"),
			Text: "Pull request #1 is merge-ready: checks pass and CodeRabbit's finding is fixed and resolved. Merging is yours."},
	}
	res = s.Resume("/exarchos:shepherd login", second)
	mustSucceed(t, res, "shepherd session")

	// As the human sees it: synthesize, the pull request linked with its checks green, the
	// finding closed by GitHub, no fix cycle to open.
	var st struct {
		Phase string `json:"phase"`
		PR    struct {
			Number  int    `json:"number"`
			Checks  string `json:"checks"`
			HeadSHA string `json:"headSha"`
		} `json:"pr"`
	}
	out := e.MustHuman("status", "login", "--json", "--fields", "phase,pr")
	tip := e.Git(e.Dir, "rev-parse", "login")
	if err := json.Unmarshal([]byte(out), &st); err != nil || st.Phase != "synthesize" || st.PR.Number != 1 || st.PR.Checks != "success" || st.PR.HeadSHA != tip {
		t.Errorf("after shepherd: %v %s", err, out)
	}
	if f := e.MustHuman("view", "findings", "login", "--all", "--json"); !strings.Contains(f, `"blocking":[]`) || !strings.Contains(f, `"by":"github"`) {
		t.Errorf("findings after shepherd: %s", f)
	}
	if tr := e.MustHuman("transitions", "login"); !strings.Contains(tr, "✗ delegate") {
		t.Errorf("a fix cycle is still open to the workflow:\n%s", tr)
	}
	if pr, _ := e.GitHub.PR(1); pr.Draft || pr.State != "open" {
		t.Errorf("the pull request: %+v", pr)
	}
}

func withHead(p fakegithub.PR, sha string) fakegithub.PR {
	p.HeadSHA = sha
	return p
}
