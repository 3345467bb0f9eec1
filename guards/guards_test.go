package guards_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/exarchos/git-exarchos/guards"
	"github.com/exarchos/git-exarchos/workflow"
)

// fakeGit is a plain-map stand-in for the repository: these are unit tests of pure functions.
type fakeGit struct {
	tips      map[string]string
	files     map[string]bool // commit + ":" + path
	ancestors map[string]bool // ancestor + ">" + descendant
	mergeBase string          // of the branch with the base
	changed   []string        // paths the branch changed since mergeBase
	dirty     []string        // uncommitted paths in the worktree
	err       error
}

func (f fakeGit) MergeBase(a, b string) (string, bool, error) {
	return f.mergeBase, f.mergeBase != "", f.err
}
func (f fakeGit) ChangedPaths(from, to string) ([]string, error) {
	return f.changed, f.err
}
func (f fakeGit) AddedOrModified(from, to string) ([]string, error) { return f.changed, f.err }
func (f fakeGit) WorktreeChanges(string) ([]string, error)          { return f.dirty, f.err }

func (f fakeGit) BranchTip(b string) (string, error) {
	if f.err != nil {
		return "", f.err
	}
	t, ok := f.tips[b]
	if !ok {
		return "", fmt.Errorf("no branch %s", b)
	}
	return t, nil
}
func (f fakeGit) FileExists(c, p string) (bool, error) { return f.files[c+":"+p], f.err }
func (f fakeGit) IsAncestor(a, d string) (bool, error) { return a == d || f.ancestors[a+">"+d], f.err }

const tip = "cccccccccccccccccccccccccccccccccccccccc"

const mb = "1111111111111111111111111111111111111111"

var git = fakeGit{
	tips:      map[string]string{"topic": tip},
	files:     map[string]bool{tip + ":docs/design.md": true, tip + ":README.md": true, tip + ":docs/main.go": true},
	ancestors: map[string]bool{"aaaaaaa>" + tip: true, mb + ">" + tip: true, mb + ">aaaaaaa": true},
	mergeBase: mb,
	changed:   []string{"docs/design.md", "docs/main.go"},
}

// with returns a copy of git changed by f.
func gitWith(f func(g *fakeGit)) fakeGit {
	g := git
	f(&g)
	return g
}

// pass is a verdict of a reviewer subagent (not the agent that completed the tasks).
func pass(dim string) workflow.Review {
	return workflow.Review{Verdict: "pass", Commit: tip, At: 5, Session: "s1", Agent: "a-reviewer"}
}

func base(typ, phase string) workflow.State {
	return workflow.State{Feature: "f1", Type: typ, Phase: phase, Branch: "topic"}
}

func TestEveryDefinitionGuardExists(t *testing.T) {
	for _, typ := range workflow.BuiltinTypes() {
		d, _ := workflow.Builtin(typ)
		for _, tr := range d.Transitions {
			for _, g := range tr.Guards {
				if _, ok := guards.Lookup(g); !ok {
					t.Errorf("%s: %s → %s uses unknown guard %s", typ, tr.From, tr.To, g)
				}
			}
		}
	}
	ev := guards.NewEvaluator(git)
	if f := ev.Evaluate(nil, "no-such-guard", base("feature", "ideate"), "plan"); f == nil || f.Guard != "no-such-guard" {
		t.Fatalf("unknown guards fail closed: %+v", f)
	}
}

