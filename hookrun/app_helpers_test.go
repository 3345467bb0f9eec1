package hookrun_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/exarchos/git-exarchos/app"
	"github.com/exarchos/git-exarchos/hookrun"
	"github.com/exarchos/git-exarchos/internal/gittest"
)

// The hook-runtime tests that set workflows up through app's commands (moved here from app, issue
// 41) share these; the rest come from internal/apptest.

// newRepo is a repository on branch with one empty commit (gittest.NewRepoOnBranch), opened.
func newRepo(t *testing.T, branch string) (string, *app.Repo) {
	t.Helper()
	dir := gittest.NewRepoOnBranch(t, branch)
	r, err := app.Open(dir)
	require.NoError(t, err)
	return dir, r
}

// hookRuntime is r as the hook runtime sees it: the same opened repository and trust.
func hookRuntime(r *app.Repo) *hookrun.Repo { return &hookrun.Repo{Repo: r.Repo} }
