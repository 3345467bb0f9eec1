package trust_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/exarchos/git-exarchos/app"
	"github.com/exarchos/git-exarchos/engine"
	"github.com/exarchos/git-exarchos/hookrun"
	"github.com/exarchos/git-exarchos/internal/apptest"
	"github.com/exarchos/git-exarchos/internal/gittest"
	"github.com/exarchos/git-exarchos/trust"
	"github.com/exarchos/git-exarchos/verify"
	"github.com/exarchos/git-exarchos/views"
	"github.com/exarchos/git-exarchos/workflow"
)

// Starting a workflow of another type on a branch whose workflow did not complete is a human
// decision: in signed mode it needs a good signature, and without one the new workflow never
// starts (it is inert, says why, and the branch stays with the workflow it had).
func TestReplacingAWorkflowIsASignedDecision(t *testing.T) {
	st := apptest.NewSignedTeam(t)
	dir := st.Dirs[0]
	r := apptest.Reopen(t, dir)

	// No key: nothing is created, and the error says how to configure one.
	if _, err := app.Init(r, app.InitOptions{Feature: "quick", Type: "oneshot", Human: true}); err == nil || !strings.Contains(err.Error(), "user.signingKey") {
		t.Fatalf("unsigned replacement: %v", err)
	}
	if _, ok, _ := r.Store.Head("quick"); ok {
		t.Fatal("an unsigned replacement created its workflow")
	}

	// A key not allowed: recorded without effect, the workflow inert, the reason shown.
	apptest.UseKey(t, dir, st.Mallory)
	r = apptest.Reopen(t, dir)
	res, err := app.Init(r, app.InitOptions{Feature: "quick", Type: "oneshot", Human: true})
	var rej *workflow.Rejection
	if !errors.As(err, &rej) || rej.Code != engine.CodeDecisionRefused || res == nil {
		t.Fatalf("want %s, got %v", engine.CodeDecisionRefused, err)
	}
	got := apptest.Status(t, apptest.Reopen(t, dir), "quick")
	if got.Started() || got.Branch != "" || len(got.Refused) != 1 || got.Refused[0].Kind != workflow.KindReplace || !strings.Contains(got.Refused[0].Reason, "not in") {
		t.Fatalf("refused replacement: started %v branch %q refused %+v", got.Started(), got.Branch, got.Refused)
	}
	if f := got.RefusedStart(); f == nil || got.Feature != "quick" {
		t.Fatalf("status does not say the start was refused: %+v", got)
	}
	_, err = app.Run(apptest.Reopen(t, dir), "quick", workflow.TransitionTo{Phase: "implementing"})
	if !errors.As(err, &rej) || rej.Code != workflow.CodeNotStarted || !strings.Contains(rej.Message, "refused") {
		t.Fatalf("a command on the refused workflow: %v", err)
	}
	// The branch is still the feature workflow's.
	if f, err := apptest.Reopen(t, dir).ResolveFeature(""); err != nil || f != "login" {
		t.Fatalf("branch login resolves to %q, %v; want login", f, err)
	}

	// A hand-built replacement (no signature, the plain fold) has no effect either.
	forged := workflow.NewEvent{Type: workflow.EventStarted,
		Data: workflow.StartedData{Feature: "forged", Type: "oneshot", Branch: "login", Phase: "implementing", Replaces: []string{"login"}, Human: true}}
	_, err = r.Store.Create("forged", apptest.PlainFold{}, []workflow.NewEvent{forged})
	require.NoError(t, err)
	if got := apptest.Status(t, apptest.Reopen(t, dir), "forged"); got.Started() || len(got.Refused) != 1 || !strings.Contains(got.Refused[0].Reason, "unsigned") {
		t.Fatalf("forged replacement: started %v refused %+v", got.Started(), got.Refused)
	}
	if fsck, err := views.Fsck(apptest.Reopen(t, dir).Hook(), views.FsckOptions{Feature: "forged"}); err != nil || fsck.Refused != 1 {
		t.Fatalf("fsck refused %d, %v", fsck.Refused, err)
	}
	vres, err := verify.Verify(&verify.Repo{Repo: apptest.Reopen(t, dir).Repo}, verify.Options{Feature: "forged"})
	var failed *verify.Error
	if !errors.As(err, &failed) || len(vres.Workflows) != 1 || len(vres.Workflows[0].Violations) == 0 ||
		vres.Workflows[0].Violations[0].Rule != "decision" || !strings.Contains(vres.Workflows[0].Violations[0].Message, "replace decision without effect: unsigned") {
		t.Fatalf("verify of a forged replacement: %v %+v", err, vres)
	}

	// An allowed key: the replacement starts, signed, over no head.
	apptest.UseKey(t, dir, st.Alice)
	res, err = app.Init(apptest.Reopen(t, dir), app.InitOptions{Feature: "quick2", Type: "oneshot", Human: true})
	require.NoError(t, err)
	if res.State.Type != "oneshot" || len(res.State.Refused) != 0 || res.Appended[0].Sig == nil || res.Appended[0].Sig.Head != "" {
		t.Fatalf("signed replacement: %+v appended %+v", res.State, res.Appended)
	}
	if got := apptest.Status(t, apptest.Reopen(t, dir), "quick2"); !got.Started() || len(got.Refused) != 0 {
		t.Fatalf("reread: %+v", got)
	}
}

