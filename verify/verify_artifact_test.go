package verify_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/exarchos/git-exarchos/app"
	"github.com/exarchos/git-exarchos/internal/apptest"
	"github.com/exarchos/git-exarchos/internal/gittest"
	"github.com/exarchos/git-exarchos/verify"
	"github.com/exarchos/git-exarchos/workflow"
)

// Issue 37: the honest road verifies. The plugin's /exarchos:feature, docs/troubleshooting.md and
// the hook's own denial in ideate ("record its path first") teach the agent to record an artifact
// before writing it — the hook lets a planning phase write only a recorded artifact's file. Done in
// that order, CI's verify must pass: an artifact is judged where the guard that relied on it
// judged it (the head the transition recorded), not at the commit the branch was on when its
// path was recorded.

// honestRoad walks a feature workflow "login" on branch login of a one-clone team from ideate to
// synthesize the way the plugin teaches it; between the steps, each hook (by phase left) may
// change the branch or the record. It returns the clone's directory.
func honestRoad(t *testing.T, tm *apptest.Team, before map[string]func(dir string)) string {
	t.Helper()
	apptest.ActAsHuman(t)
	dir := tm.Dirs[0]
	gittest.Git(t, dir, "", "checkout", "-q", "-b", "login")
	r := apptest.Reopen(t, dir)
	_, err := app.Init(r, app.InitOptions{Feature: "login", Type: "feature"})
	require.NoError(t, err)
	hook := func(phase string) {
		if f := before[phase]; f != nil {
			f(dir)
		}
	}
	set := func(kv string) {
		t.Helper()
		_, err := app.Set(apptest.Reopen(t, dir), app.SetOptions{Feature: "login", Assignments: []string{kv}})
		require.NoError(t, err, "set %s", kv)
	}
	run := func(cmd workflow.Command) {
		t.Helper()
		apptest.MustRun(t, apptest.Reopen(t, dir), "login", cmd)
	}
	// ideate: record the design's path (the hook's "record its path first"), then write it.
	set("artifacts.design=docs/design.md")
	apptest.WriteCommit(t, dir, "docs/design.md", "# design\n")
	hook("ideate")
	run(workflow.TransitionTo{Phase: "plan"})
	// plan: the same for the plan.
	set("artifacts.plan=docs/plan.md")
	apptest.WriteCommit(t, dir, "docs/plan.md", "# plan\n")
	hook("plan")
	run(workflow.TransitionTo{Phase: "plan-review"})
	run(workflow.Approve{Note: "ok"})
	run(workflow.TransitionTo{Phase: "delegate"})
	run(workflow.AddTask{ID: "t1", Title: "store"})
	apptest.WriteCommit(t, dir, "store.go", "package login\n")
	run(workflow.CompleteTask{ID: "t1"})
	hook("delegate")
	run(workflow.TransitionTo{Phase: "review"})
	run(workflow.RecordReview{Dimension: "spec", Pass: true, Human: true})
	run(workflow.RecordReview{Dimension: "quality", Pass: true, Human: true})
	run(workflow.TransitionTo{Phase: "synthesize"})
	hook("synthesize")
	apptest.PushAll(t, dir)
	return dir
}

// ciVerifyTeam verifies the login branch in a fresh clone of tm's remote, as the shipped workflow
// does (verify --branch login --base origin/main --require).
func ciVerifyTeam(t *testing.T, tm *apptest.Team) (*verify.Result, error) {
	t.Helper()
	return verify.Verify(&verify.Repo{Repo: apptest.Reopen(t, apptest.CIClone(t, tm.Remote)).Repo}, verify.Options{Branch: "login", Base: "origin/main", Require: true})
}

func TestVerifyHonestRoadArtifactRecordedBeforeWritten(t *testing.T) {
	tm := apptest.NewTeam(t, 1)
	honestRoad(t, tm, nil)
	res, err := ciVerifyTeam(t, tm)
	require.NoError(t, err, "CI's verify of the workflow the plugin teaches")
	require.True(t, res.OK)
}