func TestGuards(t *testing.T) {
	type tc struct {
		name   string
		guard  string
		state  func(s *workflow.State)
		facts  guards.GitFacts
		reason string // "" = pass
	}
	with := func(typ, phase string) func(func(*workflow.State)) func(*workflow.State) {
		return func(f func(*workflow.State)) func(*workflow.State) {
			return func(s *workflow.State) { *s = base(typ, phase); f(s) }
		}
	}
	feature := with("feature", "review")
	none := func(*workflow.State) {}
	cases := []tc{
		{"artifact missing", "artifact-design", feature(none), git, "no design artifact recorded"},
		{"artifact at tip", "artifact-design", feature(func(s *workflow.State) {
			s.Artifacts = map[string]workflow.Artifact{"design": {Path: "docs/design.md"}}
		}), git, ""},
		{"artifact not committed", "artifact-design", feature(func(s *workflow.State) {
			s.Artifacts = map[string]workflow.Artifact{"design": {Path: "docs/other.md"}}
		}), git, "is not a file in the tip of topic"},
		{"artifact inline not allowed", "artifact-plan", feature(func(s *workflow.State) {
			s.Artifacts = map[string]workflow.Artifact{"plan": {Inline: true, Text: "steps"}}
		}), git, "does not accept an inline plan"},
		{"artifact an existing file", "artifact-design", feature(func(s *workflow.State) {
			s.Artifacts = map[string]workflow.Artifact{"design": {Path: "README.md"}}
		}), git, "was not added or changed on topic since 111111111111"},
		{"artifact a source file", "artifact-design", feature(func(s *workflow.State) {
			s.Artifacts = map[string]workflow.Artifact{"design": {Path: "docs/main.go"}}
		}), git, "not a document path"},
		{"artifact outside the patterns", "artifact-design", feature(func(s *workflow.State) {
			s.Artifacts = map[string]workflow.Artifact{"design": {Path: "notes/design.txt"}}
		}), git, "not a document path"},
		{"artifact, branch merged into the base: fork point", "artifact-design", feature(func(s *workflow.State) {
			s.Artifacts = map[string]workflow.Artifact{"design": {Path: "docs/design.md"}}
			s.ForkPoint = mb
		}), gitWith(func(g *fakeGit) { g.mergeBase = tip }), ""},
		{"paths: only documents", "paths-allowed", with("feature", "ideate")(none), gitWith(func(g *fakeGit) { g.changed = []string{"docs/design.md", "README.md"} }), ""},
		{"paths: code committed in ideate", "paths-allowed", with("feature", "ideate")(none), git, "commits on topic since 111111111111 change docs/main.go"},
		{"paths: code in the worktree", "paths-allowed", with("debug", "rca")(none), gitWith(func(g *fakeGit) { g.changed, g.dirty = nil, []string{"src/x.py"} }), "uncommitted changes to src/x.py"},
		{"paths: no restriction in delegate", "paths-allowed", with("feature", "delegate")(none), git, ""},
		{"artifact, git unreadable", "artifact-design", feature(func(s *workflow.State) {
			s.Artifacts = map[string]workflow.Artifact{"design": {Path: "docs/design.md"}}
		}), fakeGit{err: fmt.Errorf("boom")}, "cannot read the tip of branch topic: boom"},
		{"artifact, no branch", "artifact-design", func(s *workflow.State) {
			*s = base("feature", "ideate")
			s.Branch = ""
			s.Artifacts = map[string]workflow.Artifact{"design": {Path: "docs/design.md"}}
		}, git, "not bound to a branch"},
		{"generic artifact id", "artifact-diagram", feature(none), git, "no diagram artifact"},
		{"plan approved", "plan-approved", with("feature", "plan-review")(func(s *workflow.State) {
			s.EnteredAt = 5
			s.Approvals = []workflow.Approval{{Phase: "plan-review", Decision: "approved", At: 6}}
		}), git, ""},
		{"approval from an earlier visit", "plan-approved", with("feature", "plan-review")(func(s *workflow.State) {
			s.EnteredAt = 9
			s.Approvals = []workflow.Approval{{Phase: "plan-review", Decision: "approved", At: 6}}
		}), git, "not been approved"},
		{"approval then rejection in this visit", "plan-approved", with("feature", "plan-review")(func(s *workflow.State) {
			s.EnteredAt = 5
			s.Approvals = []workflow.Approval{{Phase: "plan-review", Decision: "approved", At: 6}, {Phase: "plan-review", Decision: "rejected", At: 7}}
		}), git, "not been approved"},
		{"rejection then approval in this visit", "plan-approved", with("feature", "plan-review")(func(s *workflow.State) {
			s.EnteredAt = 5
			s.Approvals = []workflow.Approval{{Phase: "plan-review", Decision: "rejected", At: 6}, {Phase: "plan-review", Decision: "approved", At: 7}}
		}), git, ""},
		{"no approval at all", "plan-approved", with("feature", "plan-review")(func(s *workflow.State) {
			s.EnteredAt = 5
		}), git, "not been approved"},
		{"no tasks", "tasks-complete", feature(none), git, "no tasks recorded"},
		{"open task", "tasks-complete", feature(func(s *workflow.State) {
			s.Tasks = []workflow.Task{{ID: "a", Status: workflow.TaskCompleted}, {ID: "b", Status: workflow.TaskInProgress}}
		}), git, "1 of 2 tasks not completed: b (in_progress)"},
		{"tasks done", "tasks-complete", feature(func(s *workflow.State) {
			s.Tasks = []workflow.Task{{ID: "a", Status: workflow.TaskCompleted}}
		}), git, ""},
		{"feature reviews", "reviews-passed", feature(func(s *workflow.State) {
			s.Reviews = map[string]workflow.Review{"spec": pass("spec")}
		}), git, "quality (not reviewed in this visit)"},
		{"feature reviews pass", "reviews-passed", feature(func(s *workflow.State) {
			s.Reviews = map[string]workflow.Review{"spec": pass("spec"), "quality": pass("quality")}
		}), git, ""},
		{"review of an older commit", "reviews-passed", feature(func(s *workflow.State) {
			old := pass("quality")
			old.Commit = "aaaaaaa"
			s.Reviews = map[string]workflow.Review{"spec": pass("spec"), "quality": old}
		}), git, "quality (judged aaaaaaa, not the tip cccccccccccc)"},
		{"review from an earlier visit", "reviews-passed", feature(func(s *workflow.State) {
			s.EnteredAt = 9
			s.Reviews = map[string]workflow.Review{"spec": pass("spec"), "quality": pass("quality")}
		}), git, "spec (not reviewed in this visit)"},
		{"reviews while the circuit is open", "reviews-passed", feature(func(s *workflow.State) {
			s.Reviews = map[string]workflow.Review{"spec": pass("spec"), "quality": pass("quality")}
			s.Circuit = &workflow.Circuit{Compound: "implementation", Open: true, FixCycles: 3, Limit: 3}
		}), git, "circuit of implementation is open"},
		{"fix cycle without a failed review", "review-failed", feature(func(s *workflow.State) {
			s.Reviews = map[string]workflow.Review{"spec": pass("spec")}
		}), git, "no review failed in this visit"},
		{"fix cycle after a failed review", "review-failed", feature(func(s *workflow.State) {
			s.Reviews = map[string]workflow.Review{"spec": {Verdict: "fail", Commit: tip, At: 3}}
		}), git, ""},
		{"fix cycle on a failure of an earlier visit", "review-failed", feature(func(s *workflow.State) {
			s.EnteredAt = 4
			s.Reviews = map[string]workflow.Review{"spec": {Verdict: "fail", Commit: tip, At: 3}}
		}), git, "no review failed"},
		{"reviews pass with a blocking finding open", "reviews-passed", feature(func(s *workflow.State) {
			s.Reviews = map[string]workflow.Review{"spec": pass("spec"), "quality": pass("quality")}
			s.Findings = []workflow.Finding{{ID: "f1a2b3c4d", Dimension: "quality", Severity: "high", File: "a.go", Line: 7, Commit: tip}}
		}), git, "1 blocking review finding(s) open: f1a2b3c4d high a.go:7 (quality)"},
		{"reviews pass with a finding that does not block", "reviews-passed", feature(func(s *workflow.State) {
			s.Reviews = map[string]workflow.Review{"spec": pass("spec"), "quality": pass("quality")}
			s.Findings = []workflow.Finding{{ID: "f1", Dimension: "quality", Severity: "medium", File: "a.go", Commit: tip}}
		}), git, ""},
		{"reviews pass with the blocking finding closed", "reviews-passed", feature(func(s *workflow.State) {
			s.Reviews = map[string]workflow.Review{"spec": pass("spec"), "quality": pass("quality")}
			s.Findings = []workflow.Finding{{ID: "f1", Dimension: "quality", Severity: "critical", File: "a.go", Commit: "aaaaaaa",
				Closed: &workflow.FindingClosed{By: workflow.ClosedByReReview, Commit: tip}}}
		}), git, ""},
		{"fix cycle on an open blocking finding, verdicts passed", "review-failed", feature(func(s *workflow.State) {
			s.Reviews = map[string]workflow.Review{"spec": pass("spec"), "quality": pass("quality")}
			s.Findings = []workflow.Finding{{ID: "f1", Dimension: "quality", Severity: "critical", File: "a.go", Commit: tip}}
		}), git, ""},
		{"fix cycle on a finding that does not block", "review-failed", feature(func(s *workflow.State) {
			s.Reviews = map[string]workflow.Review{"spec": pass("spec")}
			s.Findings = []workflow.Finding{{ID: "f1", Dimension: "quality", Severity: "low", File: "a.go", Commit: tip}}
		}), git, "no review failed in this visit"},
		{"refactor needs quality only", "reviews-passed", with("refactor", "overhaul-review")(func(s *workflow.State) {
			s.Reviews = map[string]workflow.Review{"quality": pass("quality")}
		}), git, ""},
		{"debug needs review", "reviews-passed", with("debug", "debug-review")(func(s *workflow.State) {
			s.Reviews = map[string]workflow.Review{"review": {Verdict: "fail", Commit: tip}}
		}), git, "review (fail)"},
		{"ad-hoc validation", "validation-passed", feature(func(s *workflow.State) {
			s.Validations = []workflow.Validation{{Command: "true", Commit: tip}}
		}), git, "`true` is ad hoc"},
		{"ad-hoc run of the declared command", "validation-passed", feature(func(s *workflow.State) {
			s.Validations = []workflow.Validation{{Command: "go test", Commit: tip, AdHoc: true}}
		}), git, "is ad hoc"},
		{"validation on tip", "validation-passed", feature(func(s *workflow.State) {
			s.Validations = []workflow.Validation{{Command: "go test", Commit: tip}}
		}), git, ""},
		{"validation abbreviated sha", "validation-passed", feature(func(s *workflow.State) {
			s.Validations = []workflow.Validation{{Command: "go test", Commit: tip[:10]}}
		}), git, ""},
		{"validation on old commit", "validation-passed", feature(func(s *workflow.State) {
			s.Validations = []workflow.Validation{{Command: "go test", Commit: "aaaaaaa"}}
		}), git, "not on the branch tip"},
		{"validation failed on tip", "validation-passed", feature(func(s *workflow.State) {
			s.Validations = []workflow.Validation{{Command: "go test", Commit: tip}, {Command: "go vet", Commit: tip, ExitCode: 2}}
		}), git, "`go vet` exited 2"},
		{"no validation", "validation-passed", feature(none), git, "no run of the declared validation recorded"},
		{"track", "track-hotfix", with("debug", "investigate")(func(s *workflow.State) { s.Track = "hotfix" }), git, ""},
		{"wrong track", "track-hotfix", with("debug", "investigate")(func(s *workflow.State) { s.Track = "thorough" }), git, "selected track is thorough"},
		{"fix commit on branch", "fix-commit-recorded", with("debug", "investigate")(func(s *workflow.State) {
			s.Fields = []byte(`{"fixCommit":"aaaaaaa"}`)
		}), git, ""},
		{"fix commit elsewhere", "fix-commit-recorded", with("debug", "investigate")(func(s *workflow.State) {
			s.Fields = []byte(`{"fixCommit":"bbbbbbb"}`)
		}), git, "is not on branch topic"},
		{"fix commit is the merge-base", "fix-commit-recorded", with("debug", "investigate")(func(s *workflow.State) {
			s.Fields = []byte(`{"fixCommit":"` + mb + `"}`)
		}), git, "is not after the branch's merge-base"},
		{"fix commit is the tip of a branch with nothing of its own", "fix-commit-recorded", with("debug", "investigate")(func(s *workflow.State) {
			s.Fields = []byte(`{"fixCommit":"` + tip + `"}`)
		}), gitWith(func(g *fakeGit) { g.mergeBase = tip }), "is not after the branch's merge-base"},
		{"no fix commit", "fix-commit-recorded", with("debug", "investigate")(none), git, "no fix commit"},
		{"sources", "sources-collected", with("discovery", "gathering")(func(s *workflow.State) { s.Fields = []byte(`{"sources":["x"]}`) }), git, ""},
		{"no sources", "sources-collected", with("discovery", "gathering")(func(s *workflow.State) { s.Fields = []byte(`{"sources":"x"}`) }), git, "no sources"},
		{"loop reviewer-pass", "loop-policy-satisfied", with("loop", "reviewing")(func(s *workflow.State) {
			s.Completion, s.Loop.ReviewerPass = "reviewer-pass", true
		}), git, ""},
		{"loop both lacks done", "loop-policy-satisfied", with("loop", "reviewing")(func(s *workflow.State) {
			s.Completion, s.Loop.ReviewerPass = "both", true
		}), git, "completion policy both not met"},
		{"loop worker-done", "loop-policy-satisfied", with("loop", "working")(func(s *workflow.State) {
			s.Completion, s.Loop.WorkerDone = "worker-done", true
		}), git, ""},
		{"synthesis always", "synthesis-required", with("oneshot", "implementing")(func(s *workflow.State) { s.Synthesis = "always" }), git, ""},
		{"synthesis not requested", "synthesis-required", with("oneshot", "implementing")(func(s *workflow.State) { s.Synthesis = "on-request" }), git, "not requested"},
		{"synthesis requested", "synthesis-not-required", with("oneshot", "implementing")(func(s *workflow.State) {
			s.Synthesis, s.SynthesisRequested = "on-request", true
		}), git, "synthesis was requested"},
		{"no PR", "pr-url-exists", feature(none), git, "no pull request linked"},
		{"PR claimed", "pr-url-exists", feature(func(s *workflow.State) {
			s.PR = &workflow.PR{PRObservation: workflow.PRObservation{URL: "https://github.com/o/r/pull/1"}}
		}), git, "GitHub has not confirmed it"},
		{"PR linked", "pr-url-exists", feature(func(s *workflow.State) {
			s.PR = &workflow.PR{Confirmed: true, PRObservation: workflow.PRObservation{URL: "https://github.com/o/r/pull/1"}}
		}), git, ""},
		{"checks unobserved", "checks-passed", feature(func(s *workflow.State) {
			s.PR = &workflow.PR{PRObservation: workflow.PRObservation{URL: "https://github.com/o/r/pull/1"}}
		}), git, "not been observed"},
		{"checks failing", "checks-passed", feature(func(s *workflow.State) {
			s.PR = &workflow.PR{Observed: true, PRObservation: workflow.PRObservation{Checks: "failure"}}
		}), git, `checks are "failure"`},
		{"checks on old head", "checks-passed", feature(func(s *workflow.State) {
			s.PR = &workflow.PR{Observed: true, PRObservation: workflow.PRObservation{Checks: "success", HeadSHA: "aaaaaaa"}}
		}), git, "observed on aaaaaaa"},
		{"checks pass", "checks-passed", feature(func(s *workflow.State) {
			s.PR = &workflow.PR{Observed: true, PRObservation: workflow.PRObservation{Checks: "success", HeadSHA: tip}}
		}), git, ""},
		{"merge unknown", "merge-verified", feature(none), git, "no merge verification recorded yet"},
		{"merge open", "merge-verified", feature(func(s *workflow.State) {
			s.PR = &workflow.PR{Observed: true, PRObservation: workflow.PRObservation{Number: 4, State: "open"}}
		}), git, "#4 was observed open, not merged"},
		{"merge observed", "merge-verified", feature(func(s *workflow.State) {
			s.PR = &workflow.PR{Observed: true, PRObservation: workflow.PRObservation{Merged: true, HeadSHA: tip}}
		}), git, ""},
		{"merge observed before a local commit", "merge-verified", feature(func(s *workflow.State) {
			s.PR = &workflow.PR{Observed: true, PRObservation: workflow.PRObservation{Merged: true, HeadSHA: "aaaaaaa"}}
		}), git, "has new commits since"},
		{"merge observed, branch rewritten", "merge-verified", feature(func(s *workflow.State) {
			s.PR = &workflow.PR{Observed: true, PRObservation: workflow.PRObservation{Merged: true, HeadSHA: "bbbbbbb"}}
		}), git, "force-pushed or rewritten"},
		{"merge verified offline", "merge-verified", feature(func(s *workflow.State) {
			s.PR = &workflow.PR{MergeVerified: true, VerifiedBy: "ancestry", Verification: &workflow.MergeVerifiedData{Method: "ancestry", HeadSHA: tip}}
		}), git, ""},
		{"merge of a branch with no commit of its own", "merge-verified", feature(func(s *workflow.State) {
			s.ForkPoint = tip
			s.PR = &workflow.PR{MergeVerified: true, VerifiedBy: "ancestry", Verification: &workflow.MergeVerifiedData{Method: "ancestry", HeadSHA: tip}}
		}), git, "carries no commit of topic beyond its merge-base"},
		{"merge verified without a head", "merge-verified", feature(func(s *workflow.State) {
			s.PR = &workflow.PR{MergeVerified: true, VerifiedBy: "ancestry", Verification: &workflow.MergeVerifiedData{Method: "ancestry"}}
		}), git, "names no head commit"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var s workflow.State
			c.state(&s)
			ev := &guards.Evaluator{Facts: c.facts, Base: "ba5e000000000000000000000000000000000000", Validation: []string{"go test", "go vet"}}
			checkFailure(t, ev.Evaluate(builtinOf(s.Type), c.guard, s, "next"), c.guard, c.reason)
		})
	}
}