// A decision is signed outside the compare-and-swap and again only when the workflow head it
// decides on moved: here another writer appends while each of the first two signatures is made,
// so three are made (one per head), the user is told why, and the last one counts.
func TestDecisionSignsOncePerHead(t *testing.T) {
	st := apptest.NewSignedTeam(t)
	dir := st.Dirs[0]
	apptest.UseKey(t, dir, st.Alice)
	sync := t.TempDir()
	wrapper := filepath.Join(sync, "ssh-keygen-wrapper")
	// Each signing notes itself (sign.N), then waits for the test to append (appended.N) for the
	// first two; verification passes straight through.
	script := fmt.Sprintf(`#!/bin/sh
if [ "$2" = sign ]; then
	n=$(ls %[1]s | grep -c '^sign\.')
	touch %[1]s/sign.$n
	if [ $n -lt 2 ]; then
		i=0
		while [ ! -e %[1]s/appended.$n ] && [ $i -lt 300 ]; do sleep 0.05; i=$((i+1)); done
	fi
fi
exec ssh-keygen "$@"
`, sync)
	require.NoError(t, os.WriteFile(wrapper, []byte(script), 0o755))
	gittest.Git(t, dir, "", "config", "gpg.ssh.program", wrapper)
	r := apptest.Reopen(t, dir)
	var notices bytes.Buffer
	r.Notices = &notices

	done := make(chan error, 1)
	go func() {
		other := apptest.Reopen(t, dir)
		for n := 0; n < 2; n++ {
			deadline := time.Now().Add(15 * time.Second)
			for {
				if _, err := os.Stat(filepath.Join(sync, fmt.Sprintf("sign.%d", n))); err == nil {
					break
				}
				if time.Now().After(deadline) {
					done <- fmt.Errorf("signature %d never started", n)
					return
				}
				time.Sleep(10 * time.Millisecond)
			}
			if _, err := app.Set(other, app.SetOptions{Feature: "login", Assignments: []string{fmt.Sprintf("notes.n%d=concurrent", n)}}); err != nil {
				done <- err
				return
			}
			os.WriteFile(filepath.Join(sync, fmt.Sprintf("appended.%d", n)), nil, 0o644)
		}
		done <- nil
	}()
	res, err := app.Run(r, "login", workflow.Approve{Note: "lgtm"})
	if gerr := <-done; gerr != nil {
		t.Fatal(gerr)
	}
	require.NoError(t, err)
	signs, _ := filepath.Glob(filepath.Join(sync, "sign.*"))
	if len(signs) != 3 {
		t.Fatalf("signed %d times for a head that moved twice, want 3", len(signs))
	}
	if c := strings.Count(notices.String(), "signed again"); c != 2 {
		t.Fatalf("told %d times that the decision was signed again, want 2: %q", c, notices.String())
	}
	if len(res.State.Approvals) != 1 || res.State.Approvals[0].Actor != "alice@example.com" || len(res.State.Refused) != 0 {
		t.Fatalf("approvals %+v refused %+v", res.State.Approvals, res.State.Refused)
	}
	if got := apptest.Status(t, apptest.Reopen(t, dir), "login"); len(got.Approvals) != 1 || len(got.Refused) != 0 {
		t.Fatalf("reread: approvals %+v refused %+v", got.Approvals, got.Refused)
	}

	// Nothing moving: one signature.
	for _, f := range signs {
		os.Remove(f)
	}
	os.WriteFile(filepath.Join(sync, "sign.a"), nil, 0o644) // past the waits: no writer now
	os.WriteFile(filepath.Join(sync, "sign.b"), nil, 0o644)
	rejected, err := app.Run(apptest.Reopen(t, dir), "login", workflow.Reject{Gaps: "tests"})
	require.NoError(t, err)
	decisions := 0 // a reject is two signed events (the plan.rejected and its transition)
	for _, e := range rejected.Appended {
		if e.Sig != nil {
			decisions++
		}
	}
	if signs, _ := filepath.Glob(filepath.Join(sync, "sign.*")); decisions == 0 || len(signs)-2 != decisions {
		t.Fatalf("an unraced decision of %d signed events signed %d times", decisions, len(signs)-2)
	}
}

