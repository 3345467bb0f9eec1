// Package saga is the cancel saga and the resources it compensates: a task's worktree and branch
// made when the task starts (worktree.go), their compensation in reverse order when a workflow is
// cancelled, one recorded step each and idempotent, so running cancel again resumes where a crash
// stopped it (cancel.go), the rescue refs that keep work a step would lose (the records' format
// and logic in rescue_records.go, over gitrepo's generic git operations; `rescue list|restore` in
// rescue.go), and prune, which cancels what went stale (prune.go). Every step is recorded through
// the command engine the caller passes in (Executor: app's Execute).
//
// It may import trust, project, ghclient, gitstore, gitrepo, workflow and the internal helpers;
// never the hook runtime, app or cmd. internal/archtest holds the rule.
package saga

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/exarchos/git-exarchos/ghclient"
	"github.com/exarchos/git-exarchos/gitrepo"
	"github.com/exarchos/git-exarchos/internal/faults"
	"github.com/exarchos/git-exarchos/project"
	"github.com/exarchos/git-exarchos/trust"
	"github.com/exarchos/git-exarchos/workflow"
)

// Executor runs workflow commands against a feature and appends what they record in one commit
// (app's Repo.Execute: decide, gather facts, sign, compare-and-swap).
type Executor interface {
	Execute(feature string, cmds ...workflow.Command) (*project.Result, error)
}

// Repo is what the saga works on: an opened repository with trust, and the engine that records
// each step.
type Repo struct {
	*trust.Repo
	Executor
}

// CancelOptions cancels a workflow (`git exarchos cancel`).
type CancelOptions struct {
	Feature string
	Reason  string
	DryRun  bool
	// SkipPR leaves a linked pull request as it is: its close step is recorded as skipped by the
	// user (for working without GitHub access).
	SkipPR bool
	// Human marks the cancel as the user's decision (required past the planning phases).
	Human bool
}

// StepReport is one compensation step: performed, planned (--dry-run) or left pending.
type StepReport struct {
	Resource string `json:"resource"`
	Kind     string `json:"kind"`
	Task     string `json:"task,omitempty"`
	Action   string `json:"action"`
	Outcome  string `json:"outcome,omitempty"` // done | skipped | failed; empty when pending
	Detail   string `json:"detail,omitempty"`
	Fix      string `json:"fix,omitempty"`
	Ref      string `json:"ref,omitempty"`
	Commit   string `json:"commit,omitempty"`
	cause    error  // why it failed, for the exit code (GitHub access → 4)
}

// CancelResult is what `cancel` prints.
type CancelResult struct {
	Feature string `json:"feature"`
	Type    string `json:"type"`
	Phase   string `json:"phase"`
	DryRun  bool   `json:"dryRun"`
	// Steps are the steps this run performed, or with --dry-run the plan with what each would do.
	Steps []StepReport `json:"steps"`
	// Pending are the steps left for the next `cancel` (after a failure).
	Pending []StepReport `json:"pending"`
	Head    string       `json:"head,omitempty"`
	// Needs is, for a dry run, what the real cancel needs that the dry run did not (--human past
	// the planning phases): a dry run decides nothing, so it is not refused for it.
	Needs string `json:"needs,omitempty"`
}

// Cancelled reports whether the workflow reached its cancelled phase.
func (c *CancelResult) Cancelled() bool { return c.Phase == "cancelled" }

// CancelIncompleteError says a cancel stopped with failed steps; the workflow stays cancelling.
type CancelIncompleteError struct {
	Feature string
	Failed  []StepReport
	Result  *CancelResult
}

// Unwrap returns the causes of the failed steps, so that a GitHub access failure is classified as one.
func (e *CancelIncompleteError) Unwrap() []error {
	var out []error
	for _, f := range e.Failed {
		if f.cause != nil {
			out = append(out, f.cause)
		}
	}
	return out
}

func (e *CancelIncompleteError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s stays in cancelling: %d step(s) failed", e.Feature, len(e.Failed))
	for _, f := range e.Failed {
		fmt.Fprintf(&b, "\n  %s %s: %s", f.Action, f.Resource, f.Detail)
		if f.Fix != "" {
			fmt.Fprintf(&b, "\n    fix: %s", f.Fix)
		}
	}
	fmt.Fprintf(&b, "\nthen run: git exarchos cancel %s", e.Feature)
	return b.String()
}

