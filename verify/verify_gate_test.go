package verify_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/exarchos/git-exarchos/app"
	"github.com/exarchos/git-exarchos/ghevidence"
	"github.com/exarchos/git-exarchos/internal/apptest"
	"github.com/exarchos/git-exarchos/internal/gittest"
	"github.com/exarchos/git-exarchos/trust"
	"github.com/exarchos/git-exarchos/verify"
	"github.com/exarchos/git-exarchos/workflow"
)

// Issue 29: CI's verify is a gate nothing local can fool. CI is a fresh clone of the protected
// origin with the branch and the workflow refs as the agent pushed them, running
// `verify --branch login --base origin/main --require`.

// ciVerify clones the apptest.Team's remote as CI does and verifies the login branch there.
func ciVerify(t *testing.T, st *apptest.SignedTeam) (*verify.Result, error) {
	t.Helper()
	return app.Verify(apptest.Reopen(t, apptest.CIClone(t, st.Remote)), verify.Options{Branch: "login", Base: "origin/main", Require: true})
}

// `git push . HEAD:refs/remotes/origin/main && git exarchos cleanup f --offline` while the plan
// waits on the human: whatever the clone then says, CI's verify fails (the recorded merge is not
// on the base it was given), and locally the moved tracking ref is no base either.
func TestVerifyGateMergeMustBeOnTheGivenBase(t *testing.T) {
	st := apptest.NewSignedTeam(t)
	dir := st.Dirs[0]
	code := "store.go"
	apptest.WriteCommit(t, dir, code, "package login\n")
	gittest.Git(t, dir, "", "push", "-q", ".", "HEAD:refs/remotes/origin/main")
	r := apptest.Reopen(t, dir)
	if b := r.Base(); b.Moved == "" || b.Commit == gittest.Git(t, dir, "", "rev-parse", "HEAD") {
		t.Fatalf("a tracking ref moved by a local push is taken as the base: %+v", b)
	}
	if _, err := app.Cleanup(r, ghevidence.CleanupOptions{Feature: "login", Offline: true}); err == nil {
		t.Log("cleanup completed locally; CI must still refuse it")
	}
	// Whatever the clone recorded, force the record the way the agent got it: the same
	// push, verified against the moved ref by an older binary — a merge.verified and a cleanup.
	head := gittest.Git(t, dir, "", "rev-parse", "HEAD")
	if st := apptest.Status(t, apptest.Reopen(t, dir), "login"); st.Phase != "completed" {
		apptest.Forge(t, apptest.Reopen(t, dir), "login", workflow.NewEvent{Type: workflow.EventMergeVerified, Data: workflow.MergeVerifiedData{Method: "ancestry", Commit: head, Base: "origin/main", HeadSHA: head}})
		apptest.Forge(t, apptest.Reopen(t, dir), "login", workflow.NewEvent{Type: workflow.EventTransitioned, Data: workflow.TransitionedData{From: "plan-review", To: "completed", Trigger: workflow.OnCleanup, Guards: []string{"merge-verified"}, Head: head}})
	}
	apptest.PushAll(t, dir)
	res, err := ciVerify(t, st)
	apptest.WantViolation(t, res, err, "merge", "is not on the base refs/remotes/origin/main")
}