// .exarchos/roles narrows a decision kind to some principals: an allowed signer without the role
// is refused with the reason, and a kind the file does not list stays open to every signer.
func TestRolesRefuseAnAllowedSignerWithoutTheRole(t *testing.T) {
	st := apptest.NewSignedTeam(t)
	dir := st.Dirs[0]
	gittest.Git(t, dir, "", "checkout", "-q", "main")
	os.WriteFile(filepath.Join(dir, trust.RolesPath), []byte("# who may approve\napprove bob@example.com\n"), 0o644)
	gittest.Git(t, dir, "", "add", trust.RolesPath)
	gittest.Git(t, dir, "", "commit", "-q", "-m", "roles")
	gittest.Git(t, dir, "", "push", "-q", "origin", "main")
	gittest.Git(t, dir, "", "checkout", "-q", "login")
	apptest.UseKey(t, dir, st.Alice)

	res, err := app.Run(apptest.Reopen(t, dir), "login", workflow.Approve{Note: "lgtm"})
	var rej *workflow.Rejection
	if !errors.As(err, &rej) || rej.Code != engine.CodeDecisionRefused {
		t.Fatalf("want %s, got %v", engine.CodeDecisionRefused, err)
	}
	want := "alice@example.com may not approve: " + trust.RolesPath + " names bob@example.com"
	if len(res.State.Approvals) != 0 || len(res.State.Refused) != 1 || res.State.Refused[0].Reason != want {
		t.Fatalf("approvals %+v refused %+v, want the reason %q", res.State.Approvals, res.State.Refused, want)
	}
	if !strings.Contains(rej.Message, want) {
		t.Fatalf("the refusal does not say why: %q", rej.Message)
	}
	// A fresh reader (verdict from the cache, then from ssh-keygen) agrees.
	if got := apptest.Status(t, apptest.Reopen(t, dir), "login"); len(got.Approvals) != 0 || len(got.Refused) != 1 {
		t.Fatalf("reread: approvals %+v refused %+v", got.Approvals, got.Refused)
	}
	os.RemoveAll(filepath.Join(dir, ".git", "exarchos", "verdicts"))
	if got := apptest.Status(t, apptest.Reopen(t, dir), "login"); len(got.Approvals) != 0 || len(got.Refused) != 1 || got.Refused[0].Reason != want {
		t.Fatalf("reread without cache: approvals %+v refused %+v", got.Approvals, got.Refused)
	}
	// reject is not narrowed: alice may still reject.
	if res, err := app.Run(apptest.Reopen(t, dir), "login", workflow.Reject{Gaps: "tests"}); err != nil || res.State.Phase != "plan" {
		t.Fatalf("reject by an allowed signer with no role narrowing it: %v", err)
	}
}