// Cancel runs the cancel saga: record the request (the workflow enters cancelling), compensate
// every recorded resource in reverse creation order, one compensation.step event per step, then
// move to cancelled. Steps already recorded are not run again, so a cancel killed at any point
// resumes where it stopped. A failed step is recorded with the reason and the fix; the steps of
// the same task wait, other tasks go on, and the workflow stays cancelling for the next run.
func Cancel(r *Repo, o CancelOptions) (*CancelResult, error) {
	feature, st, snap, err := r.ResolveState(o.Feature)
	if err != nil {
		return nil, err
	}
	if err := r.RefuseDecisions(feature, workflow.Cancel{Human: o.Human}); err != nil {
		return nil, err // before any compensation runs
	}
	def, err := r.Definition(st.Type)
	if err != nil {
		return nil, err
	}
	res := &CancelResult{Feature: feature, Type: st.Type, Phase: st.Phase, DryRun: o.DryRun, Steps: []StepReport{}, Pending: []StepReport{}, Head: snap.Commit.String()}
	ended := workflow.EndedByCancel(def, st)
	if def.IsFinal(st.Phase) && !ended {
		// Ended otherwise (completed): refused like every command on a final phase.
		_, rej := workflow.Decide(def, st, workflow.Cancel{Reason: o.Reason, Human: o.Human}, workflow.Env{})
		return nil, rej
	}
	c := &compensator{loc: r.Store.Loc, feature: feature, st: st, skipPR: o.SkipPR}
	if ended && (o.DryRun || len(workflow.CompensationPlan(st)) == 0) {
		// A finished cancel run again: nothing to do, or (dry run) the steps that a merge
		// brought in and a real run would perform.
		for _, s := range workflow.CompensationPlan(st) {
			res.Steps = append(res.Steps, c.run(s, true))
		}
		return res, nil
	}
	if o.DryRun {
		if _, rej := workflow.Decide(def, st, workflow.Cancel{Reason: o.Reason, Human: o.Human}, workflow.Env{}); rej != nil && rej.Code != workflow.CodeCompensationPending {
			if rej.Code != workflow.CodeHumanDecision {
				return nil, rej
			}
			res.Needs = rej.Message
		}
		for _, s := range workflow.CompensationPlan(st) {
			res.Steps = append(res.Steps, c.run(s, true))
		}
		return res, nil
	}
	if st.Phase != def.CancellingPhase() && !ended {
		out, err := r.Execute(feature, workflow.Cancel{Reason: o.Reason, Human: o.Human})
		if err != nil {
			return nil, err
		}
		res.Phase, res.Head = out.State.Phase, out.Head
		faults.Hit("")
		if res.Cancelled() {
			return res, nil // nothing to compensate
		}
	}
	blocked := map[string]bool{} // groups (tasks) with a failed step: their later steps wait
	var failed []StepReport
	for n := 1; ; n++ {
		st, _, err := r.State(feature)
		if err != nil {
			return res, err
		}
		c.st = st
		next, found := workflow.Step{}, false
		for _, s := range workflow.CompensationPlan(st) {
			if !blocked[group(s.Resource)] {
				next, found = s, true
				break
			}
		}
		if !found {
			break
		}
		faults.Step(n)
		rep := c.run(next, false)
		faults.Hit("act")
		out, err := r.Execute(feature, workflow.RecordCompensation{CompensationData: workflow.CompensationData{
			Resource: rep.Resource, Action: rep.Action, Outcome: rep.Outcome, Detail: rep.Detail, Fix: rep.Fix, Ref: rep.Ref, Commit: rep.Commit}})
		if err != nil {
			return res, fmt.Errorf("record %s %s (%s: %s): %w", rep.Action, rep.Resource, rep.Outcome, rep.Detail, err)
		}
		res.Head = out.Head
		res.Steps = append(res.Steps, rep)
		faults.Hit("")
		if rep.Outcome == workflow.OutcomeFailed {
			blocked[group(next.Resource)] = true
			failed = append(failed, rep)
		}
	}
	if len(failed) > 0 {
		st, _, err := r.State(feature)
		if err != nil {
			return res, err
		}
		for _, s := range workflow.CompensationPlan(st) {
			res.Pending = append(res.Pending, report(s))
		}
		res.Phase = st.Phase
		return res, &CancelIncompleteError{Feature: feature, Failed: failed, Result: res}
	}
	if ended {
		return res, nil // the late resources are compensated; the workflow had already ended
	}
	out, err := r.Execute(feature, workflow.Cancel{Reason: o.Reason, Human: o.Human})
	if err != nil {
		return res, err
	}
	res.Phase, res.Head = out.State.Phase, out.Head
	return res, nil
}