// checkFailure: a guard's refusal names the guard, says why, what was expected, and a runnable
// git or git exarchos fix (or the user's step) naming the workflow f1.
func checkFailure(t *testing.T, f *workflow.GuardFailure, guard, reason string) {
	t.Helper()
	if reason == "" {
		if f != nil {
			t.Fatalf("want pass, got %+v", f)
		}
		return
	}
	if f == nil {
		t.Fatalf("want failure %q, passed", reason)
	}
	if f.Guard != guard || !strings.Contains(f.Reason, reason) || f.Expected == "" || !(strings.HasPrefix(f.Fix, "git ") || strings.HasPrefix(f.Fix, "ask the user to run")) || !strings.Contains(f.Fix, "f1") {
		t.Fatalf("failure %+v, want reason containing %q and a runnable git or git exarchos fix (or the user's step) naming the workflow", f, reason)
	}
}

func TestGuardIDs(t *testing.T) {
	ids := strings.Join(guards.IDs(), " ")
	for _, want := range []string{"artifact-design", "artifact-fix-design", "artifact-report", "merge-verified", "checks-passed", "pr-url-exists", "loop-policy-satisfied"} {
		if !strings.Contains(ids, want) {
			t.Errorf("IDs lacks %s: %s", want, ids)
		}
	}
}

