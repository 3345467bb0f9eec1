package trust_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/exarchos/git-exarchos/app"
	"github.com/exarchos/git-exarchos/ghevidence"
	"github.com/exarchos/git-exarchos/hookrun"
	"github.com/exarchos/git-exarchos/internal/agentenv"
	"github.com/exarchos/git-exarchos/internal/apptest"
	"github.com/exarchos/git-exarchos/saga"
	"github.com/exarchos/git-exarchos/trust"
	"github.com/exarchos/git-exarchos/workflow"
)

// claudeEnv is the environment Claude Code gives every command it runs (seen with 2.1.x).
var claudeEnv = agentenv.Env{"PATH=/usr/bin", "CLAUDECODE=1", "CLAUDE_CODE_SESSION_ID=s-1", "CLAUDE_CODE_ENTRYPOINT=cli", "AI_AGENT=claude-code"}

// TestHumanDecisionsRefuseAnAgentsEnvironment: through the in-process API, every human decision is
// refused when the Repo's environment is an agent's, writes nothing, and runs in a human's.
func TestHumanDecisionsRefuseAnAgentsEnvironment(t *testing.T) {
	dir, r := apptest.InPlanReview(t)
	_, before, err := r.State("login")
	require.NoError(t, err)

	r.Environ = claudeEnv
	refused := func(what string, err error) {
		t.Helper()
		var ar *trust.AgentRefusal
		require.True(t, errors.As(err, &ar), "%s: %v", what, err)
		assert.Contains(t, err.Error(), "ask the user to run `git exarchos "+what)
		assert.Equal(t, "CLAUDECODE", ar.Variable)
	}
	for what, cmd := range map[string]workflow.Command{
		"approve login":        workflow.Approve{Note: "ok"},
		"reject login":         workflow.Reject{Gaps: "g"},
		"unblock login":        workflow.Unblock{Reason: "r"},
		"override login":       workflow.OverrideGuard{Guard: "plan-approved", Reason: "r"},
		"grant login":          workflow.GrantTool{Tool: "Bash", Reason: "r"},
		"budget extend login":  workflow.ExtendBudget{Turns: 3, Reason: "r"},
		"cancel login --human": workflow.Cancel{Reason: "r", Human: true},
	} {
		_, err := app.Run(r, "login", cmd)
		refused(what, err)
	}
	_, err = saga.Cancel(r.Saga(), saga.CancelOptions{Feature: "login", Reason: "x", Human: true})
	refused("cancel login --human", err)
	_, err = ghevidence.Cleanup(r.GitHub(), ghevidence.CleanupOptions{Feature: "login", Override: true, Reason: "x"})
	refused("cleanup login --override", err)
	_, err = app.Init(r, app.InitOptions{Feature: "h2", Type: "oneshot", Branch: "login", Human: true})
	refused("init h2 --human", err)
	_, err = trust.SignersAdd(r.Repo, trust.SignersAddOptions{Principal: "a@example.com", KeyFile: "k.pub"})
	refused("signers add", err)
	_, err = app.HooksAccept(r, hookrun.HooksAcceptOptions{}) // no environment named: the Repo's
	refused("hooks accept", err)
	_, err = app.HooksUninstall(app.HooksOptions{Claude: true, Dir: dir, Environ: claudeEnv})
	refused("hooks uninstall", err)
	_, err = hookrun.HooksRelease(hookrun.HooksReleaseOptions{All: true, Environ: claudeEnv})
	refused("hooks release", err)
	_, err = os.Stat(filepath.Join(dir, trust.AllowedSignersPath))
	assert.True(t, os.IsNotExist(err), "signers add wrote the file")

	_, after, err := r.State("login")
	require.NoError(t, err)
	assert.Equal(t, before.Commit, after.Commit, "a refused decision wrote to the workflow")

	// The agent's own commands run in its environment.
	_, err = app.ShowStatus(r, app.StatusOptions{Feature: "login"})
	require.NoError(t, err)

	// A human's environment (none of the variables, or emptied ones).
	r.Environ = agentenv.Env{"PATH=/usr/bin", "CLAUDECODE=", "AI_AGENT="}
	apptest.MustRun(t, r, "login", workflow.Approve{Note: "ok"})
}
