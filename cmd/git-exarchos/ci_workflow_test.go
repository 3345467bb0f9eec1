package main

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	gitexarchos "github.com/exarchos/git-exarchos"
	"github.com/exarchos/git-exarchos/app"
	"github.com/exarchos/git-exarchos/ghclient/fakegithub"
	"github.com/exarchos/git-exarchos/internal/apptest"
	"github.com/exarchos/git-exarchos/internal/ghactions"
	"github.com/exarchos/git-exarchos/internal/gittest"
	"github.com/exarchos/git-exarchos/workflow"
)

// Issue 37, items 4 and 5: the shipped workflow (.github/workflows/exarchos-verify.yml) run as GitHub
// runs it for a pull request (internal/ghactions: which copy of the file, the jobs in needs order,
// their permissions and where the token and secrets reach, each job in a fresh clone of the
// origin). The base branch defines a type whose phase build has a gate; the gate is the branch's
// own script, which also looks for a credential wherever a step of the job could find one.

const ciGatedType = `type: gated
initial: build
phases:
  - id: build
    gates: ["sh gate.sh"]
  - id: review
  - id: done
    kind: final
  - id: cancelling
  - id: cancelled
    kind: final
transitions:
  - {from: build, to: review}
  - {from: review, to: done}
  - {from: "*", to: cancelling, on: [cancel]}
  - {from: cancelling, to: cancelled, on: [cancel]}
`

// ciGate is the gate: it fails when it finds the job's token or a secret (in its environment, or
// persisted in the job's checkout), else passes when the build left its artifact.
const ciGate = `leak=$( (env | grep -E 'ghs_|sekrit|^GITHUB_TOKEN=.'; git -C "${GITHUB_WORKSPACE:-.}" config --get-regexp 'extraheader'; grep -rIl -e ghs_ -e sekrit "${GITHUB_WORKSPACE:-.}/.git" ) 2>/dev/null)
if [ -n "$leak" ]; then echo "found a credential: $leak"; exit 1; fi
test -f built.txt
`

const (
	ciToken  = "ghs_harnessJobToken0123456789abcdefABCD"
	ciSecret = "sekrit-deploy-key-0123456789"
	ciCheck  = "exarchos verify" // the required check: the verify job's name
	ciFile   = gitexarchos.VerifyWorkflowPath
	target   = "pull_request_target"
)

// ciRepo is a bare origin whose main holds the shipped workflow, the gated type and the gate, and
// a clone on branch login with workflow login in build.
func ciRepo(t *testing.T, workflowFile string) (*apptest.Team, string) {
	t.Helper()
	tm := apptest.NewTeam(t, 1)
	dir := tm.Dirs[0]
	gittest.WriteFile(t, dir, ".exarchos/workflows/gated.yaml", ciGatedType)
	gittest.WriteFile(t, dir, "gate.sh", ciGate)
	gittest.WriteFile(t, dir, ciFile, workflowFile)
	gittest.Git(t, dir, "", "add", ".")
	gittest.Git(t, dir, "", "commit", "-q", "-m", "gated type, its gate, the CI workflow")
	gittest.Git(t, dir, "", "push", "-q", "origin", "HEAD:main")
	gittest.Git(t, dir, "", "checkout", "-q", "-b", "login")
	_, err := app.Init(apptest.Reopen(t, dir), app.InitOptions{Feature: "login", Type: "gated"})
	require.NoError(t, err)
	return tm, dir
}

// openPR pushes the branch and its workflow refs and runs what GitHub runs for the pull request
// login → main; the install steps are skipped, the binary under test (this test binary, as
// git-exarchos) on PATH instead.
func openPR(t *testing.T, tm *apptest.Team, dir string) *ghactions.Run {
	t.Helper()
	apptest.PushAll(t, dir)
	bin, err := exec.LookPath("git-exarchos")
	require.NoError(t, err)
	gh, env := protectedGitHub(t)
	lastGitHub = gh
	run, err := ghactions.Trigger(ghactions.PullRequest{Origin: tm.Remote, Base: "main", Head: "login"}, ghactions.Options{
		Dir: t.TempDir(), Env: env, Path: filepath.Dir(bin), Skip: []string{"install"},
		Token: ciToken, Secrets: map[string]string{"DEPLOY_KEY": ciSecret}, APIURL: gh.URL,
	})
	require.NoError(t, err)
	return run
}

// lastGitHub is the fake GitHub of the last openPR: where the report step posts the verdict.
var lastGitHub *fakegithub.Server

