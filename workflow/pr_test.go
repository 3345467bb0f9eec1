package workflow_test

import (
	"strings"
	"testing"

	"github.com/exarchos/git-exarchos/workflow"
)

// linkPR links a pull request as `pr link` does after GitHub confirmed it, on the branch tip.
func (r *run) linkPR(url string) {
	r.t.Helper()
	r.must(workflow.LinkPR{URL: url, Head: "topic", Base: "main", HeadSHA: r.repo.tips["topic"], Confirmed: true})
}

// synthesisFails records what a retry of synthesis needs: the pull request (linked if it is not)
// observed with its checks failing on the branch tip.
func (r *run) synthesisFails() {
	r.t.Helper()
	if r.state.PR == nil {
		r.linkPR("https://github.com/acme/app/pull/12")
	}
	r.must(workflow.ObservePR{PRObservation: workflow.PRObservation{Number: 12, URL: r.state.PR.URL, Head: "topic", Base: "main", HeadSHA: r.repo.tips["topic"],
		State: "open", Checks: "failure", Failing: []string{"ci"}, ObservedAt: "2026-01-02T03:04:05Z"}})
}

func toSynthesize(t *testing.T) *run {
	r := featureToReview(t)
	r.must(workflow.RecordReview{Dimension: "spec", Pass: true}, workflow.RecordReview{Dimension: "quality", Pass: true})
	r.to("synthesize")
	r.linkPR("https://github.com/acme/app/pull/12")
	return r
}

func observe(r *run, o workflow.PRObservation) {
	r.t.Helper()
	o.Number, o.URL = 12, "https://github.com/acme/app/pull/12"
	if o.HeadSHA == "" {
		o.HeadSHA = r.repo.tips["topic"]
	}
	r.must(workflow.ObservePR{PRObservation: o})
}

func TestChecksPassedIsOptIn(t *testing.T) {
	// Without the opt-in, synthesize → completed needs only the confirmed PR.
	r := toSynthesize(t)
	r.to("completed")
	if g := string(r.log[len(r.log)-1].Data); strings.Contains(g, "checks-passed") {
		t.Fatalf("checks-passed evaluated without the opt-in: %s", g)
	}

	r = toSynthesize(t)
	r.env.OptIn = map[string]bool{"checks-passed": true}
	rej := r.refuse(workflow.CodeGuardFailed, workflow.TransitionTo{Phase: "completed"})
	if rej.FailedGuards[0].Guard != "checks-passed" || rej.FailedGuards[0].Fix != "git exarchos pr refresh login" {
		t.Fatalf("%+v", rej.FailedGuards)
	}
	observe(r, workflow.PRObservation{State: "open", Checks: "failure", Failing: []string{"lint"}})
	rej = r.refuse(workflow.CodeGuardFailed, workflow.TransitionTo{Phase: "completed"})
	if !strings.Contains(rej.FailedGuards[0].Reason, "lint") {
		t.Fatalf("reason should name the failing check: %+v", rej.FailedGuards)
	}
	observe(r, workflow.PRObservation{State: "open", Checks: "success"})
	// The branch moves after the observation: the checks no longer describe it.
	observed := r.repo.tips["topic"]
	r.repo.commit("topic", "late.go")
	rej = r.refuse(workflow.CodeGuardFailed, workflow.TransitionTo{Phase: "completed"})
	if !strings.Contains(rej.FailedGuards[0].Reason, "new commits since") {
		t.Fatalf("%+v", rej.FailedGuards)
	}
	// A rewrite (force-push) says so.
	r.repo.tips["topic"] = r.repo.commit("other", "x.go")
	rej = r.refuse(workflow.CodeGuardFailed, workflow.TransitionTo{Phase: "completed"})
	if !strings.Contains(rej.FailedGuards[0].Reason, "force-pushed") {
		t.Fatalf("%+v", rej.FailedGuards)
	}
	r.repo.tips["topic"] = observed
	r.to("completed")
	if g := string(r.log[len(r.log)-1].Data); !strings.Contains(g, "checks-passed") {
		t.Fatalf("the transition must list checks-passed: %s", g)
	}
	r.checkReplay()
}

