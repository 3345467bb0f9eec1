package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/exarchos/git-exarchos/ghclient"
	"github.com/exarchos/git-exarchos/ghclient/fakegithub"
	"github.com/exarchos/git-exarchos/internal/apptest"
	"github.com/exarchos/git-exarchos/internal/ghactions"
	"github.com/exarchos/git-exarchos/internal/gittest"
	"github.com/exarchos/git-exarchos/verify"
	"github.com/exarchos/git-exarchos/workflow"
)

// Issue 37, "Done when": the kinds of forged workflow that CI's verify used to pass, each through
// the shipped workflow as GitHub runs it for the pull request (the base's copy, a fresh checkout of
// a protected origin, Actions' token), fail the required check with the check that caught it named.
// The other kinds have their own runs of the shipped file: the workflow re-labelled by plumbing
// (testdata/script/ci_verify_relabel.txtar), a forged gate run and the branch's edit of the file
// (ci_workflow_test.go), an unprotected base (testdata/script/ci_verify.txtar); the honest road
// passes it with the real client (e2e TestFeatureThroughThePluginInOneSession).
func TestShippedWorkflowFailsForgedKinds(t *testing.T) {
	for _, c := range []struct {
		name, rule, says string
		forge            func(t *testing.T, dir string)
	}{
		{"second workflow on the branch, started past init", "branch", "branch login also has the active workflow(s) other", func(t *testing.T, dir string) {
			_, err := apptest.Reopen(t, dir).Store.Create("other", apptest.PlainFold{}, []workflow.NewEvent{{Type: workflow.EventStarted,
				Data: workflow.StartedData{Feature: "other", Type: "oneshot", Branch: "login", Phase: "plan"}}})
			require.NoError(t, err)
		}},
		{"merge evidence whose head is a base commit", "merge", "is not a commit of branch login", func(t *testing.T, dir string) {
			b := forgedBaseCommit(t, dir)
			forgeMerge(t, dir, workflow.MergeVerifiedData{Method: "ancestry", Commit: b, Base: "refs/remotes/origin/main", HeadSHA: b}, b)
		}},
		{"merge verified by github with no pull request", "merge", "verified by github but names no pull request", func(t *testing.T, dir string) {
			b := forgedBaseCommit(t, dir)
			tip := gittest.Git(t, dir, "", "rev-parse", "login")
			forgeMerge(t, dir, workflow.MergeVerifiedData{Method: "github", Commit: b, Base: "main", HeadSHA: tip}, tip)
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			st := apptest.NewSignedTeam(t)
			dir := st.Dirs[0]
			shipWorkflow(t, dir)
			c.forge(t, dir)
			apptest.PushAll(t, dir)
			out, ok := runShipped(t, st.Remote)
			if ok {
				t.Fatalf("the required check passed a forged workflow (%s):\n%s", c.name, out)
			}
			if !strings.Contains(out, "["+c.rule+"]") || !strings.Contains(out, c.says) {
				t.Fatalf("the required check failed without naming [%s] %q:\n%s", c.rule, c.says, out)
			}
		})
	}
}

// shipWorkflow commits the shipped workflow file on the base, as a user copies it there.
func shipWorkflow(t *testing.T, dir string) {
	t.Helper()
	b, err := os.ReadFile(filepath.FromSlash(ciWorkflow))
	require.NoError(t, err)
	gittest.Git(t, dir, "", "checkout", "-q", "main")
	gittest.CommitFile(t, dir, ".github/workflows/exarchos-verify.yml", string(b))
	gittest.Git(t, dir, "", "push", "-q", "origin", "main")
	gittest.Git(t, dir, "", "checkout", "-q", "login")
}

// forgedBaseCommit is a teammate's commit merged on the base (after the branch forked), fetched.
func forgedBaseCommit(t *testing.T, dir string) string {
	t.Helper()
	gittest.Git(t, dir, "", "checkout", "-q", "main")
	gittest.Git(t, dir, "", "pull", "-q", "origin", "main")
	apptest.WriteCommit(t, dir, "theirs.go", "package other\n")
	gittest.Git(t, dir, "", "push", "-q", "origin", "main")
	gittest.Git(t, dir, "", "fetch", "-q", "origin")
	gittest.Git(t, dir, "", "checkout", "-q", "login")
	return gittest.Git(t, dir, "", "rev-parse", "origin/main")
}

// forgeMerge appends merge evidence and the cleanup transition resting on it, as a script could.
func forgeMerge(t *testing.T, dir string, evidence workflow.MergeVerifiedData, head string) {
	t.Helper()
	apptest.Forge(t, apptest.Reopen(t, dir), "login", workflow.NewEvent{Type: workflow.EventMergeVerified, Data: evidence})
	apptest.Forge(t, apptest.Reopen(t, dir), "login", workflow.NewEvent{Type: workflow.EventTransitioned,
		Data: workflow.TransitionedData{From: "plan-review", To: "completed", Trigger: workflow.OnCleanup, Guards: []string{"merge-verified"}, Head: head}})
}

// runShipped runs what GitHub runs for the pull request login → main of remote, against a fake
// GitHub that protects main and gives the jobs Actions' token; it returns the verify job's output
// and whether every job that ran passed.
func runShipped(t *testing.T, remote string) (string, bool) {
	t.Helper()
	gh, env := protectedGitHub(t)
	bin, err := exec.LookPath("git-exarchos")
	require.NoError(t, err)
	run, err := ghactions.Trigger(ghactions.PullRequest{Origin: remote, Base: "main", Head: "login"}, ghactions.Options{
		Dir: t.TempDir(), Env: env,
		Path: filepath.Dir(bin), Skip: []string{"install"}, Token: ciToken, APIURL: gh.URL,
	})
	require.NoError(t, err)
	var out strings.Builder
	ok := true
	for _, w := range run.Workflows {
		for _, j := range w.Jobs {
			out.WriteString(w.Event + " " + j.ID + ": " + j.Status + "\n" + j.Output)
			if j.Status != "success" {
				ok = false
			}
		}
	}
	if run.Job(target, ciFile, "verify") == nil {
		t.Fatalf("the required check did not run:\n%s", run)
	}
	return out.String(), ok
}

// protectedGitHub is the GitHub the shipped workflow's jobs meet: main protected by a ruleset that
// requires the check from GitHub Actions, the jobs' token Actions' (--require-protected-base,
// --remember), and a runner whose user trusts the fake's API host; env is the runner's.
func protectedGitHub(t *testing.T) (*fakegithub.Server, []string) {
	t.Helper()
	gh := fakegithub.New("github.com", "acme", "app", ciToken)
	t.Cleanup(gh.Close)
	gh.ProtectBranch("main", verify.RequiredCheck, ghclient.ActionsAppID)
	gh.App = "github-actions"
	home := t.TempDir()
	gittest.WriteFile(t, home, ".gitconfig", "[user]\n\tname = Runner\n\temail = runner@example.com\n[exarchos]\n\tgithubApiHost = 127.0.0.1\n")
	return gh, append(gittest.Env(), "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"))
}
