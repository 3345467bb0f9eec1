package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/exarchos/git-exarchos/bench/benchutil"

	"github.com/exarchos/git-exarchos/app"
	"github.com/exarchos/git-exarchos/workflow"
)

// benchDefinition is a repository-defined type: research allows a few tools and counts every
// call against a turn cap large enough for the whole benchmark; write allows the same tools
// without a cap.
const benchDefinition = `type: bench-docs
initial: research
phases:
  - id: research
    allowedTools: [Read, Grep, "Edit(docs/**)", "Bash(go test:*)"]
    turnCap: 1000000
  - id: write
    allowedTools: [Read, Grep, "Edit(docs/**)", "Bash(go test:*)"]
  - id: done
    kind: final
transitions:
  - {from: research, to: write}
  - {from: write, to: done}
`

// benchEnvelope times PreToolUse on a workflow of a repository-defined type: in a phase with a
// turn cap (every allowed call appends tool.called; a denied one appends tool.denied), then in a
// phase with an envelope and no cap (no writes).
func benchEnvelope(repo, bin string, events, others, runs int) {
	benchutil.Check(os.MkdirAll(filepath.Join(repo, ".exarchos", "workflows"), 0o755))
	benchutil.Run(repo, "", "git", "init", "-q", "-b", "main")
	benchutil.Run(repo, "", "git", "config", "user.name", "Bench")
	benchutil.Run(repo, "", "git", "config", "user.email", "bench@example.com")
	benchutil.Check(os.WriteFile(filepath.Join(repo, "main.go"), []byte("package main\n"), 0o644))
	benchutil.Check(os.WriteFile(filepath.Join(repo, ".exarchos", "workflows", "bench.yaml"), []byte(benchDefinition), 0o644))
	benchutil.Run(repo, "", "git", "add", ".")
	benchutil.Run(repo, "", "git", "commit", "-q", "-m", "initial")
	benchutil.Run(repo, "", "git", "switch", "-q", "-c", "feat/bench")
	r, err := app.Open(repo)
	benchutil.Check(err)
	_, err = r.CreateWorkflow(workflow.Init{Feature: "bench", Type: "bench-docs", Branch: "feat/bench"})
	benchutil.Check(err)
	for n := 1; n < events; {
		var evs []workflow.NewEvent
		for ; len(evs) < 250 && n < events; n++ {
			evs = append(evs, workflow.NewEvent{Type: "bench.note", Data: map[string]any{"n": n, "text": "an event that the fold counts and ignores"}})
		}
		_, err := r.Append("bench", evs...)
		benchutil.Check(err)
	}
	for i := range others {
		_, err := r.CreateWorkflow(workflow.Init{Feature: fmt.Sprintf("other-%d", i), Type: "feature", Branch: fmt.Sprintf("feat/other-%d", i)})
		benchutil.Check(err)
	}
	hook := []string{filepath.Join(bin, "git-exarchos"), "hook", "claude"}
	call := func(tool, input, id string) []byte {
		return []byte(fmt.Sprintf(`{"session_id":"bench","cwd":%q,"hook_event_name":"PreToolUse","tool_name":%q,"tool_input":%s,"tool_use_id":%q}`, repo, tool, input, id))
	}
	fresh := func(tool, input, prefix string) func(int) []byte {
		return func(n int) []byte { return call(tool, input, fmt.Sprintf("%s-%d", prefix, n)) }
	}
	read := `{"file_path":"` + repo + `/main.go"}`
	cases := []benchCase{
		{name: "git rev-parse HEAD (baseline)", args: []string{"git", "rev-parse", "HEAD"}},
		{name: "PreToolUse Read, allowed and counted (appends tool.called, with the journal)", args: hook, payload: fresh("Read", read, "read"), want: `"continue":true`},
		{name: "PreToolUse Read, the same tool_use_id again (idempotent: no write)", args: hook, stdin: call("Read", read, "same"), want: `"continue":true`},
		{name: "PreToolUse Bash go test, allowed and counted", args: hook, payload: fresh("Bash", `{"command":"go test ./..."}`, "bash"), want: `"continue":true`},
		{name: "PreToolUse Edit main.go, denied by the envelope (journals tool.denied)", args: hook, payload: fresh("Edit", `{"file_path":"`+repo+`/main.go"}`, "edit"), want: `"deny"`},
	}
	measure(repo, fmt.Sprintf("repository-defined workflow, %d events, phase with allowedTools and a turnCap", events), cases, runs)
	_, err = r.Execute("bench", workflow.TransitionTo{Phase: "write"})
	benchutil.Check(err)
	st, _, err := r.State("bench")
	benchutil.Check(err)
	fmt.Printf("\n(the workflow now has %d events)\n", st.Events)
	cases = []benchCase{
		cases[0],
		{name: "PreToolUse Read, allowed (envelope, no turnCap: no write)", args: hook, payload: fresh("Read", read, "read2"), want: `"continue":true`},
		{name: "PreToolUse Bash go test, allowed (no write)", args: hook, payload: fresh("Bash", `{"command":"go test ./..."}`, "bash2"), want: `"continue":true`},
	}
	measure(repo, "same workflow, phase with allowedTools and no turnCap", cases, runs)
}
