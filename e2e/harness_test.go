// Package e2e runs the real Claude Code client (pinned in package.json, installed by `npm ci`)
// against a scripted model server (internal/modelserver) and the fake GitHub, with git exarchos's
// plugin loaded, in real temporary repositories: what the hooks made the client do and what reached
// the model are asserted from the client's stream and the server's recorded requests. Codex CLI,
// Gemini CLI, Qwen Code and Copilot CLI run the same way (clients_test.go), each in its own wire
// format.
//
// The harness: NewEnv makes a world (a repository with a remote, a scratch HOME, the model server,
// the fake GitHub); Env.Session starts a client session on it; Session.Run and Session.Resume run
// one `claude -p` each and return its parsed stream. Env.Human runs git exarchos as the human does,
// outside the agent (no agent variables).
package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/exarchos/git-exarchos/ghclient/fakegithub"
	"github.com/exarchos/git-exarchos/internal/modelserver"
)

// GitHubToken is the token the fake GitHub accepts.
const GitHubToken = "ghp_e2eToken0123456789abcdef"

var (
	moduleRoot string // the repository root
	binDir     string // git-exarchos and git-exarchos-mcp, built once per test binary
	buildErr   error
	buildOnce  sync.Once
	// clientMissing counts the tests skipped because the client is not installed (TestMain says so).
	clientMissing atomic.Int32
)

// noticeEnv names a file the missing-client notice is written to instead of the terminal (its test).
const noticeEnv = "EXARCHOS_E2E_NOTICE_FILE"

func TestMain(m *testing.M) {
	if os.Getenv(mcpWriterEnv) != "" {
		serveMCPWriter()
		return
	}
	root, err := filepath.Abs("..")
	if err != nil {
		panic(err)
	}
	moduleRoot = root
	dir, err := os.MkdirTemp("", "exarchos-e2e-bin-")
	if err != nil {
		panic(err)
	}
	binDir = dir
	code := m.Run()
	_ = os.RemoveAll(dir)
	if n := clientMissing.Load(); n > 0 {
		missingClientNotice(int(n))
	}
	os.Exit(code)
}

// missingClientNotice says, once, that the real-client tests were skipped and how to run them (issue
// 41: `go test ./...` printed `ok e2e` with them all skipped without a word). go test shows nothing
// of a passing package's output but its ok line, so the notice goes to the terminal (/dev/tty) when
// there is one, else to stderr (shown with -v).
func missingClientNotice(n int) {
	msg := fmt.Sprintf("\n*** e2e: %d real-client test(s) SKIPPED: the Claude Code client is not installed. Run `npm ci` at the repository root, then go test ./e2e (CI=true makes this a failure). ***\n\n", n)
	var w *os.File
	if p := os.Getenv(noticeEnv); p != "" {
		w, _ = os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	} else {
		w, _ = os.OpenFile("/dev/tty", os.O_WRONLY, 0)
	}
	if w == nil {
		w = os.Stderr
	} else {
		defer w.Close()
	}
	_, _ = io.WriteString(w, msg)
}

// claudePath is the client to run: $EXARCHOS_CLAUDE, else the one `npm ci` installs. Missing, the
// test is skipped with how to install it, except in CI (CI=true), where it fails.
func claudePath(t testing.TB) string {
	t.Helper()
	return npmClientPath(t, "Claude Code", "claude", "EXARCHOS_CLAUDE")
}

// npmClientPath is an agent client's program: $env, else node_modules/.bin/<bin>, which `npm ci`
// installs at the version package.json pins. Missing, the test is skipped with how to install it,
// except in CI (CI=true), where it fails.
func npmClientPath(t testing.TB, name, bin, env string) string {
	t.Helper()
	p := os.Getenv(env)
	if p == "" {
		p = filepath.Join(moduleRoot, "node_modules", ".bin", bin)
	}
	if _, err := os.Stat(p); err != nil {
		msg := fmt.Sprintf("the %s client is not installed (%s): run `npm ci` at the repository root (it installs the version package.json pins), or set %s to its binary", name, p, env)
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		clientMissing.Add(1)
		t.Skip(msg)
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Fatalf("node is not on PATH: the %s client needs it (install nodejs)", name)
	}
	return p
}