// group is what a failed step holds back: the rest of its task (the branch waits for its
// worktree), or the resource alone.
func group(r workflow.Resource) string {
	if r.Task != "" {
		return "task:" + r.Task
	}
	return r.ID
}

func report(s workflow.Step) StepReport {
	return StepReport{Resource: s.Resource.ID, Kind: s.Resource.Kind, Task: s.Resource.Task, Action: s.Action}
}

// compensator performs (or, dry, describes) compensation steps on the workflow's repository.
type compensator struct {
	loc     gitrepo.Location
	feature string
	st      workflow.State
	skipPR  bool
}

func (c *compensator) run(s workflow.Step, dry bool) StepReport {
	rep := report(s)
	var err error
	switch {
	case s.Resource.Kind == workflow.ResourceWorktree && s.Action == workflow.ActionPreserve:
		err = c.preserveWorktree(s.Resource, dry, &rep)
	case s.Resource.Kind == workflow.ResourceWorktree && s.Action == workflow.ActionRemove:
		err = c.removeWorktree(s.Resource, dry, &rep)
	case s.Resource.Kind == workflow.ResourceBranch && s.Action == workflow.ActionPreserve:
		err = c.preserveBranch(s.Resource, dry, &rep)
	case s.Resource.Kind == workflow.ResourceBranch && s.Action == workflow.ActionDelete:
		err = c.deleteBranch(s.Resource, dry, &rep)
	case s.Resource.Kind == workflow.ResourcePR && s.Action == workflow.ActionClose:
		err = c.closePullRequest(s.Resource, dry, &rep)
	default:
		err = fmt.Errorf("this version of git exarchos does not know how to %s a %s: upgrade it", s.Action, s.Resource.Kind)
	}
	if err != nil {
		// Every error is reported and recorded; nothing is swallowed.
		rep.Outcome, rep.Detail, rep.cause = workflow.OutcomeFailed, err.Error(), err
		if rep.Fix == "" {
			rep.Fix = "fix the cause above, then run: git exarchos cancel " + c.feature
		}
	}
	if dry {
		if rep.Outcome == workflow.OutcomeFailed {
			rep.Outcome = "would fail"
		} else {
			rep.Outcome = "would be " + rep.Outcome
		}
	}
	return rep
}

func (c *compensator) spec(res workflow.Resource) RescueSpec {
	return RescueSpec{Feature: c.feature, Task: res.Task, Branch: res.Branch, Path: res.Path}
}

// onBranch reports whether commit is already kept by the task branch.
// inspect reads a task worktree's status and whether its HEAD is still on (an ancestor of) the
// task branch, which together decide whether it must be preserved before it is removed.
func (c *compensator) inspect(res workflow.Resource) (status gitrepo.Status, head string, kept bool, err error) {
	if status, err = c.loc.WorktreeStatus(res.Path); err != nil {
		return status, "", false, err
	}
	if head, err = c.loc.WorktreeHead(res.Path); err != nil {
		return status, "", false, err
	}
	kept, err = c.onBranch(head, res.Branch)
	return status, head, kept, err
}

func (c *compensator) onBranch(commit, branch string) (bool, error) {
	tip, ok, err := c.loc.BranchTip(branch)
	if err != nil || !ok {
		return false, err
	}
	return c.loc.IsAncestor(commit, tip)
}

func dirExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