// The hooks' cached state is folded with the verdicts of the allowed signers it was cached
// under: a change of .exarchos/allowed_signers on the base branch folds it again, so a decision by
// a key no longer allowed stops counting in the hook too.
func TestHookCacheFollowsTheAllowedSigners(t *testing.T) {
	st := apptest.NewSignedTeam(t)
	dir := st.Dirs[0]
	apptest.UseKey(t, dir, st.Alice)
	_, err := app.Run(apptest.Reopen(t, dir), "login", workflow.Approve{Note: "lgtm"})
	require.NoError(t, err)
	bound := func() workflow.State {
		t.Helper()
		hr, err := hookrun.Open(dir)
		require.NoError(t, err)
		ws, err := hr.BoundWorkflows()
		if err != nil || len(ws) != 1 || ws[0].Feature != "login" {
			t.Fatalf("bound workflows %+v, %v", ws, err)
		}
		return ws[0].State
	}
	// Twice: the second read is the cached one.
	for i := 0; i < 2; i++ {
		if got := bound(); len(got.Approvals) != 1 || len(got.Refused) != 0 {
			t.Fatalf("read %d: approvals %+v refused %+v", i, got.Approvals, got.Refused)
		}
	}

	// alice's key is replaced by carol's on the base branch.
	_, carolLine := apptest.SSHKey(t, t.TempDir(), "carol")
	gittest.Git(t, dir, "", "checkout", "-q", "main")
	os.WriteFile(filepath.Join(dir, trust.AllowedSignersPath), []byte("carol@example.com namespaces=\"git-exarchos\" "+carolLine+"\n"), 0o644)
	gittest.Git(t, dir, "", "commit", "-q", "-am", "carol decides now")
	gittest.Git(t, dir, "", "push", "-q", "origin", "main")
	gittest.Git(t, dir, "", "checkout", "-q", "login")

	got := bound()
	if len(got.Approvals) != 0 || len(got.Refused) != 1 || !strings.Contains(got.Refused[0].Reason, "not in") {
		t.Fatalf("after the signers changed, the hook still reads approvals %+v refused %+v", got.Approvals, got.Refused)
	}
	if got := apptest.Status(t, apptest.Reopen(t, dir), "login"); len(got.Approvals) != 0 || len(got.Refused) != 1 {
		t.Fatalf("status: approvals %+v refused %+v", got.Approvals, got.Refused)
	}
	// And back: alice again, the approval counts again (nothing is stuck in the cache).
	gittest.Git(t, dir, "", "checkout", "-q", "main")
	gittest.Git(t, dir, "", "revert", "--no-edit", "HEAD")
	gittest.Git(t, dir, "", "push", "-q", "origin", "main")
	gittest.Git(t, dir, "", "checkout", "-q", "login")
	if got := bound(); len(got.Approvals) != 1 || len(got.Refused) != 0 {
		t.Fatalf("signers restored: approvals %+v refused %+v", got.Approvals, got.Refused)
	}
}