// buildBinaries builds git-exarchos and git-exarchos-mcp into binDir once.
func buildBinaries(t testing.TB) {
	t.Helper()
	buildOnce.Do(func() {
		cmd := exec.Command("go", "build", "-o", binDir+string(filepath.Separator), "./cmd/git-exarchos", "./cmd/git-exarchos-mcp")
		cmd.Dir = moduleRoot
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
}

// Env is one world a test runs sessions in.
type Env struct {
	T      *testing.T
	Claude string // the client binary
	Dir    string // the repository (the session's working directory)
	Home   string // the scratch HOME
	Remote string // the bare repository origin pushes to
	Plugin string // the plugin directory sessions load (--plugin-dir); "" loads none
	Model  *modelserver.Server
	GitHub *fakegithub.Server
	// ExtraEnv is added to every process's environment (client and human alike).
	ExtraEnv []string
	// PathFirst are directories put on PATH before the built binaries; NoExarchos leaves the
	// built binaries off PATH (a handler missing from PATH).
	PathFirst  []string
	NoExarchos bool
}

// NewEnv makes a repository on branch main with one commit, whose origin is github.com/acme/app
// for the fake GitHub and pushes to a local bare repository; a scratch HOME whose git config
// holds the test identity and trusts the fake's host; the model server; the fake GitHub.
func NewEnv(t *testing.T) *Env {
	t.Helper()
	e := newWorld(t)
	e.Claude, e.Plugin = claudePath(t), filepath.Join(moduleRoot, "claude-plugin")
	return e
}

// newWorld is NewEnv without a client: the repository, the scratch HOME, the servers.
func newWorld(t *testing.T) *Env {
	t.Helper()
	e := &Env{T: t, Home: t.TempDir()}
	buildBinaries(t)
	root := t.TempDir()
	e.Dir, e.Remote = filepath.Join(root, "app"), filepath.Join(root, "origin.git")
	e.Model = modelserver.New(nil)
	t.Cleanup(e.Model.Close)
	e.GitHub = fakegithub.New("github.com", "acme", "app", GitHubToken)
	t.Cleanup(e.GitHub.Close)
	writeFile(t, filepath.Join(e.Home, ".gitconfig"), "[user]\n\tname = E2E Human\n\temail = human@example.com\n[init]\n\tdefaultBranch = main\n[exarchos]\n\tgithubApiHost = 127.0.0.1\n")
	e.Git(root, "init", "-q", "--bare", e.Remote)
	e.Git(root, "init", "-q", e.Dir)
	writeFile(t, filepath.Join(e.Dir, "README.md"), "# app\n")
	writeFile(t, filepath.Join(e.Dir, "main.go"), "package main\n\nfunc main() {}\n")
	e.Git(e.Dir, "add", ".")
	e.Git(e.Dir, "commit", "-q", "-m", "init")
	e.Git(e.Dir, "remote", "add", "origin", "ssh://git@github.com:22/acme/app.git")
	e.Git(e.Dir, "remote", "set-url", "--push", "origin", e.Remote)
	e.Git(e.Dir, "push", "-q", "origin", "main")
	// origin/main as if fetched: the protected base branch.
	e.Git(e.Dir, "update-ref", "-m", "fetch: as if fetched from origin", "refs/remotes/origin/main", "HEAD")
	e.Git(e.Dir, "symbolic-ref", "refs/remotes/origin/HEAD", "refs/remotes/origin/main")
	return e
}

func writeFile(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// environ is the environment of every process the harness starts, built from nothing: the built
// binaries first on PATH, then node's directory and the system's; the scratch HOME; no system git
// config; the fake GitHub. None of the agent's variables (CLAUDECODE, CLAUDE_CODE_SESSION_ID,
// CLAUDE_CODE_ENTRYPOINT, AI_AGENT, CLAUDE_PROJECT_DIR) is set, even when the tests run inside a
// Claude Code session: the client sets them for the processes it starts, and the human's commands
// run without them.
func (e *Env) environ() []string {
	node, _ := exec.LookPath("node")
	gitPath, _ := exec.LookPath("git")
	path := append([]string(nil), e.PathFirst...)
	if !e.NoExarchos {
		path = append(path, binDir)
	}
	for _, p := range []string{filepath.Dir(node), filepath.Dir(gitPath), "/usr/local/bin", "/usr/bin", "/bin"} {
		if p != "." && !contains(path, p) {
			path = append(path, p)
		}
	}
	env := []string{
		"PATH=" + strings.Join(path, string(os.PathListSeparator)),
		"HOME=" + e.Home,
		"TMPDIR=" + os.TempDir(),
		"LANG=C.UTF-8",
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=E2E Human", "GIT_AUTHOR_EMAIL=human@example.com",
		"GIT_COMMITTER_NAME=E2E Human", "GIT_COMMITTER_EMAIL=human@example.com",
		"GITHUB_API_URL=" + e.GitHub.URL,
		"GH_TOKEN=" + GitHubToken,
		"EXARCHOS_GITHUB_RETRY_BUDGET=300ms",
	}
	return append(env, e.ExtraEnv...)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Git runs git in dir and returns its trimmed output; a failure fails the test.
func (e *Env) Git(dir string, args ...string) string {
	e.T.Helper()
	out, err := e.run(dir, "git", args...)
	if err != nil {
		e.T.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(out)
}

// Human runs `git exarchos args…` in the repository as the human does: outside the agent, with no
// agent variable set. It returns the combined output and the error.
func (e *Env) Human(args ...string) (string, error) {
	return e.run(e.Dir, "git", append([]string{"exarchos"}, args...)...)
}

// MustHuman is Human that fails the test on an error.
func (e *Env) MustHuman(args ...string) string {
	e.T.Helper()
	out, err := e.Human(args...)
	if err != nil {
		e.T.Fatalf("git exarchos %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

func (e *Env) run(dir, name string, args ...string) (string, error) {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = e.environ()
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// Session is one Claude Code conversation: Run starts it, Resume continues it (--resume).
type Session struct {
	Env *Env
	ID  string // the session id, known after the first Run
	// AllowedTools are named with --allowedTools (as root, --dangerously-skip-permissions is
	// refused, so tools are allowed by name).
	AllowedTools []string
	Args         []string      // more client arguments
	Timeout      time.Duration // per run; 0 is 90 s
}

// DefaultTools are the tools a session may use without a permission prompt.
var DefaultTools = []string{"Bash", "Read", "Write", "Edit", "MultiEdit", "Glob", "Grep", "Task", "Agent", "Skill", "SlashCommand", "TodoWrite", "mcp__exarchos__*", "mcp__plugin_exarchos_exarchos__*"}

// Session starts a conversation on the world.
func (e *Env) Session() *Session {
	return &Session{Env: e, AllowedTools: DefaultTools}
}

// Event is one line of the client's stream-json output.
type Event map[string]any

// Type is the event's type and subtype ("system/init", "assistant", "result/success", …).
func (ev Event) Type() string {
	t, _ := ev["type"].(string)
	if st, ok := ev["subtype"].(string); ok {
		return t + "/" + st
	}
	return t
}

// Result is what one run of the client produced.
type Result struct {
	Events   []Event
	Requests []*modelserver.Request // the model server's requests during this run
	Stderr   string
	Err      error // the client's exit
}

// Final is the stream's result event (nil when the client ended without one).
func (r *Result) Final() Event {
	for i := len(r.Events) - 1; i >= 0; i-- {
		if t, _ := r.Events[i]["type"].(string); t == "result" {
			return r.Events[i]
		}
	}
	return nil
}

// ToolResult is the text of the tool result for the call id as the client reported it.
func (r *Result) ToolResult(id string) (text string, isError, ok bool) {
	for _, ev := range r.Events {
		if ev["type"] != "user" {
			continue
		}
		msg, _ := ev["message"].(map[string]any)
		blocks, _ := msg["content"].([]any)
		for _, b := range blocks {
			bm, _ := b.(map[string]any)
			if bm["type"] == "tool_result" && bm["tool_use_id"] == id {
				isErr, _ := bm["is_error"].(bool)
				return contentText(bm["content"]), isErr, true
			}
		}
	}
	return "", false, false
}

func contentText(c any) string {
	switch v := c.(type) {
	case string:
		return v
	case []any:
		var parts []string
		for _, b := range v {
			if bm, ok := b.(map[string]any); ok {
				if s, ok := bm["text"].(string); ok {
					parts = append(parts, s)
				}
			}
		}
		return strings.Join(parts, "\n")
	}
	return ""
}

// Run starts the conversation with prompt, the model answering from script.
func (s *Session) Run(prompt string, script []modelserver.Turn) *Result {
	return s.run(prompt, script, nil)
}

// Resume continues the conversation (claude --resume <id>) with prompt.
func (s *Session) Resume(prompt string, script []modelserver.Turn) *Result {
	s.Env.T.Helper()
	if s.ID == "" {
		s.Env.T.Fatal("Resume before Run: no session id")
	}
	return s.run(prompt, script, []string{"--resume", s.ID})
}

func (s *Session) run(prompt string, script []modelserver.Turn, extra []string) *Result {
	e := s.Env
	t := e.T
	t.Helper()
	e.Model.SetScript(script)
	before := len(e.Model.Requests())
	args := []string{"-p", prompt, "--output-format", "stream-json", "--verbose", "--include-hook-events",
		"--append-system-prompt", modelserver.MainAgent}
	if len(s.AllowedTools) > 0 {
		args = append(args, "--allowedTools", strings.Join(s.AllowedTools, ","))
	}
	if e.Plugin != "" {
		args = append(args, "--plugin-dir", e.Plugin)
	}
	args = append(append(args, extra...), s.Args...)
	timeout := s.Timeout
	if timeout == 0 {
		timeout = 90 * time.Second
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, e.Claude, args...)
	cmd.Dir = e.Dir
	cmd.Env = append(e.environ(),
		"ANTHROPIC_BASE_URL="+e.Model.URL,
		"ANTHROPIC_API_KEY=sk-ant-e2e-dummy",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"DISABLE_TELEMETRY=1",
		"DISABLE_AUTOUPDATER=1",
		"IS_SANDBOX=1",
	)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	res := &Result{Stderr: stderr.String(), Err: err}
	sc := bufio.NewScanner(&stdout)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var ev Event
		if json.Unmarshal(sc.Bytes(), &ev) == nil {
			res.Events = append(res.Events, ev)
		}
	}
	res.Requests = e.Model.Requests()[before:]
	if id, _ := firstOf(res.Events, "session_id").(string); id != "" && s.ID == "" {
		s.ID = id
	}
	t.Logf("claude run: %d events, %d model requests, %s", len(res.Events), len(res.Requests), time.Since(start).Round(time.Millisecond))
	if ctx.Err() != nil {
		t.Fatalf("claude did not finish within %s\nstderr:\n%s\nstream tail:\n%s", timeout, res.Stderr, tail(stdout.String(), 4000))
	}
	if merr := e.Model.Err(); merr != nil {
		t.Errorf("%v\nstderr:\n%s", merr, res.Stderr)
	}
	if u := e.Model.Unknown(); len(u) > 0 {
		t.Errorf("the client called endpoints the model server does not know: %v", u)
	}
	return res
}

func firstOf(events []Event, key string) any {
	for _, ev := range events {
		if v, ok := ev[key]; ok {
			return v
		}
	}
	return nil
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

// Bash is a Bash tool call.
func Bash(id, command string) modelserver.ToolUse {
	return modelserver.ToolUse{ID: id, Name: "Bash", Input: map[string]any{"command": command, "description": "run " + firstWord(command)}}
}

func firstWord(s string) string {
	if f := strings.Fields(s); len(f) > 0 {
		return f[0]
	}
	return s
}

// ExpectResult is an Expect that the tool call id's result reached the model containing each of
// want (and, if isError is not nil, with that error flag).
func ExpectResult(id string, isError *bool, want ...string) func(*modelserver.Request) error {
	return func(r *modelserver.Request) error {
		res, ok := r.ToolResult(id)
		if !ok {
			return fmt.Errorf("no result for %s reached the model", id)
		}
		if isError != nil && res.IsError != *isError {
			return fmt.Errorf("result of %s: is_error %v, want %v: %s", id, res.IsError, *isError, res.Text)
		}
		for _, w := range want {
			if !strings.Contains(res.Text, w) {
				return fmt.Errorf("result of %s lacks %q:\n%s", id, w, res.Text)
			}
		}
		return nil
	}
}

var (
	yes = func() *bool { b := true; return &b }()
	no  = func() *bool { b := false; return &b }()
)

// TestMissingClientSaysSo (issue 41): with no client installed, the real-client tests are skipped
// locally with one loud line naming `npm ci` (go test hides a passing package's output, so the line
// goes to the terminal; here, to a file), and fail under CI=true. It runs this test binary again
// with the client pointed at nothing, whether or not the client is installed here.
func TestMissingClientSaysSo(t *testing.T) {
	if os.Getenv(noticeEnv) != "" {
		t.Skip("inside the run below")
	}
	for _, ci := range []string{"", "true"} {
		notice := filepath.Join(t.TempDir(), "notice")
		cmd := exec.Command(os.Args[0], "-test.run=^TestClientRunsOfflineAgainstTheScriptedModel$|^TestMissingClientSaysSo$")
		cmd.Env = append(os.Environ(), "EXARCHOS_CLAUDE="+filepath.Join(t.TempDir(), "no-claude"), "CI="+ci, noticeEnv+"="+notice)
		out, err := cmd.CombinedOutput()
		b, _ := os.ReadFile(notice)
		if ci == "" {
			if err != nil {
				t.Fatalf("locally a missing client skips: %v\n%s", err, out)
			}
			if strings.Count(string(b), "SKIPPED") != 1 || !strings.Contains(string(b), "1 real-client test(s) SKIPPED") || !strings.Contains(string(b), "npm ci") {
				t.Errorf("the notice, once, naming npm ci: %q", b)
			}
			continue
		}
		if err == nil || !strings.Contains(string(out), "run `npm ci`") {
			t.Errorf("CI=true: a missing client fails: %v\n%s", err, out)
		}
		if len(b) > 0 {
			t.Errorf("CI=true fails rather than notes: %q", b)
		}
	}
}
