package ghevidence

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/exarchos/git-exarchos/ghclient"
	"github.com/exarchos/git-exarchos/project"
	"github.com/exarchos/git-exarchos/trust"
	"github.com/exarchos/git-exarchos/workflow"
)

// PRMergeOptions are `git exarchos pr merge [<feature>] [--merge|--squash|--rebase]`.
type PRMergeOptions struct {
	Feature string
	Method  string // merge (default), squash or rebase
	Note    string
}

// PRMergeResult is what pr merge did: the decision recorded, GitHub's merge, and the cleanup
// that verified it and completed the workflow (nil when that did not happen, with a warning).
type PRMergeResult struct {
	Feature     string                  `json:"feature"`
	PullRequest int                     `json:"pullRequest"`
	URL         string                  `json:"url"`
	Decision    *workflow.MergeDecision `json:"decision"`
	Merge       ghclient.MergeResult    `json:"merge"`
	Cleanup     *CleanupResult          `json:"cleanup,omitempty"`
	Requests    int                     `json:"requests"`
	Warnings    []string                `json:"warnings"`
}

// MergePR merges the workflow's pull request as the user's decision. In order: refused in an
// agent's environment; the pull request read from GitHub (open, the workflow's branch, its head
// the branch's tip here); the decision recorded (pr.merge-decided, signed in signed mode) and
// refused unless the fold gives it effect; GitHub's merge API asked to merge that head only
// (never a local merge); then cleanup's own verification of the merge on GitHub, which records
// the evidence and completes the workflow.
func MergePR(r *Repo, o PRMergeOptions) (*PRMergeResult, error) {
	method := o.Method
	if method == "" {
		method = workflow.MergeMethods[0]
	}
	if !slices.Contains(workflow.MergeMethods, method) {
		return nil, project.Usagef("merge method %q: give --merge, --squash or --rebase", method)
	}
	feature, st, _, err := r.ResolveState(o.Feature)
	if err != nil {
		return nil, err
	}
	// Before GitHub is asked anything: the decision is the user's.
	if err := trust.RefuseInAgent(r.Environ, "pr merge "+feature+" --"+method); err != nil {
		return nil, err
	}
	pr, obs, err := r.observe(feature, st)
	if err != nil {
		return nil, err
	}
	fix := fmt.Sprintf("git exarchos cleanup %s", feature)
	switch {
	case obs.Merged:
		return nil, project.Usagef("pull request #%d is already merged: complete the workflow with %s", obs.Number, fix)
	case obs.State != "open":
		return nil, project.Usagef("pull request #%d is %s: reopen it on GitHub, or link the one to merge (git exarchos pr link %s <url>)", obs.Number, obs.State, feature)
	case obs.Head != st.Branch:
		return nil, project.Usagef("pull request #%d's head is branch %s, not the workflow's branch %s: link the workflow's own (git exarchos pr find %s)", obs.Number, obs.Head, st.Branch, feature)
	}
	tip, err := r.Facts().BranchTip(st.Branch)
	if err != nil {
		return nil, err
	}
	if tip != obs.HeadSHA {
		return nil, project.Usagef("pull request #%d's head is %s, but branch %s is at %s here: what GitHub would merge is not what the workflow saw; push (or pull) until they agree, review it, then run git exarchos pr merge %s again",
			obs.Number, shortSHA(obs.HeadSHA), st.Branch, shortSHA(tip), feature)
	}
	cmds := []workflow.Command{workflow.DecideMerge{Number: obs.Number, HeadSHA: obs.HeadSHA, Method: method, Note: o.Note}}
	if pr.Changed {
		cmds = append([]workflow.Command{workflow.ObservePR{PRObservation: obs}}, cmds...)
	}
	rec, err := r.Execute(feature, cmds...)
	if err != nil {
		return nil, err
	}
	decided := rec.Appended[len(rec.Appended)-1]
	d := rec.State.PR.MergeDecision
	if d == nil || d.ID != decided.ID {
		reason := "the fold gave it no effect"
		for _, f := range rec.State.Refused {
			if f.ID == decided.ID {
				reason = f.Reason
			}
		}
		return nil, &workflow.Rejection{Code: workflow.CodeDecisionRefused, Phase: rec.State.Phase,
			Message: fmt.Sprintf("the merge decision was recorded without effect (%s), so pull request #%d was not merged: sign it with a key of .exarchos/allowed_signers on the base branch (git exarchos signers add), then run git exarchos pr merge %s again", reason, obs.Number, feature)}
	}
	gh, n, err := r.linkedClient(feature, st.PR.URL)
	if err != nil {
		return nil, err
	}
	merged, err := gh.MergePR(context.Background(), n, d.HeadSHA, d.Method)
	if err != nil {
		return nil, err
	}
	out := &PRMergeResult{Feature: feature, PullRequest: n, URL: d.URL, Decision: d, Merge: merged, Requests: pr.Requests + gh.Requests(), Warnings: pr.Warnings}
	after, _, err := r.State(feature)
	if err == nil {
		var c *CleanupResult
		if c, err = r.cleanupOnline(feature, after, CleanupOptions{Feature: feature}); err == nil {
			out.Cleanup, out.Requests = c, out.Requests+c.Requests
			out.Warnings = append(out.Warnings, c.Warnings...)
			return out, nil
		}
	}
	var rej *workflow.Rejection
	if !errors.As(err, &rej) && !errors.As(err, new(*ghclient.Error)) {
		return out, err
	}
	out.Warnings = append(out.Warnings, fmt.Sprintf("pull request #%d is merged on GitHub (%s), but the workflow was not completed: %v; run %s", n, shortSHA(merged.SHA), err, fix))
	return out, nil
}