func builtinOf(typ string) *workflow.Definition {
	d, _ := workflow.Builtin(typ)
	return d
}

// TestOpenFindingsFix: the finding guard's fix is the fix cycle where the phase has one, and a
// reviewer's resolve where it has none (a repository type without review-failed); the blocking
// severity follows the definition (findingsBlockAt).
func TestOpenFindingsFix(t *testing.T) {
	s := base("feature", "review")
	s.Reviews = map[string]workflow.Review{"spec": pass("spec"), "quality": pass("quality")}
	s.Findings = []workflow.Finding{{ID: "f9", Dimension: "spec", Severity: "medium", File: "a.go", Commit: tip}}
	def := builtinOf("feature").Clone()
	ev := guards.NewEvaluator(git)
	if f := ev.Evaluate(def, "reviews-passed", s, "synthesize"); f != nil {
		t.Fatalf("a medium finding blocks by default: %+v", f)
	}
	def.FindingsBlockAt = "medium"
	f := ev.Evaluate(def, "reviews-passed", s, "synthesize")
	checkFailure(t, f, "reviews-passed", "f9 medium a.go (spec)")
	if f.Fix != "git exarchos transition f1 delegate" || !strings.Contains(f.Expected, "severity medium or above") {
		t.Fatalf("fix %+v", f)
	}
	var kept []workflow.Transition
	for _, tr := range def.Transitions {
		if !slices.Contains(tr.Guards, "review-failed") {
			kept = append(kept, tr)
		}
	}
	def.Transitions = kept
	if f := ev.Evaluate(def, "reviews-passed", s, "synthesize"); f == nil || f.Fix != `git exarchos review f1 --resolve f9 --note "why it does not need a fix"` {
		t.Fatalf("fix without a fix cycle: %+v", f)
	}
}

