package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/exarchos/git-exarchos/internal/modelserver"
)

// The agent clients other than Claude Code (Codex CLI, Gemini CLI, Qwen Code, Copilot CLI), each
// run for real, offline, against the scripted model server in its own wire format, with the hooks
// `git exarchos hooks install --<client>` writes, as a user installs them. codex_test.go,
// gemini_test.go, qwen_test.go and copilot_test.go say how each is driven; testClientEnforces is
// what each must show.

// agentClient is one client as the tests drive it.
type agentClient struct {
	name string // the client's name in `hook <name>` and `hooks install --<name>`
	bin  string // its program in node_modules/.bin
	// shell is the model's call of the client's shell tool; writes are its calls that write a file,
	// in every form the client has (ids id, id-2, …).
	shell  func(id, command string) modelserver.ToolUse
	writes func(id, path, content string) []modelserver.ToolUse
	// command is the client's command line and environment for one non-interactive run of prompt
	// in the world, the model at url.
	command func(e *Env, url, prompt string) (args, env []string)
}

// clientPath is the client's program: $EXARCHOS_<NAME>, else the one `npm ci` installs.
func clientPath(t *testing.T, c agentClient) string {
	t.Helper()
	return npmClientPath(t, c.name, c.bin, "EXARCHOS_"+strings.ToUpper(c.name))
}

// agentVarsCleared are every client's agent variables, set empty for the clients' processes:
// environ builds the environment from nothing, so none is inherited; a client sets its own for
// the commands it runs.
var agentVarsCleared = []string{"CLAUDECODE=", "CLAUDE_CODE_SESSION_ID=", "CLAUDE_CODE_ENTRYPOINT=", "AI_AGENT=",
	"CODEX_CI=", "CODEX_THREAD_ID=", "CODEX_SESSION_ID=", "CODEX_TOOL_CALL_ID=", "CODEX_SANDBOX=",
	"GEMINI_CLI=", "QWEN_CODE=", "COPILOT_CLI=", "COPILOT_AGENT_SESSION_ID="}

// recordHooks puts a git-exarchos first on PATH that keeps each hook call's arguments and input
// (dir/<n>.json, the first line the arguments) before it runs the real one: what each client
// sends its hooks, as recorded in hooks/testdata/client-payloads.json.
func recordHooks(e *Env) string {
	dir := filepath.Join(e.Home, "hook-calls")
	wrap := filepath.Join(e.Home, "wrap")
	writeFile(e.T, filepath.Join(wrap, "git-exarchos"), fmt.Sprintf(`#!/bin/sh
if [ "$1" = hook ]; then
	f=$(mktemp %[1]s/XXXXXXXX)
	{ printf '%%s\n' "$*"; cat; } > "$f"
	tail -n +2 "$f" | %[2]s "$@"
	exit $?
fi
exec %[2]s "$@"
`, dir, filepath.Join(binDir, "git-exarchos")))
	if err := os.Chmod(filepath.Join(wrap, "git-exarchos"), 0o755); err != nil {
		e.T.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		e.T.Fatal(err)
	}
	e.PathFirst = append(e.PathFirst, wrap)
	return dir
}

// hookCall is one recorded hook call.
type hookCall struct {
	Args  string
	Input map[string]any
	Raw   string
}

func hookCalls(t *testing.T, dir string) []hookCall {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []hookCall
	for _, ent := range ents {
		b, err := os.ReadFile(filepath.Join(dir, ent.Name()))
		if err != nil {
			t.Fatal(err)
		}
		args, raw, _ := strings.Cut(string(b), "\n")
		c := hookCall{Args: args, Raw: raw}
		_ = json.Unmarshal([]byte(raw), &c.Input)
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Args < out[j].Args })
	return out
}

// clientResult is one run of a client.
type clientResult struct {
	Stdout, Stderr string
	Err            error
	Requests       []*modelserver.Request
}

