package app

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/exarchos/git-exarchos/internal/gittest"
	"github.com/exarchos/git-exarchos/project"
	"github.com/exarchos/git-exarchos/views"
	"github.com/exarchos/git-exarchos/workflow"
)

// reopen is a new process on the same repository: rules are read once per Repo.
func reopen(t *testing.T, dir string) *Repo {
	t.Helper()
	r, err := Open(dir)
	require.NoError(t, err)
	return r
}

// toReview drives a feature workflow on the current branch into review.
// The branch's rule-loosening commits are no planning documents, so leaving each planning phase
// takes the user's override of paths-allowed.
func toReview(t *testing.T, r *Repo, dir, f string) {
	t.Helper()
	_, err := Init(r, InitOptions{Feature: f, Type: "feature"})
	require.NoError(t, err)
	gittest.CommitFile(t, dir, "docs/design.md", "design")
	gittest.CommitFile(t, dir, "docs/plan.md", "plan")
	_, err = Set(r, SetOptions{Feature: f, Assignments: []string{"artifacts.design=docs/design.md", "artifacts.plan=docs/plan.md"}})
	require.NoError(t, err)
	paths := workflow.OverrideGuard{Guard: workflow.GuardPathsAllowed, Reason: "the rules commits predate the workflow"}
	for _, c := range []workflow.Command{paths, workflow.TransitionTo{Phase: "plan"}, paths, workflow.TransitionTo{Phase: "plan-review"}, workflow.Approve{},
		paths, workflow.TransitionTo{Phase: "delegate"}, workflow.AddTask{ID: "t1"}} {
		mustRun(t, r, f, c)
	}
	gittest.CommitFile(t, dir, f+".go", "package x\n")
	mustRun(t, r, f, workflow.CompleteTask{ID: "t1"})
	mustRun(t, r, f, workflow.TransitionTo{Phase: "review"})
}

func rejection(t *testing.T, err error) *workflow.Rejection {
	t.Helper()
	var rej *workflow.Rejection
	require.True(t, errors.As(err, &rej), "want a rejection, got %v", err)
	return rej
}

// TestRulesComeFromTheBaseBranch: limits, knobs and repository types are read from the base
// branch's tip. A loosened config and a new type committed on the agent's own branch (checked
// out), and a local git config knob, change nothing; the circuit trips at the base's limit and
// records it; raising the limit on the base afterwards does not close it.
func TestRulesComeFromTheBaseBranch(t *testing.T) {
	dir, _ := newRepo(t, "main")
	gittest.CommitFile(t, dir, project.ConfigFile, "workflows:\n  feature: {maxFixCycles: 1}\n")
	gittest.Git(t, dir, "", "switch", "-q", "-c", "agent")
	gittest.CommitFile(t, dir, project.ConfigFile, "requireChecks: false\nworkflows:\n  feature: {maxFixCycles: 50}\n")
	gittest.CommitFile(t, dir, ".exarchos/workflows/loose.yaml", "type: loose\ninitial: a\nphases:\n  - {id: a}\n  - {id: done, kind: final}\ntransitions:\n  - {from: a, to: done}\n")

	r := reopen(t, dir)
	rl := r.Rules()
	assert.Equal(t, "refs/heads/main", rl.Base.Ref)
	def, err := rl.Definition("feature")
	require.NoError(t, err)
	impl, _ := def.Phase("implementation")
	assert.Equal(t, 1, impl.MaxFixCycles, "the base's limit, not the checked-out branch's")
	_, err = Init(r, InitOptions{Feature: "x", Type: "loose"})
	require.Error(t, err, "a type defined only on the agent's branch does not exist")
	assert.Contains(t, err.Error(), "base branch refs/heads/main")

	toReview(t, r, dir, "f")
	mustRun(t, r, "f", workflow.RecordReview{Dimension: "spec"}) // a fix cycle answers a failed review
	mustRun(t, r, "f", workflow.TransitionTo{Phase: "delegate"}) // fix cycle 1 of 1
	gittest.CommitFile(t, dir, "fix.go", "package x\n")
	mustRun(t, r, "f", workflow.TransitionTo{Phase: "review"})
	mustRun(t, r, "f", workflow.RecordReview{Dimension: "spec"})
	res, err := Run(r, "f", workflow.TransitionTo{Phase: "delegate"})
	assert.Equal(t, workflow.CodeCircuitOpen, rejection(t, err).Code)
	require.NotNil(t, res)
	opened := res.Appended[len(res.Appended)-1]
	assert.Equal(t, workflow.EventCircuitOpened, opened.Type)
	assert.Contains(t, string(opened.Data), `"limit":1`)
	assert.Contains(t, string(opened.Data), `"definition":"builtin:feature@`+workflow.BuiltinVersion+`"`)

	// Every transition recorded the definition and the limits in force.
	lg, err := views.Log(r.Hook(), views.LogOptions{Feature: "f", Types: []string{workflow.EventTransitioned}})
	require.NoError(t, err)
	last := lg.Events[len(lg.Events)-1]
	var td workflow.TransitionedData
	require.NoError(t, last.DecodeData(&td))
	assert.Equal(t, "builtin:feature@"+workflow.BuiltinVersion, td.Definition)
	require.NotNil(t, td.Limits)
	assert.Equal(t, 1, td.Limits.FixCycles)

	// A local git config knob is not read: a warning, and here (an open circuit stays open whatever
	// the limit) it changes nothing, so the refusal is the circuit's (project/legacy_config.go).
	gittest.Git(t, dir, "", "config", "exarchos.feature.maxFixCycles", "50")
	r = reopen(t, dir)
	_, err = Run(r, "f", workflow.TransitionTo{Phase: "delegate"})
	assert.Equal(t, workflow.CodeCircuitOpen, rejection(t, err).Code)
	warnings := r.LegacyWarnings("feature")
	require.Len(t, warnings, 1)
	assert.Contains(t, warnings[0], project.ConfigFile)
	assert.Contains(t, warnings[0], "git config --unset exarchos.feature.maxFixCycles")
	assert.Empty(t, r.LegacyWarnings("loose-other"), "another type's limit key does not concern it")
	gittest.Git(t, dir, "", "config", "--unset", "exarchos.feature.maxFixCycles")

	// The limit raised on the base after the circuit opened: still open until a human unblocks.
	gittest.Git(t, dir, "", "switch", "-q", "main")
	gittest.CommitFile(t, dir, project.ConfigFile, "workflows:\n  feature: {maxFixCycles: 50}\n")
	gittest.Git(t, dir, "", "switch", "-q", "agent")
	r = reopen(t, dir)
	_, err = Run(r, "f", workflow.TransitionTo{Phase: "delegate"})
	assert.Equal(t, workflow.CodeCircuitOpen, rejection(t, err).Code)
	mustRun(t, r, "f", workflow.Unblock{Reason: "looked at it"})
	res = mustRun(t, r, "f", workflow.TransitionTo{Phase: "delegate"})
	require.NoError(t, res.Appended[0].DecodeData(&td))
	assert.Equal(t, 50, td.Limits.FixCycles, "after the unblock the base's new limit applies, and is recorded")
}