// setArtifact records kv on login in dir, as `git exarchos set login kv` does.
func setArtifact(t *testing.T, dir, kv string) {
	t.Helper()
	_, err := app.Set(apptest.Reopen(t, dir), app.SetOptions{Feature: "login", Assignments: []string{kv}})
	require.NoError(t, err, "set %s", kv)
}

// The neighbours of the honest road: each changes the branch or the record between two steps,
// and CI's verify still passes.
func TestVerifyHonestRoadNeighbours(t *testing.T) {
	for _, tc := range []struct {
		name  string
		phase string // the phase whose end the change comes at
		do    func(t *testing.T, dir string)
	}{
		// The design named again at another path before its guard ran (a better name): the guard
		// judged the second path at its transition's head.
		{"recorded again at a new path", "ideate", func(t *testing.T, dir string) {
			setArtifact(t, dir, "artifacts.design=docs/login-design.md")
			gittest.Git(t, dir, "", "mv", "docs/design.md", "docs/login-design.md")
			gittest.Git(t, dir, "", "commit", "-q", "-m", "design: a better name")
		}},
		// The design named again after its guard passed, at a path committed on the branch: no
		// guard relies on the new record, so it is judged at the branch's tip, where it is.
		{"recorded again after its guard", "plan", func(t *testing.T, dir string) {
			setArtifact(t, dir, "artifacts.design=docs/architecture.md")
			apptest.WriteCommit(t, dir, "docs/architecture.md", "# architecture\n")
		}},
		// The design deleted later on the branch (the work replaced it): the guard that relied on
		// it judged it at its transition's head, where it was; the record stands.
		{"deleted later", "delegate", func(t *testing.T, dir string) {
			gittest.Git(t, dir, "", "rm", "-q", "docs/design.md")
			gittest.Git(t, dir, "", "commit", "-q", "-m", "the design lives in the code now")
		}},
		// The design's path recorded on a branch commit that a rebase onto the moved base then
		// rewrote, before its guard ran: the record's commit is gone from the branch, the guard
		// judged the design at the rebased head.
		{"recorded, then rebased before its guard", "ideate", func(t *testing.T, dir string) {
			apptest.WriteCommit(t, dir, "docs/notes.md", "# notes\n") // honestRoad recorded on the fork point
			setArtifact(t, dir, "artifacts.design=docs/design.md")
			gittest.Git(t, dir, "", "commit", "-q", "--allow-empty", "-m", "design: reread")
			rebaseOntoMovedBase(t, dir)
		}},
		// A human overrode the design's guard: the record it waived, never written, is no
		// violation (the override is the decision that relied on it).
		{"its guard overridden", "ideate", func(t *testing.T, dir string) {
			setArtifact(t, dir, "artifacts.design=docs/later.md")
			apptest.MustRun(t, apptest.Reopen(t, dir), "login", workflow.OverrideGuard{Guard: "artifact-design", Reason: "the design is the ticket"})
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tm := apptest.NewTeam(t, 1)
			honestRoad(t, tm, map[string]func(string){tc.phase: func(dir string) { tc.do(t, dir) }})
			_, err := ciVerifyTeam(t, tm)
			require.NoError(t, err)
		})
	}
}

// rebaseOntoMovedBase moves origin's main by a commit and rebases the login branch onto it.
func rebaseOntoMovedBase(t *testing.T, dir string) {
	t.Helper()
	gittest.Git(t, dir, "", "checkout", "-q", "main")
	apptest.WriteCommit(t, dir, "CHANGELOG", "meanwhile\n")
	gittest.Git(t, dir, "", "push", "-q", "origin", "main")
	gittest.Git(t, dir, "", "checkout", "-q", "login")
	gittest.Git(t, dir, "", "rebase", "-q", "origin/main")
}