// TestGitHubReviews: with reviewBy: github only an APPROVED review by someone other than the pull
// request's author, submitted on the branch tip and observed there, passes reviews-passed; a later
// request for changes by the same (or another) reviewer, a dismissal, an approval of an older
// commit or by the author do not.
func TestGitHubReviews(t *testing.T) {
	def := *builtinOf("feature")
	def.ReviewBy = "github"
	rv := func(who, state, commit string) workflow.PRReview {
		return workflow.PRReview{Reviewer: who, State: state, Commit: commit}
	}
	observed := func(head, author string, reviews ...workflow.PRReview) *workflow.PR {
		return &workflow.PR{Observed: true, PRObservation: workflow.PRObservation{Number: 7, HeadSHA: head, Author: author, Reviews: reviews, ReviewDecision: "APPROVED"}}
	}
	for _, c := range []struct {
		name   string
		pr     *workflow.PR
		reason string // "" = pass
	}{
		{"not observed", nil, "have not been observed"},
		{"approval by another on the tip", observed(tip, "alice", rv("bob", "APPROVED", tip)), ""},
		{"approval by another, abbreviated commit", observed(tip, "alice", rv("bob", "APPROVED", tip[:12])), ""},
		{"approval by the author", observed(tip, "alice", rv("alice", "APPROVED", tip)), "no approving review by anyone other than its author alice"},
		{"approval by the author, other case", observed(tip, "alice", rv("Alice", "APPROVED", tip)), "other than its author alice"},
		{"approval on an older commit", observed(tip, "alice", rv("bob", "APPROVED", "aaaaaaa")), "no approval of the tip cccccccccccc (bob approved aaaaaaa)"},
		{"approval without a commit", observed(tip, "alice", rv("bob", "APPROVED", "")), "bob approved no commit"},
		{"observed on an older head", observed("aaaaaaa", "alice", rv("bob", "APPROVED", "aaaaaaa")), "has new commits since"},
		{"author unknown", observed(tip, "", rv("bob", "APPROVED", tip)), "author was not observed"},
		{"later changes requested by the same reviewer", observed(tip, "alice", rv("bob", "APPROVED", tip), rv("bob", "CHANGES_REQUESTED", tip)), "changes requested by bob"},
		{"changes requested, then approved on the tip", observed(tip, "alice", rv("bob", "CHANGES_REQUESTED", "aaaaaaa"), rv("bob", "APPROVED", tip)), ""},
		{"another reviewer requests changes", observed(tip, "alice", rv("bob", "APPROVED", tip), rv("carol", "CHANGES_REQUESTED", "aaaaaaa")), "changes requested by carol"},
		{"the author's own changes request does not block", observed(tip, "alice", rv("alice", "CHANGES_REQUESTED", tip), rv("bob", "APPROVED", tip)), ""},
		{"approval dismissed", observed(tip, "alice", rv("bob", "DISMISSED", tip)), "no approving review"},
		{"re-approved on an older commit after approving the tip", observed(tip, "alice", rv("bob", "APPROVED", tip), rv("bob", "APPROVED", "aaaaaaa")), "bob approved aaaaaaa"},
		{"the decision alone is not enough", observed(tip, "alice"), "no approving review"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := base("feature", "review")
			s.PR = c.pr
			f := (&guards.Evaluator{Facts: git}).Evaluate(&def, "reviews-passed", s, "synthesize")
			if c.reason == "" {
				if f != nil {
					t.Fatalf("want pass, got %+v", f)
				}
				return
			}
			if f == nil || !strings.Contains(f.Reason, c.reason) || f.Fix != "git exarchos pr refresh f1" || f.Expected == "" {
				t.Fatalf("want failure %q with the refresh as fix, got %+v", c.reason, f)
			}
		})
	}
}

// An existing file recorded as an artifact: the fix is a step the hook lets the agent take in a
// planning phase (it writes only a recorded artifact's file): record a path of the workflow's own
// first; when that is the path recorded, commit a change to it (issue 37).
func TestArtifactExistingFileFixFollowsTheHooksOrder(t *testing.T) {
	ev := guards.NewEvaluator(fakeGit{ // both files at the tip, neither changed on the branch
		tips:      map[string]string{"topic": tip},
		files:     map[string]bool{tip + ":README.md": true, tip + ":docs/f1-design.md": true},
		mergeBase: mb,
	})
	for path, fix := range map[string]string{
		"README.md":         "git exarchos set f1 artifacts.design=docs/f1-design.md",
		"docs/f1-design.md": `git add docs/f1-design.md && git commit -m "f1: design"`,
	} {
		s := base("feature", "ideate")
		s.Artifacts = map[string]workflow.Artifact{"design": {Path: path}}
		s.ForkPoint = mb
		f := ev.Evaluate(builtinOf("feature"), "artifact-design", s, "plan")
		if f == nil || f.Fix != fix || !strings.Contains(f.Reason, "an existing file is not this workflow's design") {
			t.Errorf("%s: %+v, want the fix %q", path, f, fix)
		}
	}
}
