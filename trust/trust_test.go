package trust_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/exarchos/git-exarchos/app"
	"github.com/exarchos/git-exarchos/ghevidence"
	"github.com/exarchos/git-exarchos/gitstore"
	"github.com/exarchos/git-exarchos/internal/apptest"
	"github.com/exarchos/git-exarchos/internal/gittest"
	"github.com/exarchos/git-exarchos/signing"
	"github.com/exarchos/git-exarchos/teamsync"
	"github.com/exarchos/git-exarchos/verify"
	"github.com/exarchos/git-exarchos/views"
	"github.com/exarchos/git-exarchos/workflow"
)

func TestSignedDecisionRecordsThePrincipal(t *testing.T) {
	st := apptest.NewSignedTeam(t)
	a, dir := st.Clones[0], st.Dirs[0]

	// No key: nothing is recorded, and the error says how to configure one.
	before := apptest.Status(t, a, "login").Events
	_, err := app.Run(a, "login", workflow.Approve{Note: "lgtm"})
	if err == nil || !strings.Contains(err.Error(), "user.signingKey") {
		t.Fatalf("unsigned approve: %v", err)
	}
	if got := apptest.Status(t, a, "login").Events; got != before {
		t.Fatalf("an unsigned approve appended %d events", got-before)
	}

	// Spoofed name, real key: the actor is the signer's principal.
	gittest.Git(t, dir, "", "config", "user.name", "Jane Lead")
	apptest.UseKey(t, dir, st.Alice+".pub")
	a = apptest.Reopen(t, dir)
	res, err := app.Run(a, "login", workflow.Approve{Note: "lgtm"})
	require.NoError(t, err)
	if n := len(res.State.Approvals); n != 1 || res.State.Approvals[0].Actor != "alice@example.com" {
		t.Fatalf("approvals %+v, want one by alice@example.com", res.State.Approvals)
	}
	if res.Appended[0].Sig == nil || res.Appended[0].Sig.Head == "" {
		t.Fatalf("approval not signed: %+v", res.Appended[0])
	}
	// A fresh reader (folding again, with verdicts from the cache or ssh-keygen) agrees.
	os.RemoveAll(filepath.Join(dir, ".git", "exarchos", "verdicts"))
	if got := apptest.Status(t, apptest.Reopen(t, dir), "login"); len(got.Approvals) != 1 || len(got.Refused) != 0 {
		t.Fatalf("reread: approvals %+v refused %+v", got.Approvals, got.Refused)
	}
	_, err = app.Run(a, "login", workflow.TransitionTo{Phase: "delegate"})
	require.NoError(t, err, "approved plan does not open delegate")
}

func TestUnknownKeyDecisionHasNoEffect(t *testing.T) {
	st := apptest.NewSignedTeam(t)
	dir := st.Dirs[0]
	apptest.UseKey(t, dir, st.Mallory)
	a := apptest.Reopen(t, dir)
	res, err := app.Run(a, "login", workflow.Approve{Note: "self-approved"})
	var rej *workflow.Rejection
	if !errors.As(err, &rej) || rej.Code != app.CodeDecisionRefused {
		t.Fatalf("want %s, got %v", app.CodeDecisionRefused, err)
	}
	if len(res.State.Approvals) != 0 || len(res.State.Refused) != 1 || !strings.Contains(res.State.Refused[0].Reason, "not in") {
		t.Fatalf("approvals %+v refused %+v", res.State.Approvals, res.State.Refused)
	}
	if _, err := app.Run(a, "login", workflow.TransitionTo{Phase: "delegate"}); err == nil {
		t.Fatal("a refused approval opened delegate")
	}
	fsck, err := app.Fsck(a, views.FsckOptions{Feature: "login"})
	if err != nil || fsck.Refused != 1 {
		t.Fatalf("fsck refused %d, %v", fsck.Refused, err)
	}
}

// signedApproval makes a correct alice signature over an approval of feature at head.
func signedApproval(t testing.TB, key, feature, head, note string) workflow.NewEvent {
	return signedEvent(t, key, feature, head, workflow.EventPlanApproved, workflow.DecisionData{Phase: "plan-review", Note: note, Actor: "alice"})
}

// signedEvent is a decision of type typ signed with key on head of feature, as the CLI signs one.
func signedEvent(t testing.TB, key, feature, head, typ string, data any) workflow.NewEvent {
	t.Helper()
	now := time.Now().UTC().Truncate(time.Millisecond)
	n := workflow.NewEvent{Type: typ, ID: gitstore.NewID(now), Time: now, Data: data}
	e, err := n.Stamp(n.ID, 0, now, "", 0)
	require.NoError(t, err)
	format, sig, err := signing.Sign(signing.Config{Format: "ssh", SigningKey: key}, workflow.SigningPayload(feature, e, head))
	require.NoError(t, err)
	n.Sig = &workflow.Signature{Format: format, Head: head, Sig: sig}
	return n
}