func (c *compensator) preserveWorktree(res workflow.Resource, dry bool, rep *StepReport) error {
	w, registered, err := c.loc.FindWorktree(res.Path)
	if err != nil {
		return err
	}
	if !dirExists(res.Path) {
		// Deleted by hand: the files are gone, but commits its HEAD held may still be saved.
		if !registered || w.Head == "" {
			rep.Outcome, rep.Detail = workflow.OutcomeSkipped, fmt.Sprintf("%s is gone (deleted outside git exarchos): no files left to preserve", res.Path)
			return nil
		}
		kept, err := c.onBranch(w.Head, res.Branch)
		if err != nil || kept {
			rep.Outcome, rep.Detail = workflow.OutcomeSkipped, fmt.Sprintf("%s is gone (deleted outside git exarchos); its HEAD %s is on %s", res.Path, project.Short(w.Head), res.Branch)
			return err
		}
		rep.Outcome, rep.Detail = workflow.OutcomeDone, fmt.Sprintf("%s is gone; its HEAD %s kept at %s", res.Path, project.Short(w.Head), RescueRef(c.feature, res.Task))
		if dry {
			return nil
		}
		p, err := PreserveCommit(c.loc, c.spec(res), w.Head)
		if err != nil {
			return err
		}
		rep.Ref, rep.Commit = p.Ref, p.Commit
		return nil
	}
	if !registered {
		rep.Outcome, rep.Detail = workflow.OutcomeSkipped, fmt.Sprintf("%s is no longer a git worktree: left untouched", res.Path)
		return nil
	}
	status, head, kept, err := c.inspect(res)
	if err != nil {
		return err
	}
	if !status.Dirty() && kept {
		rep.Outcome, rep.Detail = workflow.OutcomeSkipped, fmt.Sprintf("clean; HEAD %s is on %s", project.Short(head), res.Branch)
		return nil
	}
	ref := RescueRef(c.feature, res.Task)
	rep.Outcome, rep.Detail = workflow.OutcomeDone, fmt.Sprintf("%s (%s) preserved at %s", res.Path, status, ref)
	if dry {
		return nil
	}
	p, note, err := PreserveWorktree(c.loc, c.spec(res))
	if err != nil {
		return err
	}
	rep.Ref, rep.Commit = p.Ref, p.Commit
	if !p.Written {
		rep.Detail += " (already there: " + project.Short(p.Commit) + ")"
	}
	if note != "" {
		rep.Detail += "; " + note
	}
	return nil
}

func (c *compensator) removeWorktree(res workflow.Resource, dry bool, rep *StepReport) error {
	w, registered, err := c.loc.FindWorktree(res.Path)
	if err != nil {
		return err
	}
	exists := dirExists(res.Path)
	switch {
	case !registered && !exists:
		rep.Outcome, rep.Detail = workflow.OutcomeDone, "already removed"
		if dry {
			return nil
		}
		// A run killed while deleting the copy set aside left it: finish.
		if err := c.loc.DiscardWorktree(res.Path); err != nil {
			return err
		}
		return c.prune(res)
	case !registered:
		rep.Outcome, rep.Detail = workflow.OutcomeSkipped, fmt.Sprintf("%s is no longer a git worktree: left untouched", res.Path)
		return nil
	case w.Locked:
		rep.Fix = fmt.Sprintf("git worktree unlock %s, then git exarchos cancel %s", res.Path, c.feature)
		why := ""
		if w.LockReason != "" {
			why = " (" + w.LockReason + ")"
		}
		return fmt.Errorf("%s is locked%s: git exarchos leaves locked worktrees alone", res.Path, why)
	case !exists:
		rep.Outcome, rep.Detail = workflow.OutcomeDone, "the directory was already gone; removed its administrative files"
		if dry {
			return nil
		}
		// Only this entry: a global prune could drop the HEAD of another deleted worktree whose
		// preserve step has not run yet.
		if err := c.loc.DiscardWorktree(res.Path); err != nil {
			return err
		}
		return c.prune(res)
	}
	status, _, kept, err := c.inspect(res)
	if err != nil {
		return err
	}
	rep.Outcome, rep.Detail = workflow.OutcomeDone, "removed "+res.Path
	if dry {
		return nil
	}
	if status.Dirty() || !kept {
		// The preserve step ran, but the worktree may have changed since: snapshot again (a
		// no-op when nothing changed) so that the removal never discards unpreserved work.
		p, _, err := PreserveWorktree(c.loc, c.spec(res))
		if err != nil {
			return fmt.Errorf("preserve before removing: %w", err)
		}
		if p.Written {
			rep.Detail += fmt.Sprintf(" (it changed after the preserve step: preserved again at %s)", p.Ref)
		}
		rep.Ref, rep.Commit = p.Ref, p.Commit
	}
	if err := c.loc.DiscardWorktree(res.Path); err != nil {
		rep.Fix = fmt.Sprintf("see why it failed, fix the cause, and run git exarchos cancel %s", c.feature)
		return err
	}
	return c.prune(res)
}