// A script appends workflow.transitioned ideate → completed with trigger cleanup and
// merge-verified recorded as passed (and a snapshot to match): verify derives the guard again and
// fails, whatever the log says passed.
func TestVerifyGateTakesNoRecordedPass(t *testing.T) {
	st := apptest.NewSignedTeam(t)
	dir := st.Dirs[0]
	head := gittest.Git(t, dir, "", "rev-parse", "HEAD")
	apptest.Forge(t, apptest.Reopen(t, dir), "login", workflow.NewEvent{Type: workflow.EventTransitioned, Data: workflow.TransitionedData{From: "plan-review", To: "completed", Trigger: workflow.OnCleanup, Guards: []string{"merge-verified"}, Head: head}})
	apptest.PushAll(t, dir)
	res, err := ciVerify(t, st)
	apptest.WantViolation(t, res, err, "guard", "recorded guard merge-verified as passed, but verify finds")

	// The same with no head recorded: nothing to derive it from is a violation too.
	st2 := apptest.NewSignedTeam(t)
	apptest.Forge(t, apptest.Reopen(t, st2.Dirs[0]), "login", workflow.NewEvent{Type: workflow.EventTransitioned, Data: workflow.TransitionedData{From: "plan-review", To: "completed", Trigger: workflow.OnCleanup, Guards: []string{"merge-verified"}}})
	apptest.PushAll(t, st2.Dirs[0])
	res, err = ciVerify(t, st2)
	apptest.WantViolation(t, res, err, "guard", "no branch head")
}

// A branch whose workflow is still in ideate, with code committed on it, fails --require twice
// over: the phase does not merge, and its commits changed what ideate does not allow.
func TestVerifyGateRequireRefusesABranchStillPlanning(t *testing.T) {
	tm, dir, _ := apptest.UnsignedLogin(t)
	apptest.WriteCommit(t, dir, "store.go", "package login\n")
	apptest.PushAll(t, dir)
	res, err := ciVerify(t, &apptest.SignedTeam{Team: tm})
	apptest.WantViolation(t, res, err, "phase", "login is in ideate")
	apptest.WantViolation(t, res, err, "paths", "changed store.go while the workflow was in ideate")
}

// `git fast-import --force` rewinds the workflow ref past a refused decision after it was pushed:
// verify fails on the rewind.
func TestVerifyGateRefusesARewind(t *testing.T) {
	st := apptest.NewSignedTeam(t)
	dir := st.Dirs[0]
	before := gittest.Git(t, dir, "", "rev-parse", "refs/exarchos/login")
	apptest.UseKey(t, dir, st.Mallory)
	if _, err := app.Run(apptest.Reopen(t, dir), "login", workflow.Approve{Note: "mine"}); err == nil {
		t.Fatal("mallory's approval was taken")
	}
	apptest.PushAll(t, dir)
	gittest.Git(t, dir, "reset refs/exarchos/login\nfrom "+before+"\n\n", "fast-import", "--force", "--quiet")
	if got := gittest.Git(t, dir, "", "rev-parse", "refs/exarchos/login"); got != before {
		t.Fatalf("fast-import left the ref at %s", got)
	}
	res, err := app.Verify(apptest.Reopen(t, dir), verify.Options{Feature: "login"})
	apptest.WantViolation(t, res, err, "rewind", "does not descend from origin's copy")
}