// A path recorded after the design's guard passed and never written is a violation that names
// its fix; the fix, followed literally, verifies.
func TestVerifyHonestRoadArtifactRecordedButNeverWritten(t *testing.T) {
	tm := apptest.NewTeam(t, 1)
	dir := honestRoad(t, tm, map[string]func(string){"plan": func(dir string) {
		setArtifact(t, dir, "artifacts.design=docs/architecture.md")
	}})
	res, err := ciVerifyTeam(t, tm)
	apptest.WantViolation(t, res, err, "artifact", "docs/architecture.md is not a file at the branch's tip")
	fix := `git add docs/architecture.md && git commit -m "login: design"`
	apptest.WantViolation(t, res, err, "artifact", fix)
	gittest.WriteFile(t, dir, "docs/architecture.md", "# architecture\n")
	gittest.Git(t, dir, "", "add", "docs/architecture.md")
	gittest.Git(t, dir, "", "commit", "-q", "-m", "login: design")
	apptest.PushAll(t, dir)
	_, err = ciVerifyTeam(t, tm)
	require.NoError(t, err, "after the fix")
}

// The attack the record's own check stood for: a transition out of ideate recorded with the design
// guard passed, at a head where the recorded design is no file. The guard, evaluated again at that
// head, fails.
func TestVerifyHonestRoadArtifactGuardJudgedAtTheTransitionHead(t *testing.T) {
	tm, dir, r := apptest.UnsignedLogin(t)
	setArtifact(t, dir, "artifacts.design=docs/design.md")
	apptest.WriteCommit(t, dir, "docs/notes.md", "# not the design\n")
	head := gittest.Git(t, dir, "", "rev-parse", "HEAD")
	apptest.Forge(t, r, "login", workflow.NewEvent{Type: workflow.EventTransitioned, Data: workflow.TransitionedData{From: "ideate", To: "plan", Guards: []string{"artifact-design"}, Head: head}})
	apptest.PushAll(t, dir)
	res, err := verify.Verify(&verify.Repo{Repo: apptest.Reopen(t, apptest.CIClone(t, tm.Remote)).Repo}, verify.Options{Branch: "login", Base: "origin/main"})
	apptest.WantViolation(t, res, err, "guard", "recorded guard artifact-design as passed, but verify finds: docs/design.md is not a file in the tip of login")
}

// A rebase after the design's guard passed rewrites the heads the transitions recorded: CI cannot
// judge the guards there, says so once per transition with the fix, and the fix — the recorded
// commits back, the base merged in — followed literally, verifies.
func TestVerifyHonestRoadRebasedAfterTheGuard(t *testing.T) {
	tm := apptest.NewTeam(t, 1)
	dir := honestRoad(t, tm, map[string]func(string){"synthesize": func(dir string) { rebaseOntoMovedBase(t, dir) }})
	res, err := ciVerifyTeam(t, tm)
	apptest.WantViolation(t, res, err, "guard", "ideate → plan recorded the head")
	apptest.WantViolation(t, res, err, "guard", "which this clone does not have: branch login was rewritten after the transition")
	apptest.WantViolation(t, res, err, "guard", "git merge origin/main")
	for _, v := range res.Workflows[0].Violations {
		if strings.Contains(v.Message, "cannot read") || strings.Contains(v.Message, "merge-base") {
			t.Errorf("a git error instead of the cause: %s", v.Message)
		}
	}
	// The fix: the tip before the rebase (git reflog login), the base merged, the branch pushed.
	old := gittest.Git(t, dir, "", "rev-parse", "login@{1}")
	gittest.Git(t, dir, "", "reset", "-q", "--keep", old)
	gittest.Git(t, dir, "", "merge", "-q", "--no-edit", "origin/main")
	gittest.Git(t, dir, "", "push", "-q", "--force-with-lease", "origin", "login")
	_, err = ciVerifyTeam(t, tm)
	require.NoError(t, err, "after the fix")
}
