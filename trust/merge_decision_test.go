package trust_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/exarchos/git-exarchos/internal/apptest"
	"github.com/exarchos/git-exarchos/internal/gittest"
	"github.com/exarchos/git-exarchos/workflow"
)

// signedMerge is a pr.merge-decided signed with key on head, as `pr merge` signs one.
func signedMerge(t *testing.T, key, head string, d workflow.MergeDecisionData) workflow.NewEvent {
	return signedEvent(t, key, "login", head, workflow.EventPRMergeDecided, d)
}

// The merge of a pull request is a human decision like approve: in signed mode a merge decision
// that is unsigned, tampered with or signed by a key the base does not allow has no effect (the
// pull request carries no decision, the refusal says why), verify fails the log that holds one,
// and the genuine one, made the same way, counts.
func TestForgedMergeDecisionsHaveNoEffect(t *testing.T) {
	st := apptest.NewSignedTeam(t)
	dir := st.Dirs[0]
	const url = "https://github.com/acme/app/pull/7"
	apptest.Forge(t, st.Clones[0], "login", workflow.NewEvent{Type: workflow.EventPRLinked, Data: workflow.PRLinkData{URL: url, Number: 7, Head: "login", Base: "main", Confirmed: true}})
	head := func() string { return gittest.Git(t, dir, "", "rev-parse", "refs/exarchos/login") }
	tip := gittest.Git(t, dir, "", "rev-parse", "login")
	decision := workflow.MergeDecisionData{Number: 7, URL: url, HeadSHA: tip, Method: "squash", Actor: "Jane Lead"}
	cases := []struct {
		name, reason string
		ev           func() workflow.NewEvent
	}{
		{"unsigned", "unsigned", func() workflow.NewEvent { return workflow.NewEvent{Type: workflow.EventPRMergeDecided, Data: decision} }},
		{"another head merged", "bad signature", func() workflow.NewEvent {
			n := signedMerge(t, st.Alice, head(), decision)
			d := decision
			d.HeadSHA = strings.Repeat("e", 40) // signed for the reviewed tip, then pointed at a later push
			n.Data = d
			return n
		}},
		{"unknown key", "not in", func() workflow.NewEvent { return signedMerge(t, st.Mallory, head(), decision) }},
	}
	for i, c := range cases {
		apptest.Forge(t, st.Clones[0], "login", c.ev())
		got := apptest.Status(t, apptest.Reopen(t, dir), "login")
		require.NotNil(t, got.PR, c.name)
		require.Nil(t, got.PR.MergeDecision, "%s: a forged merge decision took effect", c.name)
		require.Len(t, got.Refused, i+1, c.name)
		require.Equal(t, workflow.KindMerge, got.Refused[i].Kind, c.name)
		require.Contains(t, got.Refused[i].Reason, c.reason, c.name)
		if i == 0 {
			res := verifyFails(t, dir, "decision")
			require.Contains(t, res.Workflows[0].Violations[0].Message, "merge decision without effect: unsigned")
		}
	}
	apptest.Forge(t, st.Clones[0], "login", signedMerge(t, st.Alice, head(), decision))
	got := apptest.Status(t, apptest.Reopen(t, dir), "login")
	require.NotNil(t, got.PR.MergeDecision, "the genuine signed decision")
	require.Equal(t, "alice@example.com", got.PR.MergeDecision.Actor)
	require.Equal(t, tip, got.PR.MergeDecision.HeadSHA)
}
