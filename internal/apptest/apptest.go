// Package apptest holds what the tests of app and of the job packages share to set up workflows
// through the commands: a team of opened clones of a bare remote, signing keys and a team whose
// base allows one signer, events forged the way an agent could, CI's clone and verify's
// violations. Only tests import it.
//
// It may import app, the job packages and every package below them, and internal/gittest;
// internal/archtest holds the rule.
package apptest

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/exarchos/git-exarchos/app"
	"github.com/exarchos/git-exarchos/hookrun"
	"github.com/exarchos/git-exarchos/internal/agentenv"
	"github.com/exarchos/git-exarchos/internal/gittest"
	"github.com/exarchos/git-exarchos/project"
	"github.com/exarchos/git-exarchos/saga"
	"github.com/exarchos/git-exarchos/signing"
	"github.com/exarchos/git-exarchos/teamsync"
	"github.com/exarchos/git-exarchos/trust"
	"github.com/exarchos/git-exarchos/verify"
	"github.com/exarchos/git-exarchos/workflow"
)

// Team is a bare remote and n clones of it, each with its own identity, opened.
type Team struct {
	Remote string
	Clones []*app.Repo
	Dirs   []string
}

// NewTeam makes a bare remote and n clones of it (gittest.NewTeam), each opened.
func NewTeam(t testing.TB, n int) *Team {
	t.Helper()
	tm := &Team{}
	tm.Remote, tm.Dirs = gittest.NewTeam(t, n)
	for _, dir := range tm.Dirs {
		r, err := app.Open(dir)
		require.NoError(t, err)
		tm.Clones = append(tm.Clones, r)
	}
	return tm
}

// SSHKey makes a real ed25519 key with ssh-keygen: the private key path and the public key line.
func SSHKey(t testing.TB, dir, name string) (string, string) {
	t.Helper()
	p := filepath.Join(dir, name)
	if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", name, "-f", p).CombinedOutput(); err != nil {
		t.Fatalf("ssh-keygen: %v: %s", err, out)
	}
	line, err := signing.PublicKeyLine(p + ".pub")
	require.NoError(t, err)
	return p, line
}

// Reopen opens dir afresh, as the next command would.
func Reopen(t testing.TB, dir string) *app.Repo {
	t.Helper()
	r, err := app.Open(dir)
	require.NoError(t, err)
	return r
}

// UseKey makes dir sign with the SSH key at key.
func UseKey(t testing.TB, dir, key string) {
	gittest.Git(t, dir, "", "config", "gpg.format", "ssh")
	gittest.Git(t, dir, "", "config", "user.signingKey", key)
}

// SignedTeam is two clones of a bare remote whose main branch allows alice to sign decisions;
// clone 0 (the human's) has a feature workflow "login" in plan-review, pushed.
type SignedTeam struct {
	*Team
	Alice, Mallory string // private key files
}

// NewSignedTeam makes a SignedTeam: alice allowed to sign at the base, login in plan-review.
func NewSignedTeam(t *testing.T) *SignedTeam {
	t.Helper()
	tm := NewTeam(t, 2)
	keys := t.TempDir()
	alice, aliceLine := SSHKey(t, keys, "alice")
	mallory, _ := SSHKey(t, keys, "mallory")
	a := tm.Dirs[0]
	os.MkdirAll(filepath.Join(a, ".exarchos"), 0o755)
	os.WriteFile(filepath.Join(a, trust.AllowedSignersPath), []byte("alice@example.com namespaces=\"git-exarchos\" "+aliceLine+"\n"), 0o644)
	gittest.Git(t, a, "", "add", ".exarchos")
	gittest.Git(t, a, "", "commit", "-q", "-m", "allowed signers")
	gittest.Git(t, a, "", "push", "-q", "origin", "main")
	gittest.Git(t, tm.Dirs[1], "", "pull", "-q", "origin", "main")
	gittest.Git(t, a, "", "checkout", "-q", "-b", "login")
	os.WriteFile(filepath.Join(a, "design.md"), []byte("# d\n"), 0o644)
	os.WriteFile(filepath.Join(a, "plan.md"), []byte("# p\n"), 0o644)
	gittest.Git(t, a, "", "add", ".")
	gittest.Git(t, a, "", "commit", "-q", "-m", "design and plan")
	r := Reopen(t, a)
	if got := r.TrustInfo().Mode; got != "signed" {
		t.Fatalf("mode %s, want signed", got)
	}
	_, err := app.Init(r, app.InitOptions{Feature: "login", Type: "feature"})
	require.NoError(t, err)
	_, err = app.Set(r, app.SetOptions{Feature: "login", Assignments: []string{"artifacts.design=design.md", "artifacts.plan=plan.md"}})
	require.NoError(t, err)
	for _, p := range []string{"plan", "plan-review"} {
		_, err := app.Run(r, "login", workflow.TransitionTo{Phase: p})
		require.NoError(t, err)
	}
	tm.Clones[0], tm.Clones[1] = r, Reopen(t, tm.Dirs[1])
	return &SignedTeam{Team: tm, Alice: alice, Mallory: mallory}
}

