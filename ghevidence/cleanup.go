package ghevidence

import (
	"errors"
	"fmt"
	"strings"

	"github.com/exarchos/git-exarchos/project"
	"github.com/exarchos/git-exarchos/trust"
	"github.com/exarchos/git-exarchos/workflow"
)

// CleanupOptions completes a workflow once its work is merged (`git exarchos cleanup`).
type CleanupOptions struct {
	Feature string
	// Offline verifies the merge without GitHub: the branch tip must be an ancestor of
	// <remote>/<base> in this repository (fetch first).
	Offline bool
	// Base, if given, must name the protected base branch (Repo.Base): offline verification
	// accepts no other.
	Base string
	// Override completes without evidence, as a recorded human decision with Reason.
	Override bool
	Reason   string
	// DryRun verifies as a real run does and writes nothing: the result lists what would be
	// recorded (Repo.Preview).
	DryRun bool
}

// CleanupResult is what cleanup prints.
type CleanupResult struct {
	*project.Result
	// Evidence is what verified the merge; nil with --override.
	Evidence    *workflow.MergeVerifiedData `json:"evidence,omitempty"`
	Observation *workflow.PRObservation     `json:"observation,omitempty"`
	Requests    int                         `json:"requests"`
	Warnings    []string                    `json:"warnings"`
	Already     bool                        `json:"alreadyCompleted,omitempty"`
	DryRun      bool                        `json:"dryRun,omitempty"`
}

// Cleanup verifies the merge (GitHub, or ancestry with Offline), records the evidence and completes
// the workflow, in one commit. No option asserts "merged": Override is a human's recorded decision.
func Cleanup(r *Repo, o CleanupOptions) (*CleanupResult, error) {
	res, err := cleanup(r, o)
	if res != nil {
		res.DryRun = o.DryRun
	}
	return res, err
}

// record writes the commands' events, or with a dry run only decides them.
func (o CleanupOptions) record(r *Repo, feature string, cmds ...workflow.Command) (*project.Result, error) {
	if o.DryRun {
		return r.Preview(feature, cmds...)
	}
	return r.Execute(feature, cmds...)
}

