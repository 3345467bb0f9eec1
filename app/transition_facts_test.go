package app

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/exarchos/git-exarchos/internal/gittest"
	"github.com/exarchos/git-exarchos/views"
	"github.com/exarchos/git-exarchos/workflow"
)

// A transition asks git only what the in-process readers cannot answer: ideate → plan runs
// artifact-design (the design is a file the branch added since its merge-base) and paths-allowed
// (the branch's commits since the merge-base and its worktree change only what ideate allows);
// the merge-base and the diff come from the object reader (gitrepo/history.go), so on a normal
// repository the one git process is the worktree's status, asked once. Counted with a logging
// `git` on PATH, so a merge-base or diff process, or a question asked twice, cannot creep back.
func TestTransitionAsksGitEachQuestionOnce(t *testing.T) {
	dir := designedBranch(t, "feat")
	calls := gittest.LogGit(t)
	r, err := Open(dir) // as a new process would: nothing read yet
	require.NoError(t, err)
	res, err := Run(r, "feat", workflow.TransitionTo{Phase: "plan"})
	require.NoError(t, err)
	require.Equal(t, "plan", res.State.Phase)
	// No merge-base, no diff: one status of the worktree that has the branch (found without `git
	// worktree list`: it is the one this call runs in).
	require.Equal(t, []string{"status"}, subcommands(t, calls()), "git processes of one transition:\n%s", strings.Join(calls(), "\n"))
}

// The neighbour: a view evaluates the way out of every workflow; workflows on one branch share
// the merge-base and the diff (facts about commit ids, kept for the whole call) and the status of
// the worktree that has the branch (asked once per branch tip for the whole view: 201 workflows
// on one branch once started 201 status processes).
func TestPipelineAsksGitOncePerCommitQuestion(t *testing.T) {
	dir := designedBranch(t, "feat", "feat-b", "feat-c")
	calls := gittest.LogGit(t)
	r, err := Open(dir)
	require.NoError(t, err)
	p, err := views.ShowPipeline(r.Hook(), views.PipelineOptions{}, r.ViewWorkflows())
	require.NoError(t, err)
	require.Len(t, p.Workflows, 3)
	for _, row := range p.Workflows {
		require.Equal(t, "git exarchos transition "+row.Feature+" plan", row.Next, "%+v", row)
	}
	require.Equal(t, []string{"status"}, subcommands(t, calls()), "git processes of one view:\n%s", strings.Join(calls(), "\n"))
}

// Its neighbour: workflows on two branches, each checked out in its own worktree, get one status
// each (the worktree of one branch says nothing of the other's), never one per workflow; the
// task board, which evaluates no guard, asks git nothing.
func TestPipelineAsksStatusOncePerBranch(t *testing.T) {
	dir := designedBranch(t, "feat", "feat-b")
	other := filepath.Join(t.TempDir(), "other")
	gittest.Git(t, dir, "", "worktree", "add", "-q", "-b", "feat2", other, "feat")
	designed(t, dir, "feat2", "other", "other-b")
	calls := gittest.LogGit(t)
	r, err := Open(dir)
	require.NoError(t, err)
	p, err := views.ShowPipeline(r.Hook(), views.PipelineOptions{}, r.ViewWorkflows())
	require.NoError(t, err)
	require.Len(t, p.Workflows, 4)
	for _, row := range p.Workflows {
		require.Equal(t, "git exarchos transition "+row.Feature+" plan", row.Next, "%+v", row)
	}
	count := map[string]int{}
	for _, c := range subcommands(t, calls()) {
		count[c]++
	}
	require.Equal(t, 2, count["status"], "one status per branch's worktree:\n%s", strings.Join(calls(), "\n"))
	require.Zero(t, count["merge-base"]+count["diff"], "the merge-base and the diff are read in process")

	before := len(calls())
	_, err = views.ShowTasks(r.Hook(), views.TasksOptions{}, r.ViewWorkflows())
	require.NoError(t, err)
	require.Len(t, calls(), before, "the task board started git:\n%s", strings.Join(calls()[before:], "\n"))
}

// designedBranch makes a repository whose branch feat adds docs/design.md, with a feature
// workflow in ideate on it, its design recorded, for each feature named.
func designedBranch(t *testing.T, features ...string) string {
	t.Helper()
	dir := gittest.NewRepo(t, "sha1")
	gittest.Git(t, dir, "", "switch", "-q", "-c", "feat")
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "docs"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "docs", "design.md"), []byte("# design\n"), 0o644))
	gittest.Git(t, dir, "", "add", "docs/design.md")
	gittest.Git(t, dir, "", "commit", "-q", "-m", "design")
	designed(t, dir, "feat", features...)
	return dir
}

// designed starts a feature workflow on branch for each feature named, its design recorded (the
// second and later by the user's decision, which a second workflow on a branch needs).
func designed(t *testing.T, dir, branch string, features ...string) {
	t.Helper()
	r, err := Open(dir)
	require.NoError(t, err)
	for i, f := range features {
		_, err = Init(r, InitOptions{Feature: f, Type: "feature", Branch: branch, Human: i > 0})
		require.NoError(t, err)
		_, err = Set(r, SetOptions{Feature: f, Assignments: []string{"artifacts.design=docs/design.md"}})
		require.NoError(t, err)
	}
}

// subcommands names the git subcommand of each logged call (the options before it dropped).
func subcommands(t *testing.T, calls []string) []string {
	t.Helper()
	var out []string
	for _, c := range calls {
		f := strings.Fields(c)
		for len(f) > 0 && strings.HasPrefix(f[0], "-") { // --git-dir=…, --no-optional-locks
			f = f[1:]
		}
		require.NotEmpty(t, f, "git run with options only: %q", c)
		out = append(out, f[0])
	}
	return out
}