func TestForgedDecisionsHaveNoEffect(t *testing.T) {
	st := apptest.NewSignedTeam(t)
	dir := st.Dirs[0]
	head := func() string { return gittest.Git(t, dir, "", "rev-parse", "refs/exarchos/login") }
	cases := []struct {
		name, reason string
		ev           func() workflow.NewEvent
	}{
		{"unsigned", "unsigned", func() workflow.NewEvent {
			return workflow.NewEvent{Type: workflow.EventPlanApproved, Data: workflow.DecisionData{Phase: "plan-review", Actor: "Jane Lead"}}
		}},
		{"tampered data", "bad signature", func() workflow.NewEvent {
			n := signedApproval(t, st.Alice, "login", head(), "approve the small plan")
			n.Data = workflow.DecisionData{Phase: "plan-review", Note: "approve anything", Actor: "alice"}
			return n
		}},
		{"another feature", "bad signature", func() workflow.NewEvent {
			return signedApproval(t, st.Alice, "other", head(), "for another workflow")
		}},
		{"another head", "replayed", func() workflow.NewEvent {
			return signedApproval(t, st.Alice, "login", gittest.Git(t, dir, "", "rev-parse", "main"), "made on another state")
		}},
		{"unknown key", "not in", func() workflow.NewEvent {
			return signedApproval(t, st.Mallory, "login", head(), "mallory")
		}},
	}
	for i, c := range cases {
		apptest.Forge(t, st.Clones[0], "login", c.ev())
		got := apptest.Status(t, apptest.Reopen(t, dir), "login")
		if len(got.Approvals) != 0 {
			t.Fatalf("%s: forged approval took effect: %+v", c.name, got.Approvals)
		}
		if len(got.Refused) != i+1 || !strings.Contains(got.Refused[i].Reason, c.reason) {
			t.Fatalf("%s: refused %+v, want reason %q", c.name, got.Refused, c.reason)
		}
	}
	// The genuine article, made the same way, counts: the refusals above were not a broken check.
	apptest.Forge(t, st.Clones[0], "login", signedApproval(t, st.Alice, "login", head(), "real"))
	if got := apptest.Status(t, apptest.Reopen(t, dir), "login"); len(got.Approvals) != 1 || got.Approvals[0].Actor != "alice@example.com" {
		t.Fatalf("genuine signed approval: %+v", got.Approvals)
	}
}

func TestForgedApprovalArrivingByPullChangesNothing(t *testing.T) {
	st := apptest.NewSignedTeam(t)
	a, b := st.Clones[0], st.Clones[1]
	_, err := teamsync.Push(a.Repo, teamsync.PushOptions{})
	require.NoError(t, err)
	_, err = teamsync.Pull(b.Repo, teamsync.PullOptions{})
	require.NoError(t, err)
	// The agent's clone: a hand-built approval whose own snapshot says "approved", pushed.
	apptest.Forge(t, b, "login", workflow.NewEvent{Type: workflow.EventPlanApproved, Data: workflow.DecisionData{Phase: "plan-review", Actor: "Jane Lead"}})
	gittest.Git(t, st.Dirs[1], "", "push", "-q", "origin", "refs/exarchos/login:refs/exarchos/login")
	_, err = teamsync.Pull(a.Repo, teamsync.PullOptions{})
	require.NoError(t, err)
	got := apptest.Status(t, apptest.Reopen(t, st.Dirs[0]), "login")
	if len(got.Approvals) != 0 || len(got.Refused) != 1 {
		t.Fatalf("after pull: approvals %+v refused %+v", got.Approvals, got.Refused)
	}
	if _, err := app.Run(apptest.Reopen(t, st.Dirs[0]), "login", workflow.TransitionTo{Phase: "delegate"}); err == nil {
		t.Fatal("the pulled forgery opened delegate")
	}
}

