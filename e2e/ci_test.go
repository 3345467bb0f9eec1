package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/exarchos/git-exarchos/ghclient"
	"github.com/exarchos/git-exarchos/internal/ghactions"
	"github.com/exarchos/git-exarchos/verify"
)

// The shipped CI workflow, run as GitHub runs it for a pull request (issue 37): the repository
// holds it on its base branch as a user copies it there, and internal/ghactions runs what each
// pull request event triggers from the copy GitHub reads, in fresh checkouts of the origin. The
// install step is stood in for by the built binary on PATH.

// ciWorkflowFile is the workflow the repository ships.
const ciWorkflowFile = ".github/workflows/exarchos-verify.yml"

// shipCIWorkflow commits the shipped workflow to the repository's main and pushes it, as a user
// does (docs/verify.md), before any branch leaves main.
func (e *Env) shipCIWorkflow() {
	e.T.Helper()
	b, err := os.ReadFile(filepath.Join(moduleRoot, ciWorkflowFile))
	if err != nil {
		e.T.Fatal(err)
	}
	writeFile(e.T, filepath.Join(e.Dir, ciWorkflowFile), string(b))
	e.Git(e.Dir, "add", ciWorkflowFile)
	e.Git(e.Dir, "commit", "-q", "-m", "ci: exarchos verify")
	e.Git(e.Dir, "push", "-q", "origin", "main")
	e.Git(e.Dir, "update-ref", "-m", "fetch: as if fetched from origin", "refs/remotes/origin/main", "HEAD")
}

// runCI fires the events GitHub fires for pull request pr (head into base) and runs every
// workflow they trigger. It returns the steps' output, and an error unless every job that ran
// succeeded and the job that verifies (the one with a step of id verify) was among them.
func (e *Env) runCI(pr int, head, base string) (string, error) {
	var env []string
	for _, kv := range e.environ() { // the runner's machine: no token of the human's, the harness sets the API
		if !strings.HasPrefix(kv, "GH_TOKEN=") && !strings.HasPrefix(kv, "GITHUB_API_URL=") {
			env = append(env, kv)
		}
	}
	// GitHub protects the base with a ruleset that requires the check from Actions, and the job's
	// token is Actions' (the verify step's --require-protected-base and --remember).
	e.GitHub.ProtectBranch(base, verify.RequiredCheck, ghclient.ActionsAppID)
	e.GitHub.App = "github-actions"
	run, err := ghactions.Trigger(ghactions.PullRequest{Origin: e.Remote, Number: pr, Base: base, Head: head},
		ghactions.Options{Dir: e.T.TempDir(), Env: env, Path: binDir, Skip: []string{"install"}, APIURL: e.GitHub.URL, Token: GitHubToken})
	if err != nil {
		return "", err
	}
	var out strings.Builder
	var failed []string
	verified := false
	for _, w := range run.Workflows {
		for _, j := range w.Jobs {
			fmt.Fprintf(&out, "== %s %s job %s: %s\n%s", w.Event, w.File, j.ID, j.Status, j.Output)
			if j.Status == "failure" {
				failed = append(failed, w.Event+" "+j.ID)
			}
			if j.Status == "success" && strings.Contains(j.Output, "::step verify\n") {
				verified = true
			}
		}
	}
	switch {
	case len(failed) > 0:
		return out.String(), fmt.Errorf("CI failed: %s\n%s", strings.Join(failed, ", "), run)
	case !verified:
		return out.String(), fmt.Errorf("no job ran the verify step of %s:\n%s", ciWorkflowFile, run)
	}
	return out.String(), nil
}

// gitHubMerge is the merge button of pull request pr: a merge commit of head on the origin's base.
// It returns the merge commit.
func (e *Env) gitHubMerge(pr int, head, base string) (string, error) {
	dir := filepath.Join(e.T.TempDir(), "github")
	for _, args := range [][]string{
		{"clone", "-q", "file://" + e.Remote, dir},
		{"-C", dir, "checkout", "-q", "--detach", "origin/" + base},
		{"-C", dir, "merge", "-q", "--no-ff", "-m", fmt.Sprintf("Merge pull request #%d from acme/%s", pr, head), "origin/" + head},
		{"-C", dir, "push", "-q", "origin", "HEAD:refs/heads/" + base},
	} {
		if out, err := e.run(e.T.TempDir(), "git", args...); err != nil {
			return "", fmt.Errorf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	out, err := e.run(dir, "git", "rev-parse", "HEAD")
	return strings.TrimSpace(out), err
}
