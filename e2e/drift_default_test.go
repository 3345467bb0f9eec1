package e2e

import (
	"strings"
	"testing"

	"github.com/exarchos/git-exarchos/internal/modelserver"
)

// Issue 38 item 1, through the real client: with no remote, the agent in ideate does what the
// fix for `completed` used to say (merge into main, cleanup --offline). Run by Claude Code's Bash
// tool, the command carries the client's variables, and cleanup --offline on a local base is the
// user's decision: the workflow stays in ideate, and the refusal that reaches the model names the
// user's command.
func TestOfflineRoadIsTheUsersInTheDefaultInstall(t *testing.T) {
	e := NewEnv(t)
	e.Git(e.Dir, "remote", "remove", "origin") // no remote: the base is the local main
	e.Git(e.Dir, "switch", "-q", "-c", "login")
	e.MustHuman("init", "login", "--type", "feature")
	writeFile(t, e.Dir+"/docs/login-design.md", "# Login design\n")
	e.Git(e.Dir, "add", "docs")
	e.Git(e.Dir, "commit", "-q", "-m", "login: design")
	script := []modelserver.Turn{
		{Agent: mainAgent, ToolUses: []modelserver.ToolUse{Bash("transitions", "git exarchos transitions login")}},
		{Agent: mainAgent, Expect: ExpectResult("transitions", nil, "ask the user to run: git switch main && git merge --no-edit login && git exarchos cleanup login --offline"),
			ToolUses: []modelserver.ToolUse{Bash("offline", "git switch -q main && git merge -q --no-edit login && git exarchos cleanup login --offline")}},
		{Agent: mainAgent, Expect: ExpectResult("offline", yes, "is a human decision", "ask the user to run `git exarchos cleanup login --offline`"),
			Text: "Completing the workflow is your decision: please run `git exarchos cleanup login --offline` in your terminal."},
	}
	runDrift(e, "finish the login workflow", script, "ideate")
}

// runDrift runs the session and checks that it ended and left login in phase.
func runDrift(e *Env, prompt string, script []modelserver.Turn, phase string) {
	e.T.Helper()
	res := e.Session().Run(prompt, script)
	if fin := res.Final(); fin == nil || fin["subtype"] != "success" {
		e.T.Fatalf("session ended with %v\n%s", fin, res.Stderr)
	}
	if status := e.MustHuman("status", "login", "--json", "--fields", "phase"); !strings.Contains(status, `"phase":"`+phase+`"`) {
		e.T.Errorf("after the drift: %s", status)
	}
}

// Issue 38 item 2, through the real client: the plan waits for the user's review; the agent
// cancels it, then starts a oneshot on a new branch to write the code. Both are refused with the
// user's commands, and the plan still waits.
func TestWaitingPlanIsNotTheAgentsToDrop(t *testing.T) {
	e := NewEnv(t)
	f := newFeatureScript(e)
	script := append(f.planning(),
		modelserver.Turn{Agent: mainAgent, Expect: ExpectResult("self-approve", yes, "`git exarchos approve` is a human decision"),
			ToolUses: []modelserver.ToolUse{Bash("cancel", "git exarchos cancel login --reason 'start over as a oneshot'")}},
		modelserver.Turn{Agent: mainAgent, Expect: ExpectResult("cancel", yes, "waits for the user's review of its plan", "git exarchos cancel login --human"),
			ToolUses: []modelserver.ToolUse{Bash("oneshot", "git switch -q -c quick main && git exarchos init quick --type oneshot")}},
		modelserver.Turn{Agent: mainAgent, Expect: ExpectResult("oneshot", yes, "for the user's review of the plan", "git exarchos init quick --type oneshot --human"),
			Text: "The plan waits for your review: please run `git exarchos approve login`."},
	)
	runDrift(e, "/exarchos:feature login add a login page", script, "plan-review")
	if list := e.MustHuman("list", "--all", "--json"); strings.Contains(list, `"feature":"quick"`) {
		t.Errorf("the oneshot was started: %s", list)
	}
}