// completeSigned drives the signed apptest.Team's workflow to completed with alice's key.
func completeSigned(t *testing.T, st *apptest.SignedTeam) *app.Repo {
	t.Helper()
	dir := st.Dirs[0]
	apptest.UseKey(t, dir, st.Alice)
	r := apptest.Reopen(t, dir)
	run := func(steps ...workflow.Command) {
		t.Helper()
		for _, c := range steps {
			_, err := app.Run(r, "login", c)
			require.NoError(t, err, "%T", c)
		}
	}
	run(workflow.Approve{Note: "ok"}, workflow.TransitionTo{Phase: "delegate"}, workflow.AddTask{ID: "t1", Title: "store"})
	apptest.WriteCommit(t, dir, "store.go", "package login\n")
	run(workflow.CompleteTask{ID: "t1"}, workflow.TransitionTo{Phase: "review"})
	apptest.ActAsAgent(t, dir, "s-review", "a-reviewer") // reviews by a reviewer subagent
	r = apptest.Reopen(t, dir)                           // a new process: the environment is read when the repository opens
	run(workflow.RecordReview{Dimension: "spec", Pass: true}, workflow.RecordReview{Dimension: "quality", Pass: true})
	apptest.ActAsHuman(t)
	r = apptest.Reopen(t, dir)
	run(workflow.TransitionTo{Phase: "synthesize"})
	tip := gittest.Git(t, dir, "", "rev-parse", "HEAD")
	gittest.Git(t, dir, "", "push", "-q", "origin", "HEAD:main") // the pull request is merged: the base holds it
	url := "https://github.com/acme/app/pull/7"
	for _, c := range []workflow.Command{
		workflow.LinkPR{URL: url, Number: 7},
		workflow.ObservePR{PRObservation: workflow.PRObservation{Number: 7, URL: url, Head: "login", Base: "main", HeadSHA: tip, State: "closed", Merged: true, MergeCommitSHA: tip, Checks: "success"}},
		workflow.Cleanup{},
	} {
		_, err := app.Run(r, "login", c)
		require.NoError(t, err, "%T", c)
	}
	return r
}

func verifyFails(t *testing.T, dir, rule string) *verify.Result {
	t.Helper()
	res, err := app.Verify(apptest.Reopen(t, dir), verify.Options{Feature: "login"})
	var failed *verify.Error
	if !errors.As(err, &failed) {
		t.Fatalf("verify passed (%v): %+v", err, res)
	}
	for _, v := range res.Workflows[0].Violations {
		if v.Rule == rule {
			return res
		}
	}
	t.Fatalf("no %s violation in %+v", rule, res.Workflows[0].Violations)
	return nil
}

func TestVerifyPassesACompletedSignedWorkflow(t *testing.T) {
	st := apptest.NewSignedTeam(t)
	completeSigned(t, st)
	res, err := app.Verify(apptest.Reopen(t, st.Dirs[0]), verify.Options{All: true})
	require.NoError(t, err, "verify")
	if w := res.Workflows[0]; w.Phase != "completed" || w.Decisions != 1 || len(w.Violations) != 0 || res.Trust.Mode != "signed" {
		t.Fatalf("verify result %+v", res)
	}
}

func TestVerifyFailsAHandEditedSnapshot(t *testing.T) {
	st := apptest.NewSignedTeam(t)
	dir := st.Dirs[0]
	// Rewrite state.json in the ref's tip: phase plan-review → delegate, as an agent with git could.
	ref := "refs/exarchos/login"
	raw := gittest.Git(t, dir, "", "cat-file", "blob", ref+":state.json")
	edited := strings.Replace(raw, `"phase":"plan-review"`, `"phase":"delegate"`, 1)
	if edited == raw {
		t.Fatalf("no phase in %s", raw)
	}
	blobFile := filepath.Join(t.TempDir(), "state.json")
	os.WriteFile(blobFile, []byte(edited), 0o644)
	blob := gittest.Git(t, dir, "", "hash-object", "-w", blobFile)
	var entries []string
	for _, l := range strings.Split(gittest.Git(t, dir, "", "ls-tree", ref), "\n") {
		if strings.HasSuffix(l, "\tstate.json") {
			l = "100644 blob " + blob + "\tstate.json"
		}
		entries = append(entries, l)
	}
	tree := gittest.Git(t, dir, strings.Join(entries, "\n")+"\n", "mktree")
	commit := gittest.Git(t, dir, "", "commit-tree", tree, "-p", ref, "-m", "edit")
	gittest.Git(t, dir, "", "update-ref", ref, commit)
	verifyFails(t, dir, "snapshot")
}

func TestVerifyFailsAHandBuiltApproval(t *testing.T) {
	st := apptest.NewSignedTeam(t)
	dir := st.Dirs[0]
	apptest.Forge(t, st.Clones[0], "login", workflow.NewEvent{Type: workflow.EventPlanApproved, Data: workflow.DecisionData{Phase: "plan-review", Actor: "Jane Lead"}})
	res := verifyFails(t, dir, "decision")
	verifyFails(t, dir, "snapshot") // its own state.json gave the forgery effect
	_ = res
}

