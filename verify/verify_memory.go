package verify

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/exarchos/git-exarchos/ghclient"
	"github.com/exarchos/git-exarchos/gitstore"
	"github.com/exarchos/git-exarchos/project"
)

// A fresh clone has no older copy of a workflow ref to compare with: a rewind force-pushed to an
// origin that does not protect refs/exarchos/* looks like any log. So CI remembers what it
// verified where a user's token cannot write: a check run (only Actions' token or a GitHub
// App's can create one, and none can delete one) named "exarchos memory: <feature>" on the base
// branch's root commit, whose output lists the workflow tip it verified. With --remember the next
// run reads every such run the app "github-actions" made and fails a tip that does not descend
// from each one; then it records the tips it verified. A workflow that runs on the pull request
// as github-actions can add memories (which only make CI stricter), never remove one.

// MemoryApp is the GitHub App whose check runs count as CI's memory (Actions' token).
const MemoryApp = "github-actions"

func memoryName(feature string) string { return "exarchos memory: " + feature }

// originClient is a GitHub client for origin's repository, as configured (actions/checkout sets
// https://github.com/<owner>/<repo>), not as url.<base>.insteadOf rewrites it for fetching.
func (r *Repo) originClient() (*ghclient.Client, error) {
	url, _ := r.Store.Config("remote.origin.url")
	repo, err := ghclient.ParseRemoteURL(strings.TrimSpace(url))
	if err != nil {
		return nil, fmt.Errorf("origin (%q) is not a GitHub repository: %w", url, err)
	}
	return r.gitHub().Client(repo)
}

// unchecked words a client error as a verdict: "not checked: no token …", or "could not check: …".
func unchecked(err error) string {
	var ge *ghclient.Error
	if errors.As(err, &ge) && ge.Kind == ghclient.KindNoToken {
		return GitHubNoToken + " (set GITHUB_TOKEN or GH_TOKEN)"
	}
	return githubCouldNot + err.Error()
}

// remember checks each verified workflow's tip against the tips CI remembers, then (when every
// workflow passed) records the tips it verified. Only with o.Remember (CI).
func (r *Repo) remember(o Options, res *Result) {
	if !o.Remember || len(res.Workflows) == 0 {
		return
	}
	fail := func(w *VerifiedWorkflow, format string, args ...any) {
		w.Violations = append(w.Violations, Violation{Rule: "memory", Message: fmt.Sprintf(format, args...)})
		res.OK = false
	}
	anchor, err := r.memoryAnchor()
	var gh *ghclient.Client
	if err == nil {
		gh, err = r.originClient()
	}
	if err != nil {
		for i := range res.Workflows {
			fail(&res.Workflows[i], "what CI verified before could not be read (--remember): %s", unchecked(err))
		}
		return
	}
	ctx := context.Background()
	facts := r.Store.Facts()
	tips := map[string]string{}
	for i := range res.Workflows {
		w := &res.Workflows[i]
		tip, ok, err := facts.ResolveRef(gitstore.RefName(w.Feature))
		if err != nil || !ok {
			fail(w, "refs/exarchos/%s is not here to compare with what CI verified", w.Feature)
			continue
		}
		tips[w.Feature] = tip
		runs, err := gh.CheckRunsNamed(ctx, anchor, memoryName(w.Feature))
		if err != nil {
			fail(w, "what CI verified before could not be read (--remember): %s", unchecked(err))
			continue
		}
		prefix := gitstore.RefName(w.Feature) + " "
		for _, run := range runs {
			if run.App != MemoryApp {
				continue // another app's (or a forged) memory: not CI's
			}
			for _, line := range strings.Split(run.Text, "\n") {
				was, ok := strings.CutPrefix(strings.TrimSpace(line), prefix)
				if !ok || was == tip {
					continue
				}
				if a, err := facts.IsAncestor(was, tip); err != nil || !a {
					why := "does not descend from"
					if err != nil {
						why = "cannot descend from (the commit is not in this clone: the ref was rewritten past it)"
					}
					fail(w, "refs/exarchos/%s (%s) %s %s, which CI verified (check run %d by %s, %s): the log was rewound or rewritten, dropping what CI saw; restore it (git push origin %s:refs/exarchos/%s from a clone that has it)",
						w.Feature, project.Short(tip), why, project.Short(was), run.ID, run.App, run.Started.Format("2006-01-02 15:04"), project.Short(was), w.Feature)
				}
			}
		}
	}
	if !res.OK {
		return
	}
	for _, f := range slices.Sorted(maps.Keys(tips)) {
		text := gitstore.RefName(f) + " " + tips[f] + "\n"
		if _, err := gh.CreateCheckRun(ctx, anchor, memoryName(f), "verified "+f+" at "+project.Short(tips[f]),
			"git exarchos verify passed on this workflow tip; the next verify --remember fails a tip that does not descend from it.", text); err != nil {
			w := &res.Workflows[slices.IndexFunc(res.Workflows, func(w VerifiedWorkflow) bool { return w.Feature == f })]
			fail(w, "what CI verified could not be recorded (--remember; the job needs permissions checks: write): %s", unchecked(err))
		}
	}
}

// memoryAnchor is the commit CI's memory is kept on: the base's root commit (the oldest when it
// has several), which every run of the repository finds without knowing a workflow's history.
func (r *Repo) memoryAnchor() (string, error) {
	out, err := r.Store.Loc.Git(nil, "rev-list", "--max-parents=0", r.Base().Commit)
	if err != nil {
		return "", fmt.Errorf("the base's root commit: %w", err)
	}
	roots := strings.Fields(out)
	if len(roots) == 0 {
		return "", fmt.Errorf("the base %s has no root commit", r.Base().Ref)
	}
	return roots[len(roots)-1], nil
}