// TestMissingDefinitionKeepsStateAndSaysWhatIsMissing: a workflow of a type the base branch does
// not define does not move, and the refusal names the base and how to get the definition.
func TestMissingDefinitionKeepsStateAndSaysWhatIsMissing(t *testing.T) {
	dir, _ := newRepo(t, "main")
	gittest.CommitFile(t, dir, ".exarchos/workflows/docs.yaml", "type: docs\ninitial: write\nphases:\n  - {id: write}\n  - {id: done, kind: final}\ntransitions:\n  - {from: write, to: done}\n")
	r := reopen(t, dir)
	_, err := Init(r, InitOptions{Feature: "d", Type: "docs"})
	require.NoError(t, err)
	def, err := r.Rules().Definition("docs")
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(def.ID, "blob:"), def.ID)

	// The base loses the definition (reverted upstream): the workflow keeps its state.
	gittest.Git(t, dir, "", "rm", "-q", ".exarchos/workflows/docs.yaml")
	gittest.Git(t, dir, "", "commit", "-q", "-m", "drop docs")
	head := gittest.Git(t, dir, "", "rev-parse", "refs/exarchos/d")
	r = reopen(t, dir)
	_, err = Run(r, "d", workflow.TransitionTo{Phase: "done"})
	rej := rejection(t, err)
	assert.Equal(t, workflow.CodeDefinitionMissing, rej.Code)
	assert.Contains(t, rej.Message, `"docs" is not defined on the base branch refs/heads/main`)
	assert.Contains(t, rej.Message, "exarchos.definitionsRef")
	assert.Equal(t, head, gittest.Git(t, dir, "", "rev-parse", "refs/exarchos/d"))
	st, _, err := r.State("d")
	require.NoError(t, err)
	assert.Equal(t, "write", st.Phase)
}

// TestBaseReadsInitDefaultBranchAndRemotesFromConfig: the base resolver's config keys
// (init.defaultBranch, remote.<name>.url) are read by the in-process config reader, so a
// repository whose default branch is not main is served, and a non-origin remote is found.
func TestBaseReadsInitDefaultBranchAndRemotesFromConfig(t *testing.T) {
	dir, _ := newRepo(t, "trunk")
	gittest.Git(t, dir, "", "branch", "main") // a stale main must not win over the configured default
	gittest.CommitFile(t, dir, project.ConfigFile, "workflows:\n  feature: {maxFixCycles: 2}\n")
	gittest.Git(t, dir, "", "config", "init.defaultBranch", "trunk")
	r := reopen(t, dir)
	assert.Equal(t, "refs/heads/trunk", r.Base().Ref)
	def, err := r.Rules().Definition("feature")
	require.NoError(t, err)
	impl, _ := def.Phase("implementation")
	assert.Equal(t, 2, impl.MaxFixCycles)

	gittest.Git(t, dir, "", "remote", "add", "upstream", t.TempDir())
	r = reopen(t, dir)
	assert.Equal(t, "refs/remotes/upstream/HEAD", r.Base().Ref)
	assert.Contains(t, r.Base().Problem, "git fetch upstream")
}
