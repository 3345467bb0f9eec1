package guards_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/exarchos/git-exarchos/guards"
	"github.com/exarchos/git-exarchos/workflow"
)

var errUnreadable = errors.New("object store unreadable")

// TestPeerGuards: the guards issue 30 added where Exarchos's definitions have one that reads
// facts we can read too (triage → investigate, explore → brief, polish-update-docs → completed,
// hotfix-validate → synthesize, and every synthesis retry). Each refusal carries a fix that is
// a command to run.
func TestPeerGuards(t *testing.T) {
	pr := func(f func(p *workflow.PR)) func(s *workflow.State) {
		return func(s *workflow.State) {
			s.PR = &workflow.PR{PRObservation: workflow.PRObservation{Number: 7, URL: "https://github.com/o/r/pull/7", HeadSHA: tip, State: "open", Checks: "success", ObservedAt: "2026-01-02T03:04:05Z"}}
			f(s.PR)
		}
	}
	inline := func(name, text string) func(s *workflow.State) {
		return func(s *workflow.State) {
			s.Artifacts = map[string]workflow.Artifact{name: {Inline: true, Text: text}}
		}
	}
	none := func(*workflow.State) {}
	cases := []struct {
		name, typ, phase, guard string
		state                   func(s *workflow.State)
		facts                   guards.GitFacts
		reason, fix             string // reason "" = pass
	}{
		{"triage missing", "debug", "triage", "artifact-triage", none, git, "no triage artifact recorded", `git exarchos set f1 --inline "artifacts.triage=…"`},
		{"triage inline", "debug", "triage", "artifact-triage", inline("triage", "segfault on empty input"), git, "", ""},
		{"triage inline but empty", "debug", "triage", "artifact-triage", inline("triage", " "), git, "the inline triage artifact is empty", ""},
		{"triage as a committed file", "debug", "triage", "artifact-triage", func(s *workflow.State) {
			s.Artifacts = map[string]workflow.Artifact{"triage": {Path: "docs/design.md"}}
		}, git, "", ""},
		{"scope missing", "refactor", "explore", "artifact-scope", none, git, "no scope artifact recorded", `git exarchos set f1 --inline "artifacts.scope=…"`},
		{"scope inline", "refactor", "explore", "artifact-scope", inline("scope", "the store package only"), git, "", ""},
		{"scope inline in a type that does not take it inline", "feature", "ideate", "artifact-scope", inline("scope", "x"), git, "does not accept an inline scope", ""},
		{"docs committed", "refactor", "polish-update-docs", "docs-changed", none, gitWith(func(g *fakeGit) { g.changed = []string{"src/x.go", "docs/guide.md"} }), "", ""},
		{"README committed", "refactor", "polish-update-docs", "docs-changed", none, gitWith(func(g *fakeGit) { g.changed = []string{"README.md"} }), "", ""},
		{"only code committed", "refactor", "polish-update-docs", "docs-changed", none, gitWith(func(g *fakeGit) { g.changed = []string{"src/x.go"} }),
			"no commit on topic since 111111111111 changes documentation", `git add -A -- docs '*.md' && git commit -m "f1: docs" && git exarchos transition f1 next`},
		{"the workflow's own brief is not the documentation", "refactor", "polish-update-docs", "docs-changed", func(s *workflow.State) {
			s.Artifacts = map[string]workflow.Artifact{"brief": {Path: "docs/brief.md"}}
		}, gitWith(func(g *fakeGit) { g.changed = []string{"docs/brief.md", "src/x.go"} }), "the workflow's own artifacts aside", ""},
		{"code under docs/ is not documentation", "refactor", "polish-update-docs", "docs-changed", none, gitWith(func(g *fakeGit) { g.changed = []string{"docs/main.go"} }),
			"changes documentation", ""},
		{"docs changed but not committed", "refactor", "polish-update-docs", "docs-changed", none, gitWith(func(g *fakeGit) { g.changed, g.dirty = []string{"src/x.go"}, []string{"README.md", "src/y.go"} }),
			"README.md changed but not committed", `git add -- README.md && git commit -m "f1: docs" && git exarchos transition f1 next`},
		{"docs: git unreadable", "refactor", "polish-update-docs", "docs-changed", none, gitWith(func(g *fakeGit) { g.err = errUnreadable }), "cannot read the tip", ""},
		{"no pull request asked for", "debug", "hotfix-validate", "synthesis-requested", none, git,
			"no pull request was asked for", `git exarchos request-synthesis f1 --reason "the fix ships through a pull request" && git exarchos transition f1 next`},
		{"pull request asked for", "debug", "hotfix-validate", "synthesis-requested", func(s *workflow.State) { s.SynthesisRequested = true }, git, "", ""},
		{"retry without a pull request", "feature", "synthesize", "synthesis-failed", none, git, "no pull request is linked", "git exarchos pr find f1"},
		{"retry on green checks", "feature", "synthesize", "synthesis-failed", pr(func(*workflow.PR) {}), git, "has no recorded failure (open, checks success", "git exarchos pr refresh f1"},
		{"retry before any observation", "feature", "synthesize", "synthesis-failed", pr(func(p *workflow.PR) { p.ObservedAt, p.Checks, p.State = "", "", "" }), git, "not observed yet", "git exarchos pr refresh f1"},
		{"retry on failing checks at the tip", "feature", "synthesize", "synthesis-failed", pr(func(p *workflow.PR) { p.Checks, p.Failing = "failure", []string{"ci"} }), git, "", ""},
		{"retry on failing checks of an older head", "refactor", "synthesize", "synthesis-failed", pr(func(p *workflow.PR) { p.Checks, p.HeadSHA = "failure", "aaaaaaa" }), git,
			"not at the branch tip", "git push && git exarchos pr refresh f1"},
		{"retry on a pull request closed unmerged", "debug", "synthesize", "synthesis-failed", pr(func(p *workflow.PR) { p.State = "closed" }), git, "", ""},
		{"retry on changes requested", "feature", "synthesize", "synthesis-failed", pr(func(p *workflow.PR) { p.ReviewDecision = "CHANGES_REQUESTED" }), git, "", ""},
		{"no retry once merged", "feature", "synthesize", "synthesis-failed", pr(func(p *workflow.PR) { p.State, p.Merged = "closed", true }), git, "has no recorded failure (merged", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := base(c.typ, c.phase)
			c.state(&s)
			ev := &guards.Evaluator{Facts: c.facts, Base: "ba5e000000000000000000000000000000000000"}
			f := ev.Evaluate(builtinOf(c.typ), c.guard, s, "next")
			checkFailure(t, f, c.guard, c.reason)
			if c.reason != "" && c.fix != "" && f.Fix != c.fix {
				t.Fatalf("fix %q, want %q", f.Fix, c.fix)
			}
		})
	}
}