// A refused decision blocks verify until a human acknowledges it with a signed decision that
// names it; verify then passes and reports both.
func TestVerifyGateRefusedDecisionCanBeAcknowledged(t *testing.T) {
	st := apptest.NewSignedTeam(t)
	dir := st.Dirs[0]
	apptest.UseKey(t, dir, st.Mallory)
	if _, err := app.Run(apptest.Reopen(t, dir), "login", workflow.Approve{Note: "mine"}); err == nil {
		t.Fatal("mallory's approval was taken")
	}
	res, err := app.Verify(apptest.Reopen(t, dir), verify.Options{Feature: "login"})
	apptest.WantViolation(t, res, err, "decision", "git exarchos acknowledge login")
	refused := apptest.Status(t, apptest.Reopen(t, dir), "login").Refused[0].ID

	// mallory cannot acknowledge her own forgery: her acknowledgement is refused as well.
	if _, err := app.Run(apptest.Reopen(t, dir), "login", workflow.Acknowledge{Event: refused, Reason: "fine"}); err == nil {
		t.Fatal("mallory's acknowledgement was taken")
	}
	if _, err := app.Verify(apptest.Reopen(t, dir), verify.Options{Feature: "login"}); err == nil {
		t.Fatal("verify passed on an acknowledgement by a key that is not allowed")
	}

	apptest.UseKey(t, dir, st.Alice)
	if _, err := app.Run(apptest.Reopen(t, dir), "login", workflow.Acknowledge{Event: "ev-none", Reason: "x"}); err == nil {
		t.Fatal("an acknowledgement of no refused decision was taken")
	}
	if _, err := app.Run(apptest.Reopen(t, dir), "login", workflow.Acknowledge{Event: refused, Reason: "mallory's test key; approved properly below"}); err != nil {
		t.Fatal(err)
	}
	// mallory's own refused acknowledgement is still a violation until alice names it too.
	for _, f := range apptest.Status(t, apptest.Reopen(t, dir), "login").Refused {
		if f.Acknowledged == "" {
			_, err := app.Run(apptest.Reopen(t, dir), "login", workflow.Acknowledge{Event: f.ID, Reason: "seen"})
			require.NoError(t, err)
		}
	}
	res, err = app.Verify(apptest.Reopen(t, dir), verify.Options{Feature: "login"})
	require.NoError(t, err, "verify after the acknowledgements")
	w := res.Workflows[0]
	if len(w.Acknowledged) != 2 || w.Acknowledged[0].Event != refused || w.Acknowledged[0].By == "" || w.Acknowledged[0].Kind != workflow.KindApprove {
		t.Fatalf("verify reports %+v", w.Acknowledged)
	}
	if st := apptest.Status(t, apptest.Reopen(t, dir), "login"); len(st.Approvals) != 0 || st.Phase != "plan-review" {
		t.Fatalf("an acknowledgement gave the refused approval effect: %+v", st.Approvals)
	}
}