// headVerdict is the state of the commit status "exarchos verify" the report step posted on the
// pull request's head (pull_request_target files the job's own check under the base's tip, so this
// status is what a branch protection requiring the check sees), or "" when there is none.
func headVerdict(t *testing.T, dir string) string {
	t.Helper()
	state := ""
	for _, st := range lastGitHub.Statuses(gittest.Git(t, dir, "", "rev-parse", "login")) {
		if st.Context == ciCheck {
			state = st.State
		}
	}
	return state
}

func job(t *testing.T, run *ghactions.Run, id string) *ghactions.JobRun {
	t.Helper()
	j := run.Job(target, ciFile, id)
	if j == nil {
		t.Fatalf("no %s job %s ran:\n%s", target, id, run)
	}
	return j
}

// build commits the artifact and leaves build through the CLI's own road (the gate runs).
func build(t *testing.T, dir string) {
	t.Helper()
	apptest.WriteCommit(t, dir, "built.txt", "ok\n")
	_, err := app.Run(apptest.Reopen(t, dir), "login", workflow.TransitionTo{Phase: "review"})
	require.NoError(t, err)
}

// forgeGatePass is kind 3: a script writes a passing gate run on the head, where the gate fails,
// straight into the store (no gate ran); the transition then takes it as the gate's pass.
func forgeGatePass(t *testing.T, dir string) string {
	t.Helper()
	apptest.WriteCommit(t, dir, "work.txt", "no artifact\n")
	head := gittest.Git(t, dir, "", "rev-parse", "HEAD")
	r := apptest.Reopen(t, dir)
	_, err := r.Store.Append("login", r.Projector(), workflow.NewEvent{Type: workflow.EventValidationRecorded,
		Data: workflow.ValidationData{Command: "sh gate.sh", ExitCode: 0, Commit: head, Gate: true}})
	require.NoError(t, err)
	_, err = app.Run(apptest.Reopen(t, dir), "login", workflow.TransitionTo{Phase: "review"})
	require.NoError(t, err, "the transition takes the forged run as the gate's pass")
	return head
}

// The honest road: both jobs pass, from the base's copy of the file, and the required check is met;
// the gate, the branch's code, found no credential in the gates job.
func TestCIWorkflowHonestPasses(t *testing.T) {
	tm, dir := ciRepo(t, string(gitexarchos.VerifyWorkflow))
	build(t, dir)
	run := openPR(t, tm, dir)
	gates, verifyJob := job(t, run, "gates"), job(t, run, "verify")
	if gates.Status != "success" || verifyJob.Status != "success" {
		t.Fatalf("gates %s, verify %s\n--- gates\n%s\n--- verify\n%s", gates.Status, verifyJob.Status, gates.Output, verifyJob.Output)
	}
	if !strings.Contains(gates.Output, "login (gated, review)") || !strings.Contains(verifyJob.Output, "login (gated, review)") {
		t.Errorf("the jobs did not verify login:\n%s\n%s", gates.Output, verifyJob.Output)
	}
	if met, jobs := run.Check(ciCheck); !met || len(jobs) != 1 {
		t.Errorf("required check %q: met %v by %d jobs\n%s", ciCheck, met, len(jobs), run)
	}
	if got := headVerdict(t, dir); got != "success" {
		t.Errorf("the verdict on the pull request's head is %q, want success (the report step)\n%s", got, verifyJob.Output)
	}
	if len(gates.Permissions) != 0 || len(gates.TokenGiven) != 0 || len(gates.SecretsGiven) != 0 {
		t.Errorf("the gates job holds something: permissions %v, token to %v, secrets %v", gates.Permissions, gates.TokenGiven, gates.SecretsGiven)
	}
	if len(verifyJob.SecretsGiven) != 0 {
		t.Errorf("the verify job is given secrets %v", verifyJob.SecretsGiven)
	}
	if run.Job("pull_request", ciFile, "verify") != nil {
		t.Error("the workflow ran for pull_request: the merge commit's copy, which the branch can edit")
	}
}

// Kind 3: a gate run forged by a script passes verify's reading of the log, but the gates job runs
// the gate again and fails naming it; the verify job, whose own reading passes, fails on the gates
// job's verdict.
func TestCIWorkflowForgedGateRunFails(t *testing.T) {
	tm, dir := ciRepo(t, string(gitexarchos.VerifyWorkflow))
	head := forgeGatePass(t, dir)
	run := openPR(t, tm, dir)
	wantForgedFails(t, run, head)
	wantCheckUnmet(t, run)
	if got := headVerdict(t, dir); got != "failure" {
		t.Errorf("the verdict on the pull request's head is %q, want failure (the report step runs whatever happened)", got)
	}
}