func TestChecksPassedOverride(t *testing.T) {
	r := toSynthesize(t)
	r.env.OptIn = map[string]bool{"checks-passed": true}
	r.must(workflow.OverrideGuard{Guard: "checks-passed", Reason: "CI is down, verified locally"})
	r.to("completed")
	if g := string(r.log[len(r.log)-1].Data); !strings.Contains(g, `"overridden":["checks-passed"]`) {
		t.Fatalf("%s", g)
	}
}

func TestMergeVerifiedNeedsEvidenceNewerThanLocalChanges(t *testing.T) {
	r := toSynthesize(t)
	rej := r.refuse(workflow.CodeGuardFailed, workflow.Cleanup{})
	if !strings.Contains(rej.FailedGuards[0].Reason, "no merge verification") {
		t.Fatalf("%+v", rej.FailedGuards)
	}
	observe(r, workflow.PRObservation{State: "open"})
	rej = r.refuse(workflow.CodeGuardFailed, workflow.Cleanup{})
	if !strings.Contains(rej.FailedGuards[0].Reason, "observed open, not merged") {
		t.Fatalf("%+v", rej.FailedGuards)
	}
	observe(r, workflow.PRObservation{State: "closed"})
	rej = r.refuse(workflow.CodeGuardFailed, workflow.Cleanup{})
	if !strings.Contains(rej.FailedGuards[0].Reason, "observed closed, not merged") {
		t.Fatalf("%+v", rej.FailedGuards)
	}
	merged := r.repo.tips["topic"]
	observe(r, workflow.PRObservation{State: "closed", Merged: true, MergeCommitSHA: "m1"})
	// A local commit after the observation is not merged.
	r.repo.commit("topic", "after.go")
	rej = r.refuse(workflow.CodeGuardFailed, workflow.Cleanup{})
	if !strings.Contains(rej.FailedGuards[0].Reason, "GitHub reported the merge") || !strings.Contains(rej.FailedGuards[0].Reason, "new commits since") {
		t.Fatalf("%+v", rej.FailedGuards)
	}
	// A branch behind the merged head is fine; so is a deleted branch.
	r.repo.tips["topic"] = r.repo.parents[merged]
	if _, rej := decide(r.state, workflow.Cleanup{}, r.env); rej != nil {
		t.Fatalf("a branch behind the merged head: %v", rej)
	}
	delete(r.repo.tips, "topic")
	r.must(workflow.Cleanup{})
	r.phase("completed")
	r.checkReplay()
}

func TestMergeVerificationWithoutHeadFailsClosed(t *testing.T) {
	r := newRun(t, "login", "feature", workflow.Init{})
	r.must(workflow.VerifyMerge{MergeVerifiedData: workflow.MergeVerifiedData{Method: "github"}})
	rej := r.refuse(workflow.CodeGuardFailed, workflow.Cleanup{})
	if !strings.Contains(rej.FailedGuards[0].Reason, "names no head commit") {
		t.Fatalf("%+v", rej.FailedGuards)
	}
}

func TestRelinkForgetsTheOldPullRequest(t *testing.T) {
	r := toSynthesize(t)
	observe(r, workflow.PRObservation{State: "closed", Merged: true})
	r.must(workflow.VerifyMerge{MergeVerifiedData: workflow.MergeVerifiedData{Method: "github", HeadSHA: r.repo.tips["topic"]}})
	r.must(workflow.LinkPR{URL: "https://github.com/acme/app/pull/13"})
	if pr := r.state.PR; pr.Number != 13 || pr.Observed || pr.MergeVerified || pr.Confirmed || pr.Verification != nil {
		t.Fatalf("%+v", pr)
	}
	r.refuse(workflow.CodeBadInput, workflow.LinkPR{URL: "https://github.com/acme/app/pull/13", Number: 14})
	r.checkReplay()
}

func TestObservationSameAs(t *testing.T) {
	a := workflow.PRObservation{Number: 1, Checks: "success", Failing: []string{"x"}, ObservedAt: "t1"}
	b := a
	b.ObservedAt = "t2"
	if !a.SameAs(b) {
		t.Fatal("observations differing only in time must be the same")
	}
	b.Failing = []string{"y"}
	if a.SameAs(b) {
		t.Fatal("different failing checks")
	}
}