// prune runs `git worktree prune` after a removal, unless another worktree of this workflow whose
// directory is gone still awaits its preserve step: pruning would drop the record of its HEAD.
func (c *compensator) prune(done workflow.Resource) error {
	for _, r := range c.st.Resources {
		if r.Kind == workflow.ResourceWorktree && r.ID != done.ID && !r.Compensated() && !dirExists(r.Path) {
			return nil
		}
	}
	return c.loc.PruneWorktrees()
}

// branchSafe says why deleting a branch at tip loses nothing, or "" if it would.
func (c *compensator) branchSafe(res workflow.Resource, tip string) (string, error) {
	if wb, ok, err := c.loc.BranchTip(c.st.Branch); err != nil {
		return "", err
	} else if ok {
		merged, err := c.loc.IsAncestor(tip, wb)
		if err != nil || merged {
			return "merged into " + c.st.Branch, err
		}
	}
	in, err := RescueContains(c.loc, c.feature, res.Task, tip)
	if err != nil || in {
		return "kept at " + RescueRef(c.feature, res.Task), err
	}
	return "", nil
}

func (c *compensator) preserveBranch(res workflow.Resource, dry bool, rep *StepReport) error {
	tip, exists, err := c.loc.BranchTip(res.Branch)
	if err != nil {
		return err
	}
	if !exists {
		rep.Outcome, rep.Detail = workflow.OutcomeSkipped, res.Branch+" no longer exists"
		return nil
	}
	why, err := c.branchSafe(res, tip)
	if err != nil {
		return err
	}
	if why != "" {
		rep.Outcome, rep.Detail = workflow.OutcomeSkipped, fmt.Sprintf("%s at %s is %s", res.Branch, project.Short(tip), why)
		return nil
	}
	rep.Outcome, rep.Detail = workflow.OutcomeDone, fmt.Sprintf("unmerged %s at %s kept at %s", res.Branch, project.Short(tip), RescueRef(c.feature, res.Task))
	if dry {
		return nil
	}
	p, err := PreserveCommit(c.loc, c.spec(res), tip)
	if err != nil {
		return err
	}
	rep.Ref, rep.Commit = p.Ref, p.Commit
	return nil
}

func (c *compensator) deleteBranch(res workflow.Resource, dry bool, rep *StepReport) error {
	tip, exists, err := c.loc.BranchTip(res.Branch)
	if err != nil {
		return err
	}
	if !exists {
		rep.Outcome, rep.Detail = workflow.OutcomeDone, res.Branch+" was already deleted"
		return nil
	}
	if at, held, err := c.loc.CheckedOutAt(res.Branch); err != nil {
		return err
	} else if held && !(dry && c.removedBefore(at)) {
		rep.Fix = fmt.Sprintf("git -C %s switch --detach (or to another branch), then git exarchos cancel %s", at, c.feature)
		return fmt.Errorf("%s is checked out in %s, so it cannot be deleted", res.Branch, at)
	}
	why, err := c.branchSafe(res, tip)
	if err != nil {
		return err
	}
	rep.Outcome, rep.Detail = workflow.OutcomeDone, fmt.Sprintf("deleted %s (was %s, %s)", res.Branch, project.Short(tip), why)
	if dry {
		if why == "" {
			rep.Detail = fmt.Sprintf("deleted %s (was %s) once kept at %s", res.Branch, project.Short(tip), RescueRef(c.feature, res.Task))
		}
		return nil
	}
	if why == "" {
		// It moved after the preserve step: keep the new tip first.
		p, err := PreserveCommit(c.loc, c.spec(res), tip)
		if err != nil {
			return fmt.Errorf("preserve %s before deleting it: %w", res.Branch, err)
		}
		rep.Ref, rep.Commit = p.Ref, p.Commit
		rep.Detail = fmt.Sprintf("deleted %s (was %s, kept at %s)", res.Branch, project.Short(tip), p.Ref)
	}
	if err := c.loc.DeleteBranch(res.Branch, tip); err != nil {
		rep.Fix = fmt.Sprintf("run git exarchos cancel %s again (the branch moved while it was being deleted)", c.feature)
		return err
	}
	return nil
}

