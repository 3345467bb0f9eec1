package e2e

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/exarchos/git-exarchos/internal/modelserver"
)

// The environment check through the real client: while the plan waits for the human's review, the
// agent runs the approval through programs the hook cannot read before they run (a makefile, a
// python string put together at run time, a script it wrote and runs by its path). Each of them
// inherits the client's CLAUDECODE/AI_AGENT, so git exarchos itself refuses, and the refusal
// reaches the model as the tool's result; the workflow stays in plan-review with no approval.
func TestHumanDecisionRefusedInProgramsTheAgentStarts(t *testing.T) {
	e := NewEnv(t)
	f := newFeatureScript(e)
	attempts := []struct {
		id, needs string // the tool call id; the program it needs on PATH ("" for none)
		run       string // the call that runs the approval
	}{
		{"via-make", "make", `printf 'ok:\n\tgit exarchos approve login\n' > ../Mk && make -f ../Mk ok`},
		{"via-python", "python3", `python3 -c 'import subprocess; subprocess.run(["git","exar"+"chos","appr"+"ove","login"])'`},
		{"via-script", "", "./ap.sh"},
	}
	missing := map[string]string{} // tool call id → why it is skipped
	var calls []modelserver.ToolUse
	for _, a := range attempts {
		if a.needs != "" {
			if _, err := e.run(e.Dir, "sh", "-c", "command -v "+a.needs); err != nil {
				missing[a.id] = a.needs + " is not on the client's PATH"
				continue
			}
		}
		calls = append(calls, Bash(a.id, a.run))
	}
	// The script is written by one call and run by another, so no command the hook reads names
	// the approval.
	script := append(f.planning(),
		modelserver.Turn{Agent: mainAgent, Expect: ExpectResult("self-approve", yes, "`git exarchos approve` is a human decision"),
			ToolUses: []modelserver.ToolUse{Bash("write-script", `printf '#!/bin/sh\ngit exarchos approve login\n' > ap.sh && chmod +x ap.sh`)}},
		modelserver.Turn{Agent: mainAgent, Expect: ExpectResult("write-script", no), ToolUses: calls},
		modelserver.Turn{Agent: mainAgent, Text: "The approval is yours: please run `git exarchos approve login` in your terminal."},
	)
	res := e.Session().Run("/exarchos:feature login add a login page", script)
	if fin := res.Final(); fin == nil || fin["subtype"] != "success" {
		t.Fatalf("session ended with %v\n%s", fin, res.Stderr)
	}

	refusal := "ask the user to run `git exarchos approve login` in their own terminal"
	for _, a := range attempts {
		t.Run(a.id, func(t *testing.T) {
			if why := missing[a.id]; why != "" {
				t.Skipf("%s: %s", a.run, why)
			}
			req := requestWithResult(res.Requests, a.id)
			if req == nil {
				t.Fatalf("no result of %s reached the model", a.id)
			}
			// CLAUDECODE is the first variable read: the program inherited the client's.
			if err := ExpectResult(a.id, nil, refusal, "CLAUDECODE is set")(req); err != nil {
				t.Error(err)
			}
		})
	}

	// As the human sees it, outside the agent: still waiting on the review, nothing approved.
	var st struct {
		Phase     string            `json:"phase"`
		Approvals []json.RawMessage `json:"approvals"`
	}
	out := e.MustHuman("status", "login", "--json")
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		t.Fatalf("status --json: %v\n%s", err, out)
	}
	if st.Phase != "plan-review" || len(st.Approvals) != 0 {
		t.Errorf("after the attempts: phase %q, %d approvals, want plan-review and none", st.Phase, len(st.Approvals))
	}
	if approved := e.MustHuman("log", "login", "--type", "plan.approved"); strings.Contains(approved, "plan.approved") {
		t.Errorf("an approval was recorded:\n%s", approved)
	}
}

// requestWithResult is the first request that carries the result of tool call id.
func requestWithResult(reqs []*modelserver.Request, id string) *modelserver.Request {
	for _, r := range reqs {
		if _, ok := r.ToolResult(id); ok {
			return r
		}
	}
	return nil
}
