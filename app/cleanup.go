package app

import (
	"errors"
	"fmt"
	"strings"

	"github.com/exarchos/git-exarchos/workflow"
)

// CleanupOptions completes a workflow once its work is merged (`git exarchos cleanup`).
type CleanupOptions struct {
	Feature string
	// Offline verifies the merge without GitHub: the branch tip must be an ancestor of
	// <remote>/<base> in this repository (fetch first).
	Offline bool
	Base    string // offline: the base branch; default the PR's base, exarchos.base, <remote>/HEAD, main
	// Override completes without evidence, as a recorded human decision with Reason.
	Override bool
	Reason   string
}

// CleanupResult is what cleanup prints.
type CleanupResult struct {
	*Result
	// Evidence is what verified the merge; nil with --override.
	Evidence    *workflow.MergeVerifiedData `json:"evidence,omitempty"`
	Observation *workflow.PRObservation     `json:"observation,omitempty"`
	Requests    int                         `json:"requests"`
	Warnings    []string                    `json:"warnings"`
	Already     bool                        `json:"alreadyCompleted,omitempty"`
}

// Cleanup verifies the merge (GitHub, or ancestry with Offline), records the evidence and completes
// the workflow, in one commit. No option asserts "merged": Override is a human's recorded decision.
func Cleanup(r *Repo, o CleanupOptions) (*CleanupResult, error) {
	feature, st, snap, err := r.ResolveState(o.Feature)
	if err != nil {
		return nil, err
	}
	if def, err := r.definition(st.Type); err == nil && def.IsFinal(st.Phase) && st.Phase == completedPhase(def) {
		return &CleanupResult{Result: &Result{Feature: feature, Head: snap.Commit.String(), State: st, Appended: []workflow.Event{}}, Already: true, Warnings: []string{}}, nil
	}
	switch {
	case o.Override && strings.TrimSpace(o.Reason) == "":
		return nil, Usagef("--override needs --reason \"why the merge cannot be verified\"")
	case o.Override && o.Offline:
		return nil, Usagef("--override and --offline exclude each other")
	case o.Override:
		res, err := r.Execute(feature, workflow.OverrideGuard{Guard: "merge-verified", Reason: o.Reason}, workflow.Cleanup{})
		if err != nil {
			return nil, err
		}
		return &CleanupResult{Result: res, Warnings: []string{}}, nil
	case o.Offline:
		return r.cleanupOffline(feature, st, o.Base)
	}
	return r.cleanupOnline(feature, st)
}

// completedPhase is the definition's completion target (completed, or complete for loops).
func completedPhase(def *workflow.Definition) string {
	for _, t := range def.Transitions {
		if t.TakenBy(workflow.OnCleanup) {
			return t.To
		}
	}
	return "completed"
}