// runClient runs the client once on prompt, the model answering from script, and checks the model
// server saw every turn served and no unknown endpoint.
func runClient(e *Env, c agentClient, bin, prompt string, script []modelserver.Turn) *clientResult {
	t := e.T
	t.Helper()
	e.Model.SetScript(script)
	before := len(e.Model.Requests())
	args, env := c.command(e, e.Model.URL, prompt)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = e.Dir
	cmd.Env = append(append(e.environ(), agentVarsCleared...), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	res := &clientResult{Stdout: stdout.String(), Stderr: stderr.String(), Err: err, Requests: e.Model.Requests()[before:]}
	end := time.Since(start).Round(time.Millisecond)
	if len(res.Requests) > 0 {
		first, last := res.Requests[0].Time.Sub(start), res.Requests[len(res.Requests)-1].Time.Sub(start)
		t.Logf("%s run: %d model requests (the first after %s, the last after %s), %s", c.name, len(res.Requests), first.Round(time.Millisecond), last.Round(time.Millisecond), end)
	} else {
		t.Logf("%s run: no model request, %s", c.name, end)
	}
	if ctx.Err() != nil {
		t.Fatalf("%s did not finish within 90s\nstderr:\n%s\nstdout:\n%s", c.name, tail(res.Stderr, 4000), tail(res.Stdout, 4000))
	}
	if merr := e.Model.Err(); merr != nil {
		t.Errorf("%v\nstderr:\n%s\nstdout:\n%s", merr, tail(res.Stderr, 4000), tail(res.Stdout, 4000))
	}
	if u := e.Model.Unknown(); len(u) > 0 {
		t.Errorf("%s called endpoints the model server does not know: %v", c.name, u)
	}
	return res
}

// workflowState is what `status --json` says of the workflow's decisions.
type workflowState struct {
	Phase     string            `json:"phase"`
	Approvals []json.RawMessage `json:"approvals"`
	Artifacts map[string]any    `json:"artifacts"`
}

func stateOf(e *Env, feature string) (workflowState, string) {
	out := e.MustHuman("status", feature, "--json")
	var st workflowState
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		e.T.Fatalf("status --json: %v\n%s", err, out)
	}
	return st, out
}

// lookWorkflow is a workflow whose only phase allows reading and nothing else: no shell.
const lookWorkflow = "type: look\ndescription: read only\ninitial: look\nphases:\n  - id: look\n    allowedTools: [Read, Grep]\n  - id: done\n    kind: final\ntransitions:\n  - from: look\n    to: done\n"

// testClientEnforces drives the client through what issue 39 asks of every client, in two runs:
// in a feature's ideate phase, (e) the session-start context reaches the model, (b) a file write
// is refused, (c) a human decision through the shell is refused, (d) a write through the shell is
// caught after the fact; in a phase that allows no shell, (a) a shell call is refused; each refusal
// reaches the model as the tool's result. (f) The workflow's state is unchanged at the end. It
// returns the hook calls the client made, as recorded.
func testClientEnforces(t *testing.T, c agentClient) []hookCall {
	bin := clientPath(t, c)
	e := newWorld(t)
	calls := recordHooks(e)
	writeFile(t, filepath.Join(e.Dir, ".exarchos", "workflows", "look.yaml"), lookWorkflow)
	e.Git(e.Dir, "add", ".exarchos")
	e.Git(e.Dir, "commit", "-q", "-m", "a read-only workflow")
	e.Git(e.Dir, "push", "-q", "origin", "main")
	e.Git(e.Dir, "update-ref", "-m", "fetch: as if fetched from origin", "refs/remotes/origin/main", "HEAD")
	e.Git(e.Dir, "switch", "-q", "-c", "login")
	e.MustHuman("init", "login", "--type", "feature")
	e.MustHuman("hooks", "install", "--"+c.name)
	before, beforeJSON := stateOf(e, "login")

	prompt := "Work on the login feature. " + modelserver.MainAgent
	src := filepath.Join(e.Dir, "src", "login.go")
	shellWrite := "mkdir -p src && echo x > src/a.go"
	writes := c.writes("write-src", src, "package src\n")
	checks := []func(*modelserver.Request) error{
		ExpectResult("approve", nil, "`git exarchos approve` is a human decision"),
		// the block's words: some clients echo the command (and its path) in the result
		ExpectResult("shell-write", nil, "may change only docs/**", "src/a.go (untracked)"),
	}
	for _, w := range writes {
		checks = append(checks, ExpectResult(w.ID, nil, "is not allowed while workflow login (feature) is in phase ideate"))
	}
	res := runClient(e, c, bin, prompt, []modelserver.Turn{
		{Agent: mainAgent, Expect: expectText("git exarchos: workflow login (feature) on branch login is in phase ideate"),
			ToolUses: append(writes, c.shell("approve", "git exarchos approve login"), c.shell("shell-write", shellWrite))},
		{Agent: mainAgent, Expect: expectAll(checks...), Text: "The approval is yours."},
	})
	if _, err := os.Stat(src); err == nil {
		t.Errorf("the refused write made %s", src)
	}
	// Nothing was compacted in so short a conversation: no checkpoint is recorded.
	if log := e.MustHuman("log", "login", "--type", "hook.checkpoint"); strings.Contains(log, "hook.checkpoint") {
		t.Errorf("%s recorded checkpoints without a compaction:\n%s", c.name, log)
	}
	if t.Failed() {
		t.Logf("%s stdout:\n%s\nstderr:\n%s", c.name, tail(res.Stdout, 3000), tail(res.Stderr, 3000))
		if len(res.Requests) > 0 {
			t.Logf("tools offered: %v", res.Requests[len(res.Requests)-1].Tools)
		}
	}

	// (a) A phase that allows no shell.
	if err := os.RemoveAll(filepath.Join(e.Dir, "src")); err != nil {
		t.Fatal(err)
	}
	e.Git(e.Dir, "switch", "-q", "-c", "look", "main")
	e.MustHuman("init", "look", "--type", "look")
	res = runClient(e, c, bin, "Look around. "+modelserver.MainAgent, []modelserver.Turn{
		{Agent: mainAgent, ToolUses: []modelserver.ToolUse{c.shell("ls", "ls")}},
		{Agent: mainAgent, Expect: ExpectResult("ls", nil, "Bash(ls) is not allowed while workflow look (look) is in phase look"), Text: "I may only read here."},
	})
	if t.Failed() {
		t.Logf("%s stdout:\n%s\nstderr:\n%s", c.name, tail(res.Stdout, 3000), tail(res.Stderr, 3000))
	}

	// (f) As the human sees it: still in ideate, nothing approved, no artifact set.
	e.Git(e.Dir, "switch", "-q", "login")
	after, afterJSON := stateOf(e, "login")
	if after.Phase != "ideate" || len(after.Approvals) != 0 || fmt.Sprint(after.Artifacts) != fmt.Sprint(before.Artifacts) {
		t.Errorf("the workflow's state changed:\nbefore %s\nafter  %s", beforeJSON, afterJSON)
	}
	got := hookCalls(t, calls)
	checkPayloadShapes(t, c, got)
	if os.Getenv("EXARCHOS_E2E_HOOK_CALLS") != "" { // to record the payloads of hooks/testdata/client-payloads.json
		for _, h := range got {
			t.Logf("hook call: %s\n%s", h.Args, h.Raw)
		}
	}
	return got
}

