package e2e

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/exarchos/git-exarchos/internal/modelserver"
)

// Issue 38 item 3, through the real client: in delegate, the agent makes commits that are no
// work — empty (with a message, and with none), a Go comment, whitespace, a JavaScript block
// comment in a new file — and marks its task done after each, by the CLI and by the plugin's MCP
// tool, then asks for review. Each is refused with what counts and what to do instead, the refusal
// reaching the model; the task stays open and the workflow in delegate.
func TestNoWorkIsNoTasksWorkThroughThePlugin(t *testing.T) {
	e := NewEnv(t)
	toDelegate(e)
	e.MustHuman("task", "add", "login", "t1", "--title", "login page")
	done := " && git exarchos task done login t1"
	noWork := []string{"task t1", "git exarchos task fail login t1"}
	onlyComments := "change only whitespace or comments"
	script := []modelserver.Turn{
		{Agent: mainAgent, ToolUses: []modelserver.ToolUse{Bash("empty", "git commit -q --allow-empty -m 'login t1: the login page'"+done)}},
		{Agent: mainAgent, Expect: ExpectResult("empty", yes, append(noWork, "change no file (an empty commit)")...),
			ToolUses: []modelserver.ToolUse{Bash("empty-message", "git commit -q --allow-empty --allow-empty-message -m ''"+done)}},
		{Agent: mainAgent, Expect: ExpectResult("empty-message", yes, append(noWork, "change no file (an empty commit)")...),
			ToolUses: []modelserver.ToolUse{Bash("go-comment", `printf 'package main\n\n// main runs the app.\nfunc main() {} // the login page comes here\n' > main.go && git commit -qam 'login t1: login page'`+done)}},
		{Agent: mainAgent, Expect: ExpectResult("go-comment", yes, append(noWork, onlyComments+" (main.go)")...),
			ToolUses: []modelserver.ToolUse{Bash("whitespace", `printf 'package main\n\n// main runs the app.\nfunc main()   {}    // the login page comes here\n\n\n' > main.go && git commit -qam 'login t1: format'`+done)}},
		{Agent: mainAgent, Expect: ExpectResult("whitespace", yes, append(noWork, onlyComments)...),
			ToolUses: []modelserver.ToolUse{Bash("js-comment", `printf '/*\n * login page\n */\n\n// TODO\n' > login.js && git add login.js && git commit -qm 'login t1: login.js'`+done)}},
		{Agent: mainAgent, Expect: ExpectResult("js-comment", yes, append(noWork, onlyComments, "login.js")...),
			ToolUses: []modelserver.ToolUse{{ID: "mcp-done", Name: "mcp__plugin_exarchos_exarchos__task_done", Input: map[string]any{"feature": "login", "task": "t1"}}}},
		{Agent: mainAgent, Expect: ExpectResult("mcp-done", yes, append(noWork, onlyComments)...),
			ToolUses: []modelserver.ToolUse{Bash("to-review", "git exarchos transition login review")}},
		{Agent: mainAgent, Expect: ExpectResult("to-review", yes, "work-committed", onlyComments),
			Text: "None of these commits is work: I will write the login page's code before marking t1 done."},
	}
	runDrift(e, "implement task t1 of login", script, "delegate")
	var st struct {
		Tasks []struct {
			ID     string `json:"id"`
			Status string `json:"status"`
		} `json:"tasks"`
	}
	out := e.MustHuman("status", "login", "--json", "--fields", "tasks")
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		t.Fatalf("status: %v\n%s", err, out)
	}
	if len(st.Tasks) != 1 || st.Tasks[0].Status == "completed" {
		t.Errorf("task t1 after the attempts: %s", out)
	}
	if log := e.MustHuman("log", "login", "--type", "task.completed"); strings.Contains(log, "task.completed") {
		t.Errorf("a task.completed was recorded:\n%s", log)
	}
}