// The signature checker is never chosen by the repository: gpg.ssh.program in .git/config, the
// same through `git -c` (GIT_CONFIG_PARAMETERS), or a fake ssh-keygen first on PATH, each of which
// accepts every signature, makes no decision of mallory's count, even with the verdicts checked
// afresh.
func TestVerifyGateCheckerComesFromAFixedPlace(t *testing.T) {
	st := apptest.NewSignedTeam(t)
	dir := st.Dirs[0]
	apptest.UseKey(t, dir, st.Mallory)
	_, _ = app.Run(apptest.Reopen(t, dir), "login", workflow.Approve{Note: "mine"})
	fake := filepath.Join(t.TempDir(), "ssh-keygen")
	if err := os.WriteFile(fake, []byte("#!/bin/sh\n# find-principals names alice; verify says yes\necho alice@example.com\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	gittest.Git(t, dir, "", "config", "gpg.ssh.program", fake)
	t.Setenv("GIT_CONFIG_PARAMETERS", "'gpg.ssh.program'='"+fake+"'")
	t.Setenv("PATH", filepath.Dir(fake)+string(os.PathListSeparator)+os.Getenv("PATH"))
	common := gittest.Git(t, dir, "", "rev-parse", "--git-common-dir")
	if !filepath.IsAbs(common) {
		common = filepath.Join(dir, common)
	}
	os.RemoveAll(filepath.Join(common, "exarchos", "verdicts"))
	r := apptest.Reopen(t, dir)
	got, _, err := r.State("login")
	require.NoError(t, err)
	if len(got.Approvals) != 0 || len(got.Refused) != 1 {
		t.Fatalf("a fake checker made mallory's approval count: approvals %+v refused %+v", got.Approvals, got.Refused)
	}
	if _, err := app.Verify(r, verify.Options{Feature: "login"}); err == nil {
		t.Fatal("verify passed with a fake checker")
	}
}

// A locally moved origin/main (a commit naming the agent's key as an allowed signer) and
// exarchos.definitionsRef written into .git/config make no key of the agent's a signer.
func TestVerifyGateSignersComeFromTheFetchedBase(t *testing.T) {
	st := apptest.NewSignedTeam(t)
	dir := st.Dirs[0]
	pub, err := os.ReadFile(st.Mallory + ".pub")
	require.NoError(t, err)
	gittest.Git(t, dir, "", "checkout", "-q", "-b", "evil", "origin/main")
	os.WriteFile(filepath.Join(dir, trust.AllowedSignersPath), []byte("mallory namespaces=\"git-exarchos\" "+strings.TrimSpace(string(pub))+"\n"), 0o644)
	gittest.Git(t, dir, "", "commit", "-q", "-am", "me too")
	gittest.Git(t, dir, "", "push", "-q", ".", "HEAD:refs/remotes/origin/main")
	gittest.Git(t, dir, "", "config", "exarchos.definitionsRef", "refs/heads/evil")
	gittest.Git(t, dir, "", "checkout", "-q", "login")
	apptest.UseKey(t, dir, st.Mallory)
	_, _ = app.Run(apptest.Reopen(t, dir), "login", workflow.Approve{Note: "mine"})
	got := apptest.Status(t, apptest.Reopen(t, dir), "login")
	if len(got.Approvals) != 0 || len(got.Refused) != 1 {
		t.Fatalf("mallory made herself a signer: approvals %+v refused %+v (base %+v)", got.Approvals, got.Refused, apptest.Reopen(t, dir).Base())
	}
	if b := apptest.Reopen(t, dir).Base(); b.Moved == "" || !strings.Contains(b.Moved, "not by a fetch") {
		t.Fatalf("the base does not say it was moved: %+v", b)
	}
	// A fetch makes the tracking ref the remote's again.
	gittest.Git(t, dir, "", "fetch", "-q", "--force", "origin", "+refs/heads/main:refs/remotes/origin/main")
	if b := apptest.Reopen(t, dir).Base(); b.Moved != "" {
		t.Fatalf("after a fetch: %+v", b)
	}
}

// `signers add --role replace` is accepted: replace is a decision kind (README), so it is a role.
func TestSignersAddTakesEveryDecisionKindAsARole(t *testing.T) {
	tm := apptest.NewTeam(t, 1)
	key, _ := apptest.SSHKey(t, t.TempDir(), "lead")
	for _, role := range workflow.DecisionKinds() {
		_, err := trust.SignersAdd(apptest.Reopen(t, tm.Dirs[0]).Repo, trust.SignersAddOptions{Principal: "lead-" + role + "@example.com", KeyFile: key + ".pub", Roles: []string{role}})
		require.NoError(t, err, "role %s", role)
	}
}

// The verdict cache never outlives the checker: a verdict a fake checker gave (here the fake sits
// where the checker is looked for) is not reused once the real one is back, and the other way
// round.
func TestVerifyGateVerdictCacheIsKeyedToTheChecker(t *testing.T) {
	st := apptest.NewSignedTeam(t)
	dir := st.Dirs[0]
	apptest.UseKey(t, dir, st.Mallory)
	_, _ = app.Run(apptest.Reopen(t, dir), "login", workflow.Approve{Note: "mine"})
	bin := t.TempDir()
	real, err := exec.LookPath("ssh-keygen")
	require.NoError(t, err)
	b, err := os.ReadFile(real)
	require.NoError(t, err)
	checker := filepath.Join(bin, "ssh-keygen")
	require.NoError(t, os.WriteFile(checker, b, 0o755))
	apptest.UseCheckerPaths(t, checker)
	approvals := func() int {
		t.Helper()
		st, _, err := apptest.Reopen(t, dir).State("login")
		require.NoError(t, err)
		return len(st.Approvals)
	}
	if n := approvals(); n != 0 {
		t.Fatalf("the real checker took mallory's approval")
	}
	// The checker is replaced by one that says yes to everything: its verdict is its own.
	fake := "#!/bin/sh\necho alice@example.com\nexit 0\n"
	require.NoError(t, os.Remove(checker))
	require.NoError(t, os.WriteFile(checker, []byte(fake), 0o755))
	if n := approvals(); n != 1 {
		t.Fatalf("the fake checker's verdict was not asked for (a cached verdict outlived the checker): %d approvals", n)
	}
	// The real checker is back: the fake's verdict is not reused.
	require.NoError(t, os.Remove(checker))
	require.NoError(t, os.WriteFile(checker, b, 0o755))
	if n := approvals(); n != 0 {
		t.Fatalf("a verdict of the fake checker outlived it: %d approvals", n)
	}
}

// A task completed by a hand-built event with no commit of its own is a violation: verify checks
// the head the way task done decides it.
func TestVerifyGateTaskWithoutWork(t *testing.T) {
	_, dir, r := apptest.UnsignedLogin(t)
	head := gittest.Git(t, dir, "", "rev-parse", "HEAD")
	apptest.Forge(t, r, "login", workflow.NewEvent{Type: workflow.EventTaskAdded, Data: workflow.TaskData{ID: "t1", Start: head}})
	apptest.Forge(t, apptest.Reopen(t, dir), "login", workflow.NewEvent{Type: workflow.EventTaskCompleted, Data: workflow.TaskData{ID: "t1", HeadSHA: head}})
	res, err := app.Verify(apptest.Reopen(t, dir), verify.Options{Feature: "login"})
	apptest.WantViolation(t, res, err, "task", "where it started: it has no commit of its own")
}

// A task completed by a hand-built event whose commits are no work (empty, whitespace, a comment:
// what task done refuses, issue 38 item 3) is a violation: verify judges the task's commits the
// way task done does, so an event written around the command does not pass CI.
func TestVerifyGateTaskWithNoWork(t *testing.T) {
	for _, c := range []struct{ name, file, before, after string }{
		{"empty commit", "", "", ""},
		{"whitespace", "login.go", "package main\n\nfunc login() bool { return true }\n", "package main\n\nfunc login() bool {   return true }\n\n"},
		{"a comment", "login.go", "package main\n\nfunc login() bool { return true }\n", "package main\n\n// login logs in.\nfunc login() bool { return true } // TODO\n"},
		{"a comment in a new file", "notes.py", "", "# to do: log in\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, dir, r := apptest.UnsignedLogin(t)
			if c.before != "" {
				gittest.CommitFile(t, dir, c.file, c.before)
			}
			start := gittest.Git(t, dir, "", "rev-parse", "HEAD")
			if c.file == "" {
				gittest.Git(t, dir, "", "commit", "--allow-empty", "-m", "task t1")
			} else {
				gittest.CommitFile(t, dir, c.file, c.after)
			}
			head := gittest.Git(t, dir, "", "rev-parse", "HEAD")
			apptest.Forge(t, r, "login", workflow.NewEvent{Type: workflow.EventTaskAdded, Data: workflow.TaskData{ID: "t1", Start: start}})
			apptest.Forge(t, apptest.Reopen(t, dir), "login", workflow.NewEvent{Type: workflow.EventTaskCompleted, Data: workflow.TaskData{ID: "t1", HeadSHA: head}})
			res, err := app.Verify(apptest.Reopen(t, dir), verify.Options{Feature: "login"})
			apptest.WantViolation(t, res, err, "task", "no work")
		})
	}
	// The neighbour that must pass: the same forged events over a commit that changes code.
	_, dir, r := apptest.UnsignedLogin(t)
	start := gittest.Git(t, dir, "", "rev-parse", "HEAD")
	gittest.CommitFile(t, dir, "login.go", "package main\n\nfunc login() bool { return true }\n")
	head := gittest.Git(t, dir, "", "rev-parse", "HEAD")
	apptest.Forge(t, r, "login", workflow.NewEvent{Type: workflow.EventTaskAdded, Data: workflow.TaskData{ID: "t1", Start: start}})
	apptest.Forge(t, apptest.Reopen(t, dir), "login", workflow.NewEvent{Type: workflow.EventTaskCompleted, Data: workflow.TaskData{ID: "t1", HeadSHA: head}})
	res, _ := app.Verify(apptest.Reopen(t, dir), verify.Options{Feature: "login"})
	for _, w := range res.Workflows {
		for _, v := range w.Violations {
			if v.Rule == "task" {
				t.Fatalf("a task with real work is a violation: %+v", v)
			}
		}
	}
}