func (r *Repo) cleanupOnline(feature string, st workflow.State) (*CleanupResult, error) {
	pr, obs, err := r.observe(feature, st)
	if err != nil {
		if errors.Is(err, ErrNotLinked) {
			return nil, fmt.Errorf("%w (or verify without GitHub: git exarchos cleanup %s --offline)", err, feature)
		}
		return nil, err
	}
	var observe []workflow.Command
	if pr.Changed {
		observe = append(observe, workflow.ObservePR{PRObservation: obs})
	}
	out := &CleanupResult{Observation: &obs, Requests: pr.Requests, Warnings: pr.Warnings}
	notMerged := func(reason, fix string) (*CleanupResult, error) {
		if len(observe) > 0 { // the observation is a fact even though it refuses cleanup
			if _, err := r.Execute(feature, observe...); err != nil {
				return nil, err
			}
		}
		return nil, &workflow.Rejection{Code: workflow.CodeGuardFailed, Message: "cleanup refused: the merge is not verified", Phase: st.Phase,
			FailedGuards: []workflow.GuardFailure{{Guard: "merge-verified", Reason: reason, Expected: "a merged pull request", Fix: fix}}}
	}
	switch {
	case obs.State == "closed" && !obs.Merged:
		return notMerged(fmt.Sprintf("pull request #%d was closed without being merged (%s)", obs.Number, obs.ObservedAt),
			fmt.Sprintf("git exarchos pr link %s <url of the pull request that merged the work>", feature))
	case !obs.Merged:
		return notMerged(fmt.Sprintf("pull request #%d is %s, not merged (checks %s, observed %s)", obs.Number, obs.State, obs.Checks, obs.ObservedAt),
			fmt.Sprintf("merge %s, then run git exarchos cleanup %s", obs.URL, feature))
	}
	evidence := workflow.MergeVerifiedData{Method: "github", Commit: obs.MergeCommitSHA, Base: obs.Base, HeadSHA: obs.HeadSHA, ObservedAt: obs.ObservedAt}
	res, err := r.Execute(feature, append(observe, workflow.VerifyMerge{MergeVerifiedData: evidence}, workflow.Cleanup{})...)
	if err != nil {
		if IsRejection(err) && len(observe) > 0 {
			if _, err2 := r.Execute(feature, observe...); err2 != nil {
				return nil, err2
			}
		}
		return nil, err
	}
	out.Result, out.Evidence = res, &evidence
	return out, nil
}

func (r *Repo) cleanupOffline(feature string, st workflow.State, base string) (*CleanupResult, error) {
	facts := r.Store.Facts()
	tip, err := facts.BranchTip(st.Branch)
	if err != nil {
		return nil, fmt.Errorf("cannot verify %s offline: %w", feature, err)
	}
	remote := "origin"
	if v, err := r.Store.Loc.Git(nil, "config", "--get", "branch."+st.Branch+".remote"); err == nil && strings.TrimSpace(v) != "" && strings.TrimSpace(v) != "." {
		remote = strings.TrimSpace(v)
	}
	if base == "" && st.PR != nil {
		base = st.PR.Base
	}
	if base == "" {
		base, _ = r.Store.Config("exarchos.base")
	}
	if base == "" {
		if v, err := r.Store.Loc.Git(nil, "symbolic-ref", "--quiet", "--short", "refs/remotes/"+remote+"/HEAD"); err == nil {
			base = strings.TrimPrefix(strings.TrimSpace(v), remote+"/")
		}
	}
	if base == "" {
		base = "main"
	}
	ref := remote + "/" + base
	baseTip, ok, err := facts.ResolveRef("refs/remotes/" + ref)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, Usagef("there is no remote-tracking branch %s to check %s against: run `git fetch %s %s` (or pass --base <branch>)", ref, st.Branch, remote, base)
	}
	merged, err := facts.IsAncestor(tip, baseTip)
	if err != nil {
		return nil, err
	}
	if !merged {
		return nil, &workflow.Rejection{Code: workflow.CodeGuardFailed, Message: "cleanup refused: the merge is not verified", Phase: st.Phase,
			FailedGuards: []workflow.GuardFailure{{Guard: "merge-verified",
				Reason:   fmt.Sprintf("branch %s (%s) is not contained in %s (%s)", st.Branch, shortSHA(tip), ref, shortSHA(baseTip)),
				Expected: "the branch tip to be an ancestor of " + ref,
				Fix:      fmt.Sprintf("git fetch %s %s && git exarchos cleanup %s --offline", remote, base, feature)}}}
	}
	evidence := workflow.MergeVerifiedData{Method: "ancestry", Commit: baseTip, Base: ref, HeadSHA: tip,
		Note: fmt.Sprintf("%s is an ancestor of %s in the local repository", shortSHA(tip), ref)}
	res, err := r.Execute(feature, workflow.VerifyMerge{MergeVerifiedData: evidence}, workflow.Cleanup{})
	if err != nil {
		return nil, err
	}
	return &CleanupResult{Result: res, Evidence: &evidence, Warnings: []string{}}, nil
}