// Issue 38 item 4, through the real client: the main agent did the work, so in review what
// `transitions` offers it is the user's review, not its own; its own pass, by the CLI and by the
// MCP tool, is refused when recorded, with the ways that count. The user reviews; in synthesize
// the agent follows the printed fixes — pr find, then what its refusal prints — to a pull request,
// and nothing it is shown is the offline cleanup that refuses itself again.
func TestReviewAndSynthesizeSuggestionsThroughThePlugin(t *testing.T) {
	e := NewEnv(t)
	toDelegate(e)
	userReview := "ask the user to run: git exarchos review login spec pass --human"
	first := []modelserver.Turn{
		{Agent: mainAgent, ToolUses: []modelserver.ToolUse{Bash("work", `git exarchos task add login t1 --title 'login page' && printf 'package main\n\nfunc login() bool { return true }\n' > login.go && git add login.go && git commit -qm 'login t1: login page' && git exarchos task done login t1 && git exarchos transition login review`)}},
		{Agent: mainAgent, Expect: ExpectResult("work", no, "the feature workflow is in review ("),
			ToolUses: []modelserver.ToolUse{Bash("transitions", "git exarchos transitions login")}},
		{Agent: mainAgent, Expect: ExpectResult("transitions", no, userReview),
			ToolUses: []modelserver.ToolUse{
				Bash("own-pass", "git exarchos review login spec pass --note 'looks right'"),
				{ID: "mcp-pass", Name: "mcp__plugin_exarchos_exarchos__review", Input: map[string]any{"feature": "login", "dimension": "quality", "verdict": "pass"}},
			}},
		{Agent: mainAgent, Expect: expectAll(
			ExpectResult("own-pass", yes, "would not count for spec", "a reviewer subagent", userReview),
			ExpectResult("mcp-pass", yes, "would not count for quality", "ask the user to run: git exarchos review login quality pass --human")),
			Text: "I did the work, so my review would not count: please run `git exarchos review login spec pass --human` and `git exarchos review login quality pass --human`."},
	}
	s := e.Session()
	res := s.Run("implement login and get it reviewed", first)
	mustSucceed(t, res, "first session")
	if reviews := e.MustHuman("log", "login", "--type", "review.recorded"); strings.Contains(reviews, "review.recorded") {
		t.Fatalf("the agent's own verdict was recorded:\n%s", reviews)
	}
	e.MustHuman("review", "login", "spec", "pass", "--human")
	e.MustHuman("review", "login", "quality", "pass", "--human")

	second := []modelserver.Turn{
		{Agent: mainAgent, ToolUses: []modelserver.ToolUse{Bash("to-synth", "git exarchos transition login synthesize && git exarchos transitions login")}},
		{Agent: mainAgent, Expect: func(r *modelserver.Request) error {
			if err := ExpectResult("to-synth", no, "the feature workflow is in synthesize (", "fix: git exarchos pr find login")(r); err != nil {
				return err
			}
			if res, _ := r.ToolResult("to-synth"); strings.Contains(res.Text, "--offline") {
				return errors.New("transitions offers the offline cleanup on a GitHub origin:\n" + res.Text)
			}
			return nil
		}, ToolUses: []modelserver.ToolUse{Bash("pr-find", "git exarchos pr find login")}},
		// pr find's refusal prints the way on, which the agent runs as printed.
		{Agent: mainAgent, Expect: ExpectResult("pr-find", yes, "git push -u origin login && git exarchos pr create login"),
			ToolUses: []modelserver.ToolUse{Bash("pr-create", "git push -q -u origin login && git exarchos pr create login")}},
		{Agent: mainAgent, Expect: ExpectResult("pr-create", no, "login"),
			ToolUses: []modelserver.ToolUse{Bash("after", "git exarchos transitions login")}},
		{Agent: mainAgent, Expect: func(r *modelserver.Request) error {
			if res, ok := r.ToolResult("after"); !ok || strings.Contains(res.Text, "--offline") || strings.Contains(res.Text, "pr-url-exists: no") {
				return errors.New("after the pull request, transitions still says: " + res.Text)
			}
			return nil
		}, Text: "The pull request is open; it is yours to merge on GitHub."},
	}
	res = s.Resume("go on with login", second)
	mustSucceed(t, res, "second session")
	var st struct {
		Phase string `json:"phase"`
		PR    struct {
			Number int `json:"number"`
		} `json:"pr"`
	}
	out := e.MustHuman("status", "login", "--json", "--fields", "phase,pr")
	if err := json.Unmarshal([]byte(out), &st); err != nil || st.Phase != "synthesize" || st.PR.Number == 0 {
		t.Errorf("after the session: %v %s", err, out)
	}
}

// mustSucceed stops the test unless the client's run ended in success.
func mustSucceed(t *testing.T, res *Result, what string) {
	t.Helper()
	if fin := res.Final(); fin == nil || fin["subtype"] != "success" {
		t.Fatalf("%s ended with %v\n%s", what, fin, res.Stderr)
	}
}
