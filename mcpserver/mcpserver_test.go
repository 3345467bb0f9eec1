package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/exarchos/git-exarchos/app"
	"github.com/exarchos/git-exarchos/hooks"
)

var (
	builtOnce sync.Once
	builtBin  string
	builtErr  error
)

// builtBinary is git-exarchos built beside git-exarchos-mcp, as `go install ./cmd/...` installs
// them: the tests speak to the server over stdio, never in-process.
func builtBinary(t *testing.T) string {
	t.Helper()
	builtOnce.Do(func() {
		dir, err := os.MkdirTemp("", "exarchos-bin")
		if err != nil {
			builtErr = err
			return
		}
		builtBin = filepath.Join(dir, "git-exarchos")
		out, err := exec.Command("go", "build", "-o", dir+string(os.PathSeparator), "../cmd/git-exarchos", "../cmd/git-exarchos-mcp").CombinedOutput()
		if err != nil {
			builtErr = &exec.ExitError{Stderr: out}
		}
	})
	if builtErr != nil {
		t.Fatalf("building git-exarchos: %v", builtErr)
	}
	return builtBin
}

// mcpEnv is an isolated environment: its own HOME and git identity, the built binary first on
// PATH, and a GitHub that refuses connections (no test may reach the network).
func mcpEnv(t *testing.T, bin string) []string {
	home := t.TempDir()
	cfg := "[user]\n\tname = MCP Test\n\temail = mcp@example.com\n[init]\n\tdefaultBranch = main\n"
	if err := os.WriteFile(filepath.Join(home, ".gitconfig"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	return []string{"HOME=" + home, "PATH=" + filepath.Dir(bin) + string(os.PathListSeparator) + os.Getenv("PATH"),
		"GIT_CONFIG_NOSYSTEM=1", "GITHUB_API_URL=http://127.0.0.1:1/", "GITHUB_TOKEN=test-token", "NO_COLOR=1", "TZ=UTC"}
}

func gitIn(t *testing.T, dir string, env []string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir, cmd.Env = dir, env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// twinRepos are two clones of one origin in the same state: a branch login with a committed
// design, pushed.
func twinRepos(t *testing.T, env []string) (string, string) {
	root := t.TempDir()
	seed, origin := filepath.Join(root, "seed"), filepath.Join(root, "origin.git")
	gitIn(t, root, env, "init", "-q", seed)
	gitIn(t, seed, env, "commit", "-q", "--allow-empty", "-m", "init")
	gitIn(t, seed, env, "checkout", "-q", "-b", "login")
	if err := os.MkdirAll(filepath.Join(seed, "docs"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(seed, "docs/design.md"), []byte("# design\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gitIn(t, seed, env, "add", "docs")
	gitIn(t, seed, env, "commit", "-q", "-m", "design")
	gitIn(t, root, env, "clone", "-q", "--bare", seed, origin)
	gitIn(t, origin, env, "symbolic-ref", "HEAD", "refs/heads/main")
	var twins []string
	for _, name := range []string{"a", "b"} {
		dir := filepath.Join(root, name)
		gitIn(t, root, env, "clone", "-q", origin, dir)
		gitIn(t, dir, env, "checkout", "-q", "login")
		// The completion payload to submit is a scratch file git ignores (the guards check the worktree).
		if err := os.WriteFile(filepath.Join(dir, "payload.json"), []byte("{}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, ".git", "info", "exclude"), []byte("payload.json\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		twins = append(twins, dir)
	}
	return twins[0], twins[1]
}

func mcpSession(t *testing.T, bin, dir string, env []string) *mcp.ClientSession {
	cmd := exec.Command(bin, "mcp")
	cmd.Dir, cmd.Env = dir, env
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	s, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("initialize: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// volatile are the parts of an answer that differ between two runs of the same command on twin
// repositories: commit and event ids, times, durations.
var volatile = []struct {
	re   *regexp.Regexp
	with string
}{
	{regexp.MustCompile(`[0-9a-f]{40}`), "<sha>"},
	{regexp.MustCompile(`ev-[0-9a-f]+`), "<event>"},
	{regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z`), "<time>"},
	{regexp.MustCompile(`"(durationMs|ageSeconds|idleSeconds)":\d+`), `"$1":0`},
	{regexp.MustCompile(`\b[0-9a-f]{12}\b`), "<short>"},
}

func stable(s string, dirs ...string) string {
	for _, d := range dirs {
		s = strings.ReplaceAll(s, d, "<repo>")
	}
	for _, v := range volatile {
		s = v.re.ReplaceAllString(s, v.with)
	}
	return s
}

// TestMCPParity: the SDK's client initializes the built binary's server, lists its tools (every
// documented one, no human decision among them), and calls each one; every answer is exactly
// what the same command prints with --json on a twin repository, refusals included (a tool error
// carrying the same error object: code, rejection, fix).
func TestMCPParity(t *testing.T) {
	bin := builtBinary(t)
	env := mcpEnv(t, bin)
	a, b := twinRepos(t, env)
	s := mcpSession(t, bin, a, env)
	ctx := context.Background()

	tools, err := s.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
		if hooks.HumanDecision(strings.SplitN(tl.Name, "_", 2)[0]) || hooks.HumanDecision(tl.Name) {
			t.Errorf("tool %s is a human decision", tl.Name)
		}
		if tl.InputSchema == nil {
			t.Errorf("tool %s has no input schema", tl.Name)
		}
	}

	calls := []struct {
		tool  string
		input string
		cli   []string
		fails bool
	}{
		{"workflow_init", `{"feature":"login","type":"feature"}`, []string{"init", "login", "--type", "feature"}, false},
		{"workflow_init", `{"feature":"Bad Id","type":"feature"}`, []string{"init", "Bad Id", "--type", "feature"}, true},
		{"workflow_list", `{}`, []string{"list"}, false},
		{"workflow_status", `{"feature":"login"}`, []string{"status", "login"}, false},
		{"workflow_status", `{"fields":["phase","branch"]}`, []string{"status", "--fields", "phase,branch"}, false},
		{"workflow_status", `{"format":"mermaid"}`, []string{"status", "--format", "mermaid"}, false},
		{"workflow_describe", `{"type":"feature"}`, []string{"describe", "feature"}, false},
		{"workflow_transitions", `{}`, []string{"transitions"}, false},
		{"workflow_transition", `{"phase":"plan"}`, []string{"transition", "plan"}, true}, // no design yet: GUARD_FAILED
		{"workflow_set", `{"assignments":["artifacts.design=docs/design.md"]}`, []string{"set", "artifacts.design=docs/design.md"}, false},
		{"workflow_transition", `{"feature":"login","phase":"plan"}`, []string{"transition", "login", "plan"}, false},
		{"event_append", `{"type":"note.added","data":{"a":1},"idempotencyKey":"k1"}`, []string{"event", "note.added", "--data", `{"a":1}`, "--idempotency-key", "k1"}, false},
		{"event_append", `{"type":"note.added","data":{"a":2},"idempotencyKey":"k1"}`, []string{"event", "note.added", "--data", `{"a":2}`, "--idempotency-key", "k1"}, true}, // IDEMPOTENCY_CONFLICT
		{"event_query", `{"types":["note.added"],"limit":5}`, []string{"log", "--type", "note.added", "--limit", "5"}, false},
		{"task_add", `{"task":"t1","title":"session store"}`, []string{"task", "add", "t1", "--title", "session store"}, false},
		{"task_add", `{"task":"t2"}`, []string{"task", "add", "t2"}, false},
		{"task_start", `{"task":"t1"}`, []string{"task", "start", "t1"}, false},
		{"task_done", `{"task":"t1"}`, []string{"task", "done", "t1"}, true}, // no commit since the task started: NO_WORK
		{"task_fail", `{"task":"t2","reason":"blocked"}`, []string{"task", "fail", "t2", "--reason", "blocked"}, false},
		{"validate", `{"command":["true"]}`, []string{"validate", "--json", "--", "true"}, false},
		{"validate", `{"command":["false"]}`, []string{"validate", "--json", "--", "false"}, true},
		{"review", `{"dimension":"spec","verdict":"pass","note":"ok"}`, []string{"review", "spec", "pass", "--note", "ok"}, true}, // in plan: a review counts only in review (WRONG_PHASE)
		{"review", `{"dimension":"spec","verdict":"maybe"}`, []string{"review", "spec", "maybe"}, true},
		{"review", `{"dimension":"quality","findings":[{"severity":"high","file":"docs/design.md","line":1,"text":"says: nothing"}]}`, []string{"review", "quality", "--finding", "high:docs/design.md:1:says: nothing"}, true}, // WRONG_PHASE
		{"review", `{"dimension":"quality","findings":[{"severity":"severe","file":"docs/design.md","text":"x"}]}`, []string{"review", "quality", "--finding", "severe:docs/design.md:0:x"}, true},                              // BAD_INPUT
		{"review", `{"resolve":"f00000000","note":"false positive"}`, []string{"review", "--resolve", "f00000000", "--note", "false positive"}, true},
		{"view_findings", `{"feature":"login","all":true}`, []string{"view", "findings", "login", "--all"}, false},
		{"submit", `{"phase":"plan","file":"payload.json"}`, []string{"submit", "plan", "--file", "payload.json"}, true},
		{"stage_done", `{"stage":"lint"}`, []string{"stage", "done", "lint"}, true},                                   // feature runs no stages: WRONG_PHASE
		{"stage_fail", `{"stage":"lint","reason":"vet"}`, []string{"stage", "fail", "lint", "--reason", "vet"}, true}, // likewise
		{"pr_link", `{"pr":"https://github.com/o/r/pull/1"}`, []string{"pr", "link", "https://github.com/o/r/pull/1"}, true},
		{"pr_refresh", `{}`, []string{"pr", "refresh"}, true},
		{"review_import", `{"dryRun":true}`, []string{"review", "import", "--dry-run"}, true},                             // no pull request linked: PR_NOT_LINKED
		{"pr_create", `{"title":"Login","dryRun":true}`, []string{"pr", "create", "--title", "Login", "--dry-run"}, true}, // no origin remote: NO_REMOTE
		{"view_pipeline", `{}`, []string{"view", "pipeline"}, false},
		{"view_tasks", `{"feature":"login"}`, []string{"view", "tasks", "login"}, false},
		{"view_audit", `{}`, []string{"audit"}, false},
		{"view_timeline", `{"feature":"login"}`, []string{"view", "timeline", "login"}, false},
		{"view_convergence", `{}`, []string{"view", "convergence"}, false},
		{"view_stack", `{"all":true}`, []string{"view", "stack", "--all"}, false},
		{"view_rehydrate", `{}`, []string{"rehydrate"}, false},
		{"checkpoint", `{"note":"t1 next"}`, []string{"checkpoint", "--note", "t1 next"}, false},
		{"verify", `{"feature":"login","rerunGates":true}`, []string{"verify", "--rerun-gates", "login"}, false},
		{"runbook", `{"name":"release","from":2}`, []string{"runbook", "--from", "2", "release"}, true}, // the built-in feature has no runbook
		{"event_append", `{"type":"pr.merge-decided","data":{"number":1,"url":"https://github.com/o/r/pull/1","headSha":"0000000000000000000000000000000000000000","method":"merge","actor":"me"}}`,
			[]string{"event", "pr.merge-decided", "--data", `{"actor":"me","headSha":"0000000000000000000000000000000000000000","method":"merge","number":1,"url":"https://github.com/o/r/pull/1"}`}, true}, // the merge decision by hand: reserved
		{"pr_find", `{}`, []string{"pr", "find"}, true}, // no origin remote
		{"request_synthesis", `{"reason":"small"}`, []string{"request-synthesis", "--reason", "small"}, true},
		{"loop_done", `{}`, []string{"loop", "done"}, true}, // not a loop workflow
		{"loop_pass", `{"feature":"login"}`, []string{"loop", "pass", "login"}, true},
		{"loop_fail", `{}`, []string{"loop", "fail"}, true},
		{"loop_fail_now", `{"reason":"stuck"}`, []string{"loop", "fail-now", "--reason", "stuck"}, true},
		{"loop_error", `{"reason":"broken"}`, []string{"loop", "error", "--reason", "broken"}, true},
		{"rescue_list", `{}`, []string{"rescue", "list"}, false},
		{"rescue_restore", `{"feature":"login","task":"t9"}`, []string{"rescue", "restore", "login", "t9"}, true},
		// (the twins share their origin: a remote of neither, so one twin's push cannot change the other's answer)
		{"team_pull", `{"remote":"nowhere","prune":true}`, []string{"pull", "--prune", "nowhere"}, true},
		{"team_push", `{"remote":"nowhere","retries":1}`, []string{"push", "--retries", "1", "nowhere"}, true},
		{"team_sync", `{"remote":"nowhere"}`, []string{"sync", "nowhere"}, true},
		{"fsck", `{"feature":"login"}`, []string{"fsck", "login"}, false},
		{"prune", `{"olderThan":"1h"}`, []string{"prune", "--older-than", "1h"}, false},
		{"lint_workflow", `{"file":"docs/design.md"}`, []string{"lint", "docs/design.md"}, true},
		{"doctor", `{}`, []string{"doctor"}, false}, // warnings only
		{"workflow_cancel", `{"dryRun":true}`, []string{"cancel", "--dry-run"}, false},
		{"workflow_cancel", `{"reason":"done testing"}`, []string{"cancel", "--reason", "done testing"}, false},
		{"cleanup", `{"offline":true,"dryRun":true}`, []string{"cleanup", "--offline", "--dry-run"}, true},
		{"cleanup", `{"offline":true}`, []string{"cleanup", "--offline"}, true}, // cancelled: nothing to clean up
		{"workflow_list", `{"all":true}`, []string{"list", "--all"}, false},
	}
	called := map[string]bool{}
	for _, c := range calls {
		called[c.tool] = true
		res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: c.tool, Arguments: json.RawMessage(c.input)})
		if err != nil {
			t.Fatalf("%s %s: %v", c.tool, c.input, err)
		}
		if len(res.Content) != 1 {
			t.Fatalf("%s: %d content blocks", c.tool, len(res.Content))
		}
		got := res.Content[0].(*mcp.TextContent).Text
		cmd := exec.Command(bin, append(c.cli, "--json")...)
		if c.cli[0] == "validate" {
			cmd = exec.Command(bin, c.cli...)
		}
		cmd.Dir, cmd.Env = b, env
		want, err := cmd.Output()
		if (err != nil) != c.fails || res.IsError != c.fails {
			t.Errorf("%s %s: tool error %v, CLI error %v, want failure=%v\n%s", c.tool, c.input, res.IsError, err, c.fails, got)
		}
		if g, w := stable(got, a), stable(strings.TrimSpace(string(want)), b); g != w {
			t.Errorf("%s %s answers differently from git exarchos %s --json:\ntool: %s\ncli:  %s", c.tool, c.input, strings.Join(c.cli, " "), g, w)
		}
		var structured map[string]any
		if raw, _ := json.Marshal(res.StructuredContent); json.Unmarshal(raw, &structured) != nil || structured == nil {
			t.Errorf("%s: structured content is not the JSON object: %v", c.tool, res.StructuredContent)
		}
	}
	for _, n := range names {
		if !called[n] {
			t.Errorf("tool %s is not exercised by the parity test", n)
		}
	}
	want := []string{"checkpoint", "cleanup", "doctor", "event_append", "event_query", "fsck", "lint_workflow", "loop_done", "loop_error", "loop_fail", "loop_fail_now", "loop_pass", "pr_create", "pr_find", "pr_link", "pr_refresh", "prune", "request_synthesis", "rescue_list", "rescue_restore",
		"review", "review_import", "runbook", "stage_done", "stage_fail", "submit", "task_add", "task_done",
		"task_fail", "task_start", "team_pull", "team_push", "team_sync", "validate", "verify", "view_audit", "view_convergence", "view_findings", "view_pipeline", "view_rehydrate", "view_stack", "view_tasks", "view_timeline", "workflow_cancel",
		"workflow_describe", "workflow_init", "workflow_list", "workflow_set", "workflow_status", "workflow_transition", "workflow_transitions"}
	slices.Sort(names)
	if !slices.Equal(names, want) {
		t.Errorf("tools %v, want %v", names, want)
	}
}

// TestMCPRefusalCarriesTheRejection: a guard refusal is a tool error whose object names the
// failed guard and its runnable fix, and the workflow stays where it was.
func TestMCPRefusalCarriesTheRejection(t *testing.T) {
	bin := builtBinary(t)
	env := mcpEnv(t, bin)
	a, _ := twinRepos(t, env)
	s := mcpSession(t, bin, a, env)
	ctx := context.Background()
	call := func(name, in string) (*mcp.CallToolResult, map[string]any) {
		res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: json.RawMessage(in)})
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(res.Content[0].(*mcp.TextContent).Text), &m); err != nil {
			t.Fatal(err)
		}
		return res, m
	}
	call("workflow_init", `{"feature":"login","type":"feature"}`)
	_, before := call("workflow_status", `{}`)
	res, m := call("workflow_transition", `{"phase":"plan"}`)
	if !res.IsError {
		t.Fatalf("refusal is not a tool error: %v", m)
	}
	e, _ := m["error"].(map[string]any)
	rej, _ := e["rejection"].(map[string]any)
	if e["code"] != "GUARD_FAILED" || e["exit"] != float64(3) || rej == nil {
		t.Fatalf("error object: %v", m)
	}
	fg, _ := rej["failedGuards"].([]any)
	if len(fg) == 0 || !strings.HasPrefix(fg[0].(map[string]any)["fix"].(string), "git exarchos set login artifacts.design=") {
		t.Errorf("no runnable fix in %v", rej)
	}
	// The refusal is recorded (guard.failed, for the audit), the phase is not moved.
	if _, after := call("workflow_status", `{}`); after["phase"] != "ideate" || before["phase"] != "ideate" {
		t.Errorf("a refused transition moved the workflow: %v → %v", before["phase"], after["phase"])
	}
	// Bad input is a tool error too, before anything runs.
	for _, bad := range []string{`{"phase":7}`, `{"phase":"plan","force":true}`, `{}`} {
		if res, _ := s.CallTool(ctx, &mcp.CallToolParams{Name: "workflow_transition", Arguments: json.RawMessage(bad)}); res == nil || !res.IsError {
			t.Errorf("arguments %s were accepted: %+v", bad, res)
		}
	}
	if _, after := call("workflow_status", `{}`); after["phase"] != "ideate" {
		t.Errorf("bad arguments moved the workflow to %v", after["phase"])
	}
}

// TestMCPConcurrentCalls: a client may send tool calls without waiting for answers; each one is
// applied (no lost update) and each answer is its own command's. The server runs in-process, for
// -race; its commands run as processes.
func TestMCPConcurrentCalls(t *testing.T) {
	bin := builtBinary(t)
	env := mcpEnv(t, bin)
	a, _ := twinRepos(t, env)
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	t.Chdir(a)
	ct, st := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := New(bin, "test").Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "workflow_init", Arguments: map[string]any{"feature": "login", "type": "feature"}}); err != nil || res.IsError {
		t.Fatalf("init: %v %+v", err, res)
	}
	const n = 6
	var wg sync.WaitGroup
	errs := make(chan string, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			id := "t" + string(rune('a'+i))
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "task_add", Arguments: map[string]any{"task": id}})
			if err != nil {
				errs <- id + ": " + err.Error()
				return
			}
			if res.IsError {
				errs <- id + ": " + res.Content[0].(*mcp.TextContent).Text
				return
			}
			if !strings.Contains(res.Content[0].(*mcp.TextContent).Text, `"data":{"id":"`+id+`",`) {
				errs <- id + ": answered " + res.Content[0].(*mcp.TextContent).Text
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "view_tasks", Arguments: map[string]any{"feature": "login"}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Content[0].(*mcp.TextContent).Text, `"counts":{"pending":6}`) {
		t.Errorf("tasks after %d concurrent adds: %s", n, res.Content[0].(*mcp.TextContent).Text)
	}
}

// TestServerNameIsTheMCPJSONKey: the name in the handshake is the key --install writes.
func TestServerNameIsTheMCPJSONKey(t *testing.T) {
	if ServerName != app.MCPServerName {
		t.Fatalf("server %q, .mcp.json key %q", ServerName, app.MCPServerName)
	}
}

// TestMainBinaryDoesNotLinkTheSDK: git-exarchos, run on every hook call, links neither the MCP SDK
// nor its JSON Schema package; the server binary does.
func TestMainBinaryDoesNotLinkTheSDK(t *testing.T) {
	deps := func(pkg string) []string {
		out, err := exec.Command("go", "list", "-deps", pkg).Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", pkg, err)
		}
		return strings.Fields(string(out))
	}
	heavy := []string{"github.com/modelcontextprotocol/go-sdk/mcp", "github.com/google/jsonschema-go/jsonschema", "github.com/exarchos/git-exarchos/mcpserver"}
	main := deps("../cmd/git-exarchos")
	for _, h := range heavy {
		if slices.Contains(main, h) {
			t.Errorf("git-exarchos links %s", h)
		}
	}
	if server := deps("../cmd/git-exarchos-mcp"); !slices.Contains(server, heavy[0]) {
		t.Errorf("git-exarchos-mcp does not link the MCP SDK: %v", server)
	}
}

// TestMCPWithoutTheServerBinary: git-exarchos installed alone. `mcp` fails at once, naming the
// command that installs the server; doctor fails the registration with the same fix; --install
// still works.
func TestMCPWithoutTheServerBinary(t *testing.T) {
	alone := filepath.Join(t.TempDir(), "git-exarchos")
	copyFile(t, builtBinary(t), alone)
	env := mcpEnv(t, alone)
	a, _ := twinRepos(t, env)
	run := func(args ...string) (string, string, int) {
		cmd := exec.Command(alone, args...)
		cmd.Dir, cmd.Env = a, env
		var stdout, stderr strings.Builder
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		code := 0
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			code = exit.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return stdout.String(), stderr.String(), code
	}
	fix := "go install github.com/exarchos/git-exarchos/cmd/git-exarchos-mcp@latest"
	_, stderr, code := run("mcp")
	if code != 1 || !strings.Contains(stderr, fix) || !strings.Contains(stderr, alone) {
		t.Errorf("mcp without the server: exit %d, stderr %q", code, stderr)
	}
	if _, stderr, code := run("mcp", "--install"); code != 0 {
		t.Fatalf("mcp --install: exit %d: %s", code, stderr)
	}
	stdout, _, code := run("doctor", "--json")
	var report struct {
		Error struct {
			Details struct {
				Checks []struct{ ID, Status, Message, Fix string }
			}
		}
	}
	if err := json.Unmarshal([]byte(stdout), &report); err != nil || code != 1 {
		t.Fatalf("doctor --json: exit %d, %v\n%s", code, err, stdout)
	}
	found := false
	for _, c := range report.Error.Details.Checks {
		if c.ID == "mcp" {
			found = true
			if c.Status != "fail" || !strings.HasPrefix(c.Fix, fix) {
				t.Errorf("doctor's mcp check: %+v", c)
			}
		}
	}
	if !found {
		t.Errorf("doctor has no mcp check: %s", stdout)
	}
}

// TestMCPToolsRunTheCLIThatStartedThem: the server binary is found on PATH, not beside
// git-exarchos, and a different git-exarchos (here one that answers {"decoy":true}) sits beside
// the server and in an inherited EXARCHOS_CLI: the tools still run the git-exarchos that Claude
// Code started.
func TestMCPToolsRunTheCLIThatStartedThem(t *testing.T) {
	built := builtBinary(t)
	cliDir, serverDir := t.TempDir(), t.TempDir()
	cli := filepath.Join(cliDir, "git-exarchos")
	copyFile(t, built, cli)
	copyFile(t, filepath.Join(filepath.Dir(built), "git-exarchos-mcp"), filepath.Join(serverDir, "git-exarchos-mcp"))
	decoy := filepath.Join(serverDir, "git-exarchos")
	if err := os.WriteFile(decoy, []byte("#!/bin/sh\necho '{\"decoy\":true}'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	env := mcpEnv(t, cli)
	a, _ := twinRepos(t, env)
	env = append(env, "PATH="+serverDir+string(os.PathListSeparator)+os.Getenv("PATH"), CLIEnv+"="+decoy)
	s := mcpSession(t, cli, a, env)
	res, err := s.CallTool(context.Background(), &mcp.CallToolParams{Name: "workflow_list", Arguments: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Content[0].(*mcp.TextContent).Text; res.IsError || !strings.Contains(got, `"workflows"`) {
		t.Errorf("workflow_list answered %s (error %v)", got, res.IsError)
	}
}

// TestToolWhoseCLICannotRun: a CLI that is gone, or that prints no JSON, is a tool error saying so,
// not a hung or crashed server.
func TestToolWhoseCLICannotRun(t *testing.T) {
	dir := t.TempDir()
	silent := filepath.Join(dir, "silent")
	if err := os.WriteFile(silent, []byte("#!/bin/sh\necho broken >&2\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for cli, want := range map[string]string{filepath.Join(dir, "gone"): "no such file", silent: "printed no JSON object (exit status 1): broken"} {
		ct, st := mcp.NewInMemoryTransports()
		ctx := context.Background()
		ss, err := New(cli, "test").Connect(ctx, st, nil)
		if err != nil {
			t.Fatal(err)
		}
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, ct, nil)
		if err != nil {
			t.Fatal(err)
		}
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "workflow_list", Arguments: map[string]any{}})
		if err != nil {
			t.Fatal(err)
		}
		if text := res.Content[0].(*mcp.TextContent).Text; !res.IsError || !strings.Contains(text, want) {
			t.Errorf("CLI %s: tool error %v, %q; want one saying %q", cli, res.IsError, text, want)
		}
		cs.Close()
		ss.Close()
	}
}

// TestServerArguments: the server takes none; -h and --version answer and exit 0.
func TestServerArguments(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
		out  string
	}{
		{[]string{"-h"}, 0, "usage: git-exarchos-mcp"},
		{[]string{"--version"}, 0, "git-exarchos-mcp v9"},
		{[]string{"serve"}, 2, `takes no arguments, got "serve"`},
	} {
		var stdout, stderr strings.Builder
		code := Main(append([]string{"git-exarchos-mcp"}, c.args...), strings.NewReader(""), &stdout, &stderr, "v9")
		if code != c.code || !strings.Contains(stdout.String()+stderr.String(), c.out) {
			t.Errorf("%v: exit %d, %q %q", c.args, code, stdout.String(), stderr.String())
		}
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o755); err != nil {
		t.Fatal(err)
	}
}