// A .exarchos/roles that does not parse restricts what it can no longer say, so it must not be
// read as "nothing narrowed": every decision is refused (fail closed, as for unreadable allowed
// signers), and status and doctor name the file, the line and the fix. A CRLF file reads as git
// shows it, one role a line.
func TestRolesThatDoNotParseFailClosed(t *testing.T) {
	long := "# " + strings.Repeat("x", 70<<10) + "\n"
	for _, c := range []struct {
		name, roles, want string
	}{
		{"cut after the decision", "approve\n", "line 1: approve names no principal"},
		{"cut in the decision", "appro", `line 1: unknown decision "appro"`},
		{"misspelt decision", "# who may approve\naprove bob@example.com\n", `line 2: unknown decision "aprove"`},
		{"stray comma", "approve bob@example.com,,carol@example.com\n", "line 1: an empty principal"},
		{"line over 64 KiB", long + "approve bob@example.com\n", "line 1: longer than 65536 bytes"},
		{"not text", "approve bob@example.com\x00\n", "line 1: not text"},
	} {
		t.Run(c.name, func(t *testing.T) {
			st := apptest.NewSignedTeam(t)
			dir := st.Dirs[0]
			commitRoles(t, dir, c.roles)
			apptest.UseKey(t, dir, st.Alice)

			info := apptest.Reopen(t, dir).TrustInfo()
			if info.Mode != "unreadable" || !strings.Contains(info.Note, trust.RolesPath) || !strings.Contains(info.Note, c.want) {
				t.Fatalf("status's trust %+v, want unreadable naming %s and %q", info, trust.RolesPath, c.want)
			}
			res, err := app.Run(apptest.Reopen(t, dir), "login", workflow.Approve{Note: "lgtm"})
			var rej *workflow.Rejection
			if !errors.As(err, &rej) || rej.Code != engine.CodeDecisionRefused {
				t.Fatalf("want %s, got %v", engine.CodeDecisionRefused, err)
			}
			if len(res.State.Approvals) != 0 || len(res.State.Refused) != 1 || !strings.Contains(res.State.Refused[0].Reason, c.want) {
				t.Fatalf("approvals %+v refused %+v, want a refusal saying %q", res.State.Approvals, res.State.Refused, c.want)
			}
			// verify fails on the refused decision, saying why.
			if res := verifyFails(t, dir, "decision"); !strings.Contains(fmt.Sprint(res.Workflows[0].Violations), c.want) {
				t.Fatalf("verify's violations do not say why: %+v", res.Workflows[0].Violations)
			}
			doc, err := app.Doctor(app.DoctorOptions{Dir: dir})
			require.NoError(t, err)
			found := false
			for _, ch := range doc.Checks {
				if ch.ID == "signing" {
					found = ch.Status == app.CheckFail && strings.Contains(ch.Message, c.want) && strings.Contains(ch.Fix, trust.RolesPath)
				}
			}
			if !found || doc.Failures == 0 {
				t.Fatalf("doctor does not fail naming the roles file and its fix: %+v", doc.Checks)
			}
			// signers add refuses to build on a file it cannot read, and changes nothing.
			gittest.Git(t, dir, "", "checkout", "-q", "main")
			before, _ := os.ReadFile(filepath.Join(dir, trust.RolesPath))
			pub := st.Alice + ".pub"
			if _, err := trust.SignersAdd(apptest.Reopen(t, dir).Repo, trust.SignersAddOptions{Principal: "carol@example.com", KeyFile: pub, Roles: []string{"approve"}}); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("signers add on a roles file that does not parse: %v", err)
			}
			if after, _ := os.ReadFile(filepath.Join(dir, trust.RolesPath)); !bytes.Equal(before, after) {
				t.Fatalf("signers add changed %s", trust.RolesPath)
			}
		})
	}
	t.Run("CRLF", func(t *testing.T) {
		st := apptest.NewSignedTeam(t)
		dir := st.Dirs[0]
		commitRoles(t, dir, "# who may approve\r\napprove bob@example.com\r\n")
		apptest.UseKey(t, dir, st.Alice)
		if got := apptest.Reopen(t, dir).TrustInfo(); got.Mode != "signed" {
			t.Fatalf("a CRLF roles file: %+v", got)
		}
		res, _ := app.Run(apptest.Reopen(t, dir), "login", workflow.Approve{Note: "lgtm"})
		want := "alice@example.com may not approve: " + trust.RolesPath + " names bob@example.com"
		if len(res.State.Refused) != 1 || res.State.Refused[0].Reason != want {
			t.Fatalf("refused %+v, want %q", res.State.Refused, want)
		}
	})
}

// commitRoles commits a roles file on the base, pushes it and goes back to the workflow's branch.
func commitRoles(t *testing.T, dir, roles string) {
	t.Helper()
	gittest.Git(t, dir, "", "checkout", "-q", "main")
	os.WriteFile(filepath.Join(dir, trust.RolesPath), []byte(roles), 0o644)
	gittest.Git(t, dir, "", "-c", "core.autocrlf=false", "add", trust.RolesPath)
	gittest.Git(t, dir, "", "commit", "-q", "-m", "roles")
	gittest.Git(t, dir, "", "push", "-q", "origin", "main")
	gittest.Git(t, dir, "", "checkout", "-q", "login")
}
