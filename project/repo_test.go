package project

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/exarchos/git-exarchos/internal/gittest"
	"github.com/exarchos/git-exarchos/workflow"
)

// judged is a Verdicts that refuses every decision and counts the calls.
type judged struct{ calls int }

func (j *judged) ProjectorVersion() string { return workflow.ProjectorVersion + "+test" }
func (j *judged) For(_ json.RawMessage, events []workflow.Event) []workflow.Event {
	j.calls++
	out := append([]workflow.Event(nil), events...)
	for i := range out {
		if workflow.DecisionKind(out[i]) != "" {
			out[i].Verdict = &workflow.Verdict{Reason: "refused by the test"}
		}
	}
	return out
}

// TestFoldWithoutVerdictsRefusesDecisions: a Repo opened without trust's verdicts folds events
// that hold no human decision, and refuses to fold one (an unverdicted decision must never take
// effect because a caller forgot to install trust); installed verdicts are asked, and name the
// projector's version.
func TestFoldWithoutVerdictsRefusesDecisions(t *testing.T) {
	r, err := Open(gittest.NewRepoOnBranch(t, "main"))
	require.NoError(t, err)
	started := workflow.Event{Type: workflow.EventStarted, Data: json.RawMessage(`{"feature":"f","type":"feature","branch":"main","phase":"ideate"}`)}
	approved := workflow.Event{Type: workflow.EventPlanApproved, Data: json.RawMessage(`{}`)}

	assert.Equal(t, workflow.ProjectorVersion, r.Projector().Version())
	_, err = r.Projector().Project(nil, []workflow.Event{started})
	assert.NoError(t, err, "no decision: folded without verdicts")
	_, err = r.Projector().Project(nil, []workflow.Event{started, approved})
	assert.True(t, errors.Is(err, errNoVerdicts), "a decision without verdicts: %v", err)

	j := &judged{}
	r.Verdicts = j
	assert.Equal(t, workflow.ProjectorVersion+"+test", r.Projector().Version())
	_, err = r.Projector().Project(nil, []workflow.Event{started, approved})
	assert.NotErrorIs(t, err, errNoVerdicts)
	assert.Equal(t, 1, j.calls, "the installed verdicts judge the decision")
}