// removedBefore reports whether the worktree at path is one of the workflow's, due to be removed
// by an earlier step (a dry run has not removed it yet).
func (c *compensator) removedBefore(path string) bool {
	for _, r := range c.st.Resources {
		if r.Kind == workflow.ResourceWorktree && !r.Compensated() && gitrepo.SamePath(r.Path, path) {
			return true
		}
	}
	return false
}

// closePullRequest closes a linked open pull request with a comment naming the workflow and the
// cancel reason. One already merged or closed (as last observed, or as GitHub says now, which makes
// a rerun after a crash idempotent) is left alone. Without a token the step fails with the fix.
func (c *compensator) closePullRequest(res workflow.Resource, dry bool, rep *StepReport) error {
	if c.skipPR {
		rep.Outcome, rep.Detail = workflow.OutcomeSkipped, "skipped by the user (--skip-pr): "+res.URL+" is left as it is"
		return nil
	}
	if pr := c.st.PR; pr != nil && pr.URL == res.URL && pr.Observed {
		switch {
		case pr.Merged:
			rep.Outcome, rep.Detail = workflow.OutcomeSkipped, fmt.Sprintf("%s was merged (observed %s): nothing to close", res.URL, pr.ObservedAt)
			return nil
		case pr.State == "closed":
			rep.Outcome, rep.Detail = workflow.OutcomeSkipped, fmt.Sprintf("%s was already closed (observed %s)", res.URL, pr.ObservedAt)
			return nil
		}
	}
	repo, n, ok := ghclient.RepoOfPR(res.URL)
	if !ok {
		rep.Fix = fmt.Sprintf("close it by hand, then: git exarchos cancel %s --skip-pr", c.feature)
		return fmt.Errorf("%q is not a GitHub pull request URL", res.URL)
	}
	comment := fmt.Sprintf("Closed by git exarchos: workflow %s was cancelled.", c.feature)
	if c.st.Cancel != nil && c.st.Cancel.Reason != "" {
		comment += " Reason: " + c.st.Cancel.Reason
	}
	gh, err := ghclient.New(ghclient.Options{Repo: repo})
	if err != nil {
		return c.gitHubFailed(res, repo, err, rep)
	}
	rep.Outcome, rep.Detail = workflow.OutcomeDone, "closed "+res.URL+" with a comment"
	if dry {
		return nil // GitHub is not asked: the token was found, the rest happens on the real run
	}
	ctx := context.Background()
	pr, err := gh.PullRequest(ctx, n)
	if err != nil {
		return c.gitHubFailed(res, repo, err, rep)
	}
	switch {
	case pr.Merged:
		rep.Outcome, rep.Detail = workflow.OutcomeSkipped, res.URL+" was merged: nothing to close"
	case pr.State != "open":
		rep.Outcome, rep.Detail = workflow.OutcomeDone, res.URL+" was already closed"
	default:
		if _, err := gh.ClosePR(ctx, n, comment); err != nil {
			return c.gitHubFailed(res, repo, err, rep)
		}
		rep.Detail = "closed " + res.URL
	}
	return nil
}

// gitHubFailed names the fix of a GitHub failure: a token, access, or a later retry, and the way
// out without GitHub.
func (c *compensator) gitHubFailed(res workflow.Resource, repo ghclient.Repo, err error, rep *StepReport) error {
	skip := fmt.Sprintf("or leave it open: git exarchos cancel %s --skip-pr", c.feature)
	var ge *ghclient.Error
	switch {
	case errors.As(err, &ge) && (ge.Kind == ghclient.KindNoToken || ge.Kind == ghclient.KindBadToken):
		rep.Fix = fmt.Sprintf("set GH_TOKEN (or run `gh auth login --hostname %s`) to a valid token that can close pull requests of %s, then: git exarchos cancel %s; %s",
			repo.Host, repo.FullName(), c.feature, skip)
		if ge.Kind == ghclient.KindNoToken { // its own message points at cleanup --offline
			return &ghclient.Error{Kind: ge.Kind, Host: ge.Host, Msg: fmt.Sprintf("no GitHub token for %s to close %s", repo.Host, res.URL)}
		}
	case errors.As(err, &ge) && ge.IsAccess():
		rep.Fix = fmt.Sprintf("give the token (%s) write access to %s (gh auth status), then: git exarchos cancel %s; %s", ge.TokenSource, repo.FullName(), c.feature, skip)
	default:
		rep.Fix = fmt.Sprintf("retry later: git exarchos cancel %s; %s", c.feature, skip)
	}
	return err
}