// The built-in transitions that carry them (BuiltinVersion 3).
func TestPeerGuardsOnTheBuiltinTransitions(t *testing.T) {
	for _, c := range []struct{ typ, from, to, guard string }{
		{"debug", "triage", "investigate", "artifact-triage"},
		{"refactor", "explore", "brief", "artifact-scope"},
		{"refactor", "polish-update-docs", "completed", "docs-changed"},
		{"debug", "hotfix-validate", "synthesize", "synthesis-requested"},
		{"feature", "synthesize", "delegate", "synthesis-failed"},
		{"debug", "synthesize", "debug-implement", "synthesis-failed"},
		{"debug", "synthesize", "hotfix-implement", "synthesis-failed"},
		{"refactor", "synthesize", "overhaul-delegate", "synthesis-failed"},
	} {
		found := false
		for _, tr := range builtinOf(c.typ).Transitions {
			if tr.From == c.from && tr.To == c.to {
				found = true
				if !strings.Contains(strings.Join(tr.Guards, " "), c.guard) {
					t.Errorf("%s: %s → %s guards %v, want %s", c.typ, c.from, c.to, tr.Guards, c.guard)
				}
			}
		}
		if !found {
			t.Errorf("%s: no transition %s → %s", c.typ, c.from, c.to)
		}
	}
}

// TestGatesPassed: each gate of the phase needs its latest run on the branch tip to exit 0; a run
// of another commit, an ad-hoc run, or a failure does not count.
func TestGatesPassed(t *testing.T) {
	def := &workflow.Definition{Type: "gated", Initial: "build", Phases: []workflow.Phase{
		{ID: "build", Kind: workflow.Normal, Gates: []string{"make test", "make lint"}}, {ID: "done", Kind: workflow.Final}},
		Transitions: []workflow.Transition{{From: "build", To: "done"}}}
	run := func(cmd string, exit int, commit string, adHoc bool) workflow.Validation {
		return workflow.Validation{Command: cmd, ExitCode: exit, Commit: commit, AdHoc: adHoc, Gate: !adHoc}
	}
	for _, c := range []struct {
		name   string
		runs   []workflow.Validation
		reason string
	}{
		{"none ran", nil, "the gate `make test` has not run on cccccccccccc"},
		{"both passed on the tip", []workflow.Validation{run("make test", 0, tip, false), run("make lint", 0, tip, false)}, ""},
		{"one missing", []workflow.Validation{run("make test", 0, tip, false)}, "the gate `make lint` has not run"},
		{"passed on an older commit", []workflow.Validation{run("make test", 0, "aaaaaaa", false), run("make lint", 0, tip, false)}, "`make test` has not run on cccccccccccc"},
		{"an ad-hoc run does not count", []workflow.Validation{run("make test", 0, tip, true), run("make lint", 0, tip, false)}, "`make test` has not run"},
		// `validate` running the gate's text in the worktree (untracked files and all), not the
		// gates' runner in a clean checkout.
		{"a validation of the same command does not count", []workflow.Validation{{Command: "make test", Commit: tip}, run("make lint", 0, tip, false)}, "`make test` has not run"},
		{"failed", []workflow.Validation{run("make test", 2, tip, false), run("make lint", 0, tip, false)}, "the gate `make test` exited 2"},
		{"failed, then passed", []workflow.Validation{run("make test", 2, tip, false), run("make test", 0, tip, false), run("make lint", 0, tip, false)}, ""},
		{"passed, then failed", []workflow.Validation{run("make test", 0, tip, false), run("make lint", 0, tip, false), run("make test", 1, tip, false)}, "exited 1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := base("gated", "build")
			s.Validations = c.runs
			f := guards.NewEvaluator(git).Evaluate(def, workflow.GuardGatesPassed, s, "done")
			checkFailure(t, f, workflow.GuardGatesPassed, c.reason)
		})
	}
	for _, tr := range def.Outgoing("build") {
		if !strings.Contains(strings.Join(tr.Guards, " "), workflow.GuardGatesPassed) && tr.TakenBy(workflow.OnTransition) && !tr.Universal() {
			t.Errorf("%s → %s does not require the gates", tr.From, tr.To)
		}
	}
}