// Status is feature's state as `status` shows it.
func Status(t testing.TB, r *app.Repo, feature string) workflow.State {
	t.Helper()
	st, err := app.ShowStatus(r, app.StatusOptions{Feature: feature})
	require.NoError(t, err)
	return st.Status.State
}

// PlainFold is the fold without verdicts, as an agent's own build (or an old binary) writes it.
type PlainFold struct{}

func (PlainFold) Version() string { return workflow.ProjectorVersion }
func (PlainFold) Project(prev json.RawMessage, events []workflow.Event) (json.RawMessage, error) {
	defs, err := workflow.NewDefinitions()
	if err != nil {
		return nil, err
	}
	return workflow.Project(defs, prev, events)
}

// Forge appends a hand-built event the way an agent could (the store directly, the plain fold,
// so its own state.json shows the effect), as the given clone.
func Forge(t testing.TB, r *app.Repo, feature string, ev workflow.NewEvent) {
	t.Helper()
	_, err := r.Store.Append(feature, PlainFold{}, ev)
	require.NoError(t, err)
}

// WriteCommit commits one file on the checked-out branch: work, as far as the workflow can tell.
func WriteCommit(t testing.TB, dir, path, content string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(dir, path)), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, path), []byte(content), 0o644))
	gittest.Git(t, dir, "", "add", path)
	gittest.Git(t, dir, "", "commit", "-q", "-m", "add "+path)
}

// CIClone is a fresh clone of remote with the login branch checked out and the workflow refs, as
// CI has them.
func CIClone(t *testing.T, remote string) string {
	t.Helper()
	ci := filepath.Join(t.TempDir(), "ci")
	gittest.Git(t, filepath.Dir(ci), "", "clone", "-q", "file://"+remote, ci)
	gittest.Git(t, ci, "", "fetch", "-q", "--no-tags", "--force", "origin", "+refs/exarchos/*:refs/exarchos/*", "+refs/heads/login:refs/remotes/origin/login")
	gittest.Git(t, ci, "", "checkout", "-q", "--detach", "origin/login")
	return ci
}

// PushAll publishes the agent's branch and workflow refs to the Team's remote.
func PushAll(t *testing.T, dir string) {
	t.Helper()
	gittest.Git(t, dir, "", "push", "-q", "origin", "HEAD:refs/heads/login")
	_, err := teamsync.Push(Reopen(t, dir).Repo, teamsync.PushOptions{})
	require.NoError(t, err)
}

// WantViolation fails the test unless verify failed with a violation of rule whose message
// contains text.
func WantViolation(t *testing.T, res *verify.Result, err error, rule, text string) {
	t.Helper()
	var failed *verify.Error
	if !errors.As(err, &failed) {
		t.Fatalf("verify passed (%v): %+v", err, res)
	}
	for _, w := range res.Workflows {
		for _, v := range w.Violations {
			if v.Rule == rule && strings.Contains(v.Message, text) {
				return
			}
		}
	}
	t.Fatalf("no %s violation saying %q in %+v", rule, text, res.Workflows)
}

// UnsignedLogin is one clone of a bare remote with no allowed signers, on branch login with a
// feature workflow login in ideate.
func UnsignedLogin(t *testing.T) (*Team, string, *app.Repo) {
	t.Helper()
	tm := NewTeam(t, 1)
	dir := tm.Dirs[0]
	gittest.Git(t, dir, "", "checkout", "-q", "-b", "login")
	r := Reopen(t, dir)
	_, err := app.Init(r, app.InitOptions{Feature: "login", Type: "feature"})
	require.NoError(t, err)
	return tm, dir, r
}

