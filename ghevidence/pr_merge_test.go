package ghevidence_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/exarchos/git-exarchos/ghclient/fakegithub"
	"github.com/exarchos/git-exarchos/ghevidence"
	"github.com/exarchos/git-exarchos/internal/apptest"
	"github.com/exarchos/git-exarchos/internal/gittest"
	"github.com/exarchos/git-exarchos/trust"
	"github.com/exarchos/git-exarchos/workflow"
)

// In signed mode a merge decision the base's signers do not allow (the user's git signs with a
// key that is not in .exarchos/allowed_signers) is recorded without effect, and GitHub is never
// asked to merge: pr merge answers decision-refused (exit 3). Signed with the allowed key, the
// same command merges, records the evidence and completes the workflow.
func TestMergeDecisionWithoutEffectMergesNothing(t *testing.T) {
	gh, dir, _ := onGitHub(t)
	keys := t.TempDir()
	alice, aliceLine := apptest.SSHKey(t, keys, "alice")
	mallory, _ := apptest.SSHKey(t, keys, "mallory")
	apptest.WriteCommit(t, dir, trust.AllowedSignersPath, "alice@example.com namespaces=\"git-exarchos\" "+aliceLine+"\n")
	bare := t.TempDir()
	gittest.Git(t, bare, "", "init", "-q", "--bare")
	gittest.Git(t, dir, "", "push", "-q", bare, "main")
	gittest.Git(t, dir, "", "fetch", "-q", bare, "+refs/heads/main:refs/remotes/origin/main")
	apptest.UseKey(t, dir, mallory)
	r := apptest.Reopen(t, dir)
	require.Equal(t, "signed", r.TrustInfo().Mode)
	tip := gittest.Git(t, dir, "", "rev-parse", "main")
	gh.SetPR(fakegithub.PR{Number: 3, Head: "main", Base: "trunk", HeadSHA: tip})
	_, err := ghevidence.LinkPR(r.GitHub(), ghevidence.PRLinkOptions{Feature: "login", Target: "3"})
	require.NoError(t, err)

	_, err = ghevidence.MergePR(r.GitHub(), ghevidence.PRMergeOptions{Feature: "login", Method: "squash"})
	var rej *workflow.Rejection
	require.True(t, errors.As(err, &rej), "%v", err)
	assert.Equal(t, workflow.CodeDecisionRefused, rej.Code)
	assert.Contains(t, rej.Message, "merge decision was recorded without effect")
	by, _ := gh.Requests()
	assert.Zero(t, by["merge-pull"], "GitHub was asked to merge on a decision without effect")
	p, _ := gh.PR(3)
	assert.False(t, p.Merged)
	st := apptest.Status(t, r, "login")
	assert.Nil(t, st.PR.MergeDecision)
	require.NotEmpty(t, st.Refused)
	assert.Equal(t, workflow.KindMerge, st.Refused[len(st.Refused)-1].Kind)

	apptest.UseKey(t, dir, alice)
	r = apptest.Reopen(t, dir)
	res, err := ghevidence.MergePR(r.GitHub(), ghevidence.PRMergeOptions{Feature: "login", Method: "squash"})
	require.NoError(t, err)
	assert.Equal(t, "alice@example.com", res.Decision.Actor)
	assert.Equal(t, tip, res.Decision.HeadSHA)
	require.NotNil(t, res.Cleanup, "%v", res.Warnings)
	assert.Equal(t, "completed", res.Cleanup.State.Phase)
	p, _ = gh.PR(3)
	assert.True(t, p.Merged)
	assert.Equal(t, p.MergeCommitSHA, res.Merge.SHA)
}