func wantForgedFails(t *testing.T, run *ghactions.Run, head string) {
	t.Helper()
	gates, verifyJob := job(t, run, "gates"), job(t, run, "verify")
	want := "[gate]: the gate `sh gate.sh` is recorded as passing on " + head[:12] + ", but exits 1 there when verify runs it again"
	if gates.Status != "failure" || !strings.Contains(gates.Output, want) {
		t.Errorf("gates job %s, want failure naming %q:\n%s", gates.Status, want, gates.Output)
	}
	if verifyJob.Status != "failure" || !strings.Contains(verifyJob.Output, "exarchos gates: failure") {
		t.Errorf("verify job %s, want failure naming the gates job:\n%s", verifyJob.Status, verifyJob.Output)
	}
	if !strings.Contains(verifyJob.Output, "login (gated, review)") {
		t.Errorf("the verify job's own reading of the log did not run:\n%s", verifyJob.Output)
	}
}

func wantCheckUnmet(t *testing.T, run *ghactions.Run) {
	t.Helper()
	if met, _ := run.Check(ciCheck); met {
		t.Errorf("required check %q met with a forged gate run:\n%s", ciCheck, run)
	}
}

// Kind 4: the branch edits the workflow file so that every step only echoes; GitHub still runs the
// base's copy (pull_request_target), and the forged gate run still fails.
func TestCIWorkflowBranchEditsTheWorkflow(t *testing.T) {
	tm, dir := ciRepo(t, string(gitexarchos.VerifyWorkflow))
	forged := forgeGatePass(t, dir)
	echoes := strings.NewReplacer("git exarchos verify", "echo git exarchos verify", `[ "$GATES_RESULT" != success ]`, "false").
		Replace(string(gitexarchos.VerifyWorkflow))
	apptest.WriteCommit(t, dir, ciFile, echoes)
	run := openPR(t, tm, dir)
	base := gittest.Git(t, tm.Remote, "", "rev-parse", "refs/heads/main")
	for _, w := range run.Workflows {
		if w.Source != base || w.Event != target {
			t.Errorf("%s ran for %s from %.12s, want only the base's copy (%.12s) for %s", w.File, w.Event, w.Source, base, target)
		}
	}
	if g := job(t, run, "gates"); strings.Contains(g.Output, "echo git exarchos") {
		t.Errorf("the branch's edit ran:\n%s", g.Output)
	}
	wantForgedFails(t, run, forged)
	wantCheckUnmet(t, run)

	// The neighbour: the branch makes its copy run for pull_request (the merge commit's file). The
	// base's copy still runs and fails; but GitHub matches a required check by name alone, so the
	// branch's job of the same name meets it: this is the limit docs/verify.md names, closed by a
	// setting (a code owner's review of .github/workflows/, or a ruleset that requires the
	// workflow by path), not by the file.
	apptest.WriteCommit(t, dir, ciFile, strings.Replace(echoes, "on:\n  pull_request_target:", "on:\n  pull_request:", 1))
	run = openPR(t, tm, dir)
	wantForgedFails(t, run, forged)
	branchCopy := run.Job("pull_request", ciFile, "verify")
	if branchCopy == nil || branchCopy.Status != "success" {
		t.Fatalf("the branch's copy for pull_request: %+v\n%s", branchCopy, run)
	}
	if met, jobs := run.Check(ciCheck); !met || len(jobs) != 2 {
		t.Errorf("a same-named job of the branch's: met %v by %d jobs (GitHub's rule: by name alone)", met, len(jobs))
	}
}

// The gates job runs the branch's code: a gate that looks for the job's token or a secret finds
// none. The same gate under a workflow whose gates job keeps the token in its checkout finds it,
// so the gate can tell.
func TestCIWorkflowGatesJobHoldsNoCredential(t *testing.T) {
	tm, dir := ciRepo(t, string(gitexarchos.VerifyWorkflow))
	build(t, dir)
	run := openPR(t, tm, dir)
	if g := job(t, run, "gates"); g.Status != "success" || strings.Contains(g.Output, "found a credential") || strings.Contains(g.Output, ciToken) {
		t.Fatalf("the gate found a credential in the gates job:\n%s", g.Output)
	}

	leaky := strings.Replace(string(gitexarchos.VerifyWorkflow), "          persist-credentials: false\n", "", 1)
	require.NotEqual(t, leaky, string(gitexarchos.VerifyWorkflow))
	tm, dir = ciRepo(t, leaky)
	build(t, dir)
	run = openPR(t, tm, dir)
	g := job(t, run, "gates")
	if g.Status != "failure" || !strings.Contains(g.Output, "found a credential") || !strings.Contains(g.Output, "extraheader") {
		t.Fatalf("a gates job with a persisted token: %s, want the gate to find it:\n%s", g.Status, g.Output)
	}
}