// ActAsAgent makes the commands this test runs in process run as Claude Code's Bash tool runs
// them: in session, and — when agent is not empty — inside the subagent agent, which the hook
// learns as the real client tells it: a PreToolUse payload carrying agent_id and agent_type for
// a Bash call that runs git exarchos.
func ActAsAgent(t testing.TB, dir, session, agent string) {
	t.Helper()
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	t.Setenv("CLAUDE_CODE_SESSION_ID", session)
	t.Setenv("CLAUDECODE", "1")
	t.Setenv("AI_AGENT", "claude-code")
	if agent == "" {
		return
	}
	payload, _ := json.Marshal(map[string]any{
		"session_id": session, "hook_event_name": "PreToolUse", "cwd": dir, "tool_name": "Bash",
		"tool_use_id": "toolu_" + agent, "agent_id": agent, "agent_type": "code-reviewer",
		"tool_input": map[string]string{"command": "git exarchos review"},
	})
	var out, errb bytes.Buffer
	if err := hookrun.ClaudeHook(hookrun.ClaudeHookOptions{Stdin: bytes.NewReader(payload), Stdout: &out, Stderr: &errb}); err != nil {
		t.Fatalf("hook: %v %s", err, errb.String())
	}
}

// ActAsHuman runs what follows in the user's own terminal: no agent variables.
func ActAsHuman(t testing.TB) {
	t.Helper()
	for _, kv := range agentenv.Process() {
		if k, _, _ := strings.Cut(kv, "="); len(agentenv.Strip([]string{kv})) == 0 {
			t.Setenv(k, "") // restored when the test ends
			os.Unsetenv(k)
		}
	}
}

// UseCheckerPaths makes the signature checker be looked for in paths for the rest of the test.
func UseCheckerPaths(t testing.TB, paths ...string) {
	t.Helper()
	old := trust.SSHKeygenPaths
	trust.SSHKeygenPaths = paths
	t.Cleanup(func() { trust.SSHKeygenPaths = old })
}

// NewSagaRepo is gittest.NewProjectRepo, opened, with a workflow "login" bound to main.
func NewSagaRepo(t testing.TB) (string, *app.Repo) {
	t.Helper()
	dir := gittest.NewProjectRepo(t)
	r := Reopen(t, dir)
	_, err := app.Init(r, app.InitOptions{Feature: "login", Type: "feature", Branch: "main"})
	require.NoError(t, err)
	return dir, r
}

// StartWorktree adds task to login and starts it in a worktree of its own; it returns the path.
func StartWorktree(t testing.TB, r *app.Repo, task string) string {
	t.Helper()
	_, err := r.Execute("login", workflow.AddTask{ID: task})
	require.NoError(t, err)
	res, err := saga.StartTask(r.Saga(), saga.TaskStartOptions{Feature: "login", Task: task, Worktree: true})
	require.NoError(t, err)
	return res.Worktree.Path
}

// MustRun runs cmd on feature through app.Run and fails the test on an error.
func MustRun(t testing.TB, r *app.Repo, feature string, cmd workflow.Command) *project.Result {
	t.Helper()
	res, err := app.Run(r, feature, cmd)
	require.NoError(t, err, "%T", cmd)
	return res
}

// InPlanReview is a feature workflow "login" on branch login waiting for a human's approval, with
// one pending and one failed task.
func InPlanReview(t testing.TB) (string, *app.Repo) {
	t.Helper()
	dir := gittest.NewRepoOnBranch(t, "login")
	r := Reopen(t, dir)
	_, err := app.Init(r, app.InitOptions{Feature: "login", Type: "feature"})
	require.NoError(t, err)
	gittest.CommitFile(t, dir, "docs/design.md", "# design\n")
	gittest.CommitFile(t, dir, "docs/plan.md", "# plan\n")
	_, err = app.Set(r, app.SetOptions{Feature: "login", Assignments: []string{"artifacts.design=docs/design.md", "artifacts.plan=docs/plan.md"}})
	require.NoError(t, err)
	MustRun(t, r, "login", workflow.TransitionTo{Phase: "plan"})
	MustRun(t, r, "login", workflow.TransitionTo{Phase: "plan-review"})
	MustRun(t, r, "login", workflow.AddTask{ID: "t1", Title: "store"})
	MustRun(t, r, "login", workflow.AddTask{ID: "t2"})
	MustRun(t, r, "login", workflow.FailTask{ID: "t2", Reason: "no API"})
	return dir, r
}