// checkPayloadShapes: the client's tool and session-start payloads have exactly the fields of the
// ones hooks/testdata/client-payloads.json holds for it (recorded from this test), which the
// adapter's unit tests (hookrun/hook_clients_test.go) replay: a client that changes its payload fails
// here, not in a user's session.
func checkPayloadShapes(t *testing.T, c agentClient, calls []hookCall) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(moduleRoot, "hooks", "testdata", "client-payloads.json"))
	if err != nil {
		t.Fatal(err)
	}
	var all []struct {
		Client         string            `json:"client"`
		Events         map[string]string `json:"events"`
		Payload        map[string]any    `json:"payload"`
		PayloadSession map[string]any    `json:"payloadSession"`
	}
	if err := json.Unmarshal(b, &all); err != nil {
		t.Fatal(err)
	}
	keys := func(m map[string]any) string {
		var ks []string
		for k := range m {
			ks = append(ks, k)
		}
		sort.Strings(ks)
		return strings.Join(ks, " ")
	}
	for _, p := range all {
		if p.Client != c.name {
			continue
		}
		want := map[string]string{p.Events["PreToolUse"]: keys(p.Payload), p.Events["SessionStart"]: keys(p.PayloadSession)}
		seen := map[string]bool{}
		for _, h := range calls {
			event, _ := h.Input["hook_event_name"].(string)
			if f := strings.Fields(h.Args); event == "" && len(f) == 3 {
				event = f[2] // Copilot's camelCase payload: the command names its event
			}
			if w, ok := want[event]; ok {
				seen[event] = true
				if got := keys(h.Input); got != w {
					t.Errorf("%s's %s payload has fields\n  %s\nhooks/testdata/client-payloads.json has\n  %s\nrecord it again: %s", c.name, event, got, w, h.Raw)
				}
			}
		}
		for event := range want {
			if !seen[event] {
				t.Errorf("%s called no %s hook", c.name, event)
			}
		}
		return
	}
	t.Errorf("hooks/testdata/client-payloads.json has no %s", c.name)
}