func TestVerifyFailsASkippedGuardedTransition(t *testing.T) {
	st := apptest.NewSignedTeam(t)
	dir := st.Dirs[0]
	// plan-review → delegate with no approval: once claiming the guard passed, once not naming it.
	apptest.Forge(t, st.Clones[0], "login", workflow.NewEvent{Type: workflow.EventTransitioned, Data: workflow.TransitionedData{From: "plan-review", To: "delegate", Trigger: workflow.OnTransition, Guards: []string{"plan-approved"}}})
	res := verifyFails(t, dir, "guard")
	if !strings.Contains(res.Workflows[0].Violations[0].Message, "not been approved") {
		t.Fatalf("violation %+v", res.Workflows[0].Violations)
	}
	st2 := apptest.NewSignedTeam(t)
	apptest.Forge(t, st2.Clones[0], "login", workflow.NewEvent{Type: workflow.EventTransitioned, Data: workflow.TransitionedData{From: "plan-review", To: "delegate", Trigger: workflow.OnTransition}})
	res = verifyFails(t, st2.Dirs[0], "guard")
	if !strings.Contains(res.Workflows[0].Violations[0].Message, "skips guard plan-approved") {
		t.Fatalf("violation %+v", res.Workflows[0].Violations)
	}
}

func TestAuditAndRehydrateShowRefusedDecisions(t *testing.T) {
	st := apptest.NewSignedTeam(t)
	apptest.Forge(t, st.Clones[0], "login", workflow.NewEvent{Type: workflow.EventPlanApproved, Data: workflow.DecisionData{Phase: "plan-review", Actor: "Jane Lead"}})
	r := apptest.Reopen(t, st.Dirs[0])
	a, err := app.ShowAudit(r, views.AuditOptions{Feature: "login"})
	require.NoError(t, err)
	last := a.Entries[len(a.Entries)-1]
	if last.Type != workflow.EventPlanApproved || !strings.Contains(last.Refused, "unsigned") {
		t.Fatalf("audit's last entry %+v", last)
	}
	h, err := app.Rehydrate(r, views.RehydrateOptions{Feature: "login"})
	if err != nil || !strings.Contains(h.Context, "Refused approve decision") {
		t.Fatalf("rehydrate: %v\n%s", err, h.Context)
	}
}

func TestUnsignedModeSaysDecisionsAreNotProtected(t *testing.T) {
	_, dir, r := apptest.UnsignedLogin(t)
	s, err := app.ShowStatus(r, app.StatusOptions{Feature: "login"})
	if err != nil || s.Status.Trust.Mode != "unsigned" || !strings.Contains(s.Status.Trust.Note, "git exarchos setup --signer --commit") {
		t.Fatalf("status trust %+v %v", s.Status.Trust, err)
	}
	h, err := app.Rehydrate(r, views.RehydrateOptions{Feature: "login"})
	if err != nil || !strings.Contains(h.Context, "not protected") {
		t.Fatalf("rehydrate: %v\n%s", err, h.Context)
	}
	// An unprotected key file is named as protecting nothing.
	key, _ := apptest.SSHKey(t, t.TempDir(), "plain")
	apptest.UseKey(t, dir, key)
	if w := apptest.Reopen(t, dir).TrustInfo().KeyWarning; !strings.Contains(w, "protects nothing") {
		t.Fatalf("key warning %q", w)
	}
}

// A decision that moves the workflow (reject, cleanup --override) signs each of its events that
// is a decision; the rest of the batch is stamped as usual.
func TestSignedRejectAndOverride(t *testing.T) {
	st := apptest.NewSignedTeam(t)
	apptest.UseKey(t, st.Dirs[0], st.Alice)
	r := apptest.Reopen(t, st.Dirs[0])
	res, err := app.Run(r, "login", workflow.Reject{Gaps: "tests"})
	require.NoError(t, err)
	if res.State.Phase != "plan" || res.State.Revisions != 1 || len(res.Appended) != 2 || res.Appended[1].Sig == nil {
		t.Fatalf("reject: phase %s revisions %d appended %+v", res.State.Phase, res.State.Revisions, res.Appended)
	}
	out, err := app.Cleanup(r, ghevidence.CleanupOptions{Feature: "login", Override: true, Reason: "merged by hand"})
	require.NoError(t, err)
	got := apptest.Status(t, apptest.Reopen(t, st.Dirs[0]), "login")
	if got.Phase != "completed" || len(got.Refused) != 0 || got.Overrides[0].Actor != "alice@example.com" {
		t.Fatalf("cleanup --override: %+v phase %s refused %+v overrides %+v", out, got.Phase, got.Refused, got.Overrides)
	}
	_, err = app.Verify(apptest.Reopen(t, st.Dirs[0]), verify.Options{Feature: "login"})
	require.NoError(t, err, "verify")
}