func cleanup(r *Repo, o CleanupOptions) (*CleanupResult, error) {
	feature, st, snap, err := r.ResolveState(o.Feature)
	if err != nil {
		return nil, err
	}
	if def, err := r.Definition(st.Type); err == nil && def.IsFinal(st.Phase) && st.Phase == completedPhase(def) {
		return &CleanupResult{Result: &project.Result{Feature: feature, Head: snap.Commit.String(), State: st, Appended: []workflow.Event{}}, Already: true, Warnings: []string{}}, nil
	}
	switch {
	case o.Override && strings.TrimSpace(o.Reason) == "":
		return nil, project.Usagef("--override needs --reason \"why the merge cannot be verified\"")
	case o.Override && o.Offline:
		return nil, project.Usagef("--override and --offline exclude each other")
	case o.Override:
		if err := r.RefuseDecision(feature, "cleanup "+feature+" --override --reason …"); err != nil {
			return nil, err
		}
		res, err := o.record(r, feature, workflow.OverrideGuard{Guard: "merge-verified", Reason: o.Reason}, workflow.Cleanup{})
		if err != nil {
			return nil, err
		}
		return &CleanupResult{Result: res, Warnings: []string{}}, nil
	case o.Offline:
		return r.cleanupOffline(feature, st, o)
	}
	return r.cleanupOnline(feature, st, o)
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

func (r *Repo) cleanupOnline(feature string, st workflow.State, o CleanupOptions) (*CleanupResult, error) {
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
		if len(observe) > 0 && !o.DryRun { // the observation is a fact even though it refuses cleanup
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
	case obs.Head != st.Branch:
		// A merged pull request of another branch says nothing about this workflow's work.
		return notMerged(fmt.Sprintf("pull request #%d merged branch %s, not the workflow's branch %s", obs.Number, obs.Head, st.Branch),
			fmt.Sprintf("git exarchos pr find %s", feature))
	}
	// The head commit is checked by the merge-verified guard: the branch tip must be it or an
	// ancestor of it, and it must carry commits beyond the fork point.
	evidence := workflow.MergeVerifiedData{Method: "github", Commit: obs.MergeCommitSHA, Base: obs.Base, HeadSHA: obs.HeadSHA, ObservedAt: obs.ObservedAt, APIHost: pr.APIHost}
	res, err := o.record(r, feature, append(observe, workflow.VerifyMerge{MergeVerifiedData: evidence}, workflow.Cleanup{})...)
	if err != nil {
		if project.IsRejection(err) && len(observe) > 0 && !o.DryRun {
			if _, err2 := r.Execute(feature, observe...); err2 != nil {
				return nil, err2
			}
		}
		return nil, err
	}
	out.Result, out.Evidence = res, &evidence
	return out, nil
}

// cleanupOffline verifies the merge from the local repository alone. Only the protected base
// branch counts (Repo.Base: its remote-tracking ref, or the local default branch in a repository
// with no remote): a branch the agent pushed, --base or exarchos.base would let any ref "contain"
// the work. The branch must carry at least one commit beyond the fork point recorded at init.
func (r *Repo) cleanupOffline(feature string, st workflow.State, o CleanupOptions) (*CleanupResult, error) {
	asked := o.Base
	facts := r.Facts()
	tip, err := facts.BranchTip(st.Branch)
	if err != nil {
		return nil, fmt.Errorf("cannot verify %s offline: %w", feature, err)
	}
	base := r.Base()
	if base.Problem != "" {
		return nil, project.Usagef("cannot verify %s offline: %s", feature, base.Problem)
	}
	if asked != "" && !namesRef(asked, base.Ref) {
		return nil, project.Usagef("--base %s is not the protected base branch %s (%s): offline verification checks only against it; drop --base", asked, base.Ref, base.Source)
	}
	if err := refuseLocalBase(r, base, st.Branch, feature, tip); err != nil {
		return nil, err
	}
	refused := func(reason, expected, fix string) (*CleanupResult, error) {
		return nil, &workflow.Rejection{Code: workflow.CodeGuardFailed, Message: "cleanup refused: the merge is not verified", Phase: st.Phase,
			FailedGuards: []workflow.GuardFailure{{Guard: "merge-verified", Reason: reason, Expected: expected, Fix: fix}}}
	}
	fp := st.ForkPoint
	if fp == "" {
		return refused(fmt.Sprintf("workflow %s recorded no fork point at init, so its own commits cannot be told from the base's offline", feature),
			"a workflow started by this version, or a merge GitHub reports", fmt.Sprintf("git exarchos cleanup %s", feature))
	}
	if none, err := facts.IsAncestor(tip, fp); err != nil {
		return nil, err
	} else if none {
		return refused(fmt.Sprintf("branch %s (%s) has no commit beyond its merge-base %s with the base branch: there is nothing of its own to have been merged", st.Branch, shortSHA(tip), shortSHA(fp)),
			"at least one commit on "+st.Branch+" merged into "+base.Ref,
			fmt.Sprintf("commit the work on %s first and merge it into %s; then run git exarchos cleanup %s --offline again", st.Branch, shortRef(base.Ref), feature))
	}
	merged, err := facts.IsAncestor(tip, base.Commit)
	if err != nil {
		return nil, err
	}
	if !merged {
		return refused(fmt.Sprintf("branch %s (%s) is not contained in %s (%s)", st.Branch, shortSHA(tip), base.Ref, shortSHA(base.Commit)),
			"the branch tip to be an ancestor of "+base.Ref, offlineMergeFix(base.Ref, st.Branch, feature))
	}
	evidence := workflow.MergeVerifiedData{Method: "ancestry", Commit: base.Commit, Base: base.Ref, HeadSHA: tip,
		Note: fmt.Sprintf("%s (with commits after the fork point %s) is an ancestor of %s, the base branch chosen by %s, in the local repository", shortSHA(tip), shortSHA(fp), base.Ref, base.Source)}
	res, err := o.record(r, feature, workflow.VerifyMerge{MergeVerifiedData: evidence}, workflow.Cleanup{})
	if err != nil {
		return nil, err
	}
	return &CleanupResult{Result: res, Evidence: &evidence, Warnings: []string{}}, nil
}

// namesRef reports whether a short name (main, origin/main) or full ref names ref.
func namesRef(name, ref string) bool {
	return name == ref || "refs/heads/"+name == ref || "refs/remotes/"+name == ref || strings.HasPrefix(ref, "refs/remotes/") && strings.HasSuffix(ref, "/"+name) && strings.Count(name, "/") == 0
}

// offlineMergeFix is how the work reaches the base branch the offline check reads: merged into a
// local base, or, for a remote's branch, merged there and fetched (guards' words, so a refusal
// never prints the command it refuses as its own fix).
func offlineMergeFix(baseRef, branch, feature string) string {
	if short, ok := strings.CutPrefix(baseRef, "refs/heads/"); ok && short != branch {
		return workflow.OfflineLocalLine(short, branch, feature)
	}
	return workflow.OfflineRemoteFix(strings.TrimPrefix(baseRef, "refs/remotes/"), branch, feature)
}

func shortRef(ref string) string {
	return strings.TrimPrefix(strings.TrimPrefix(ref, "refs/heads/"), "refs/remotes/")
}

// refuseLocalBase: an offline merge counts only on a base the agent cannot move by itself. A
// remote's branch is read as fetched (project.Base refuses one moved outside fetch); a local
// branch or tag is one any process in the repository moves with git merge, so in an agent's
// session its ancestry is the user's decision: the user runs cleanup --offline (after the merge,
// when it is not done yet).
func refuseLocalBase(r *Repo, base *project.Base, branch, feature, tip string) error {
	if strings.HasPrefix(base.Ref, "refs/remotes/") {
		return nil
	}
	err := r.RefuseDecision(feature, "cleanup "+feature+" --offline")
	var refusal *trust.AgentRefusal
	if !errors.As(err, &refusal) {
		return err
	}
	refusal.Why = fmt.Sprintf("the base branch %s is a local ref that any process here can move, so only the user can say the work is merged", base.Ref)
	if merged, e := r.Facts().IsAncestor(tip, base.Commit); e != nil || !merged {
		if short, ok := strings.CutPrefix(base.Ref, "refs/heads/"); ok {
			refusal.Line = workflow.OfflineLocalLine(short, branch, feature)
		}
	}
	return refusal
}
