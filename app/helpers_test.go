package app

import (
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/exarchos/git-exarchos/internal/gittest"
)

// TestMain runs the tests isolated from the developer's PATH, git config and agent session, as CI
// runs them (gittest.RunIsolated); tests that stand for an agent say so (Repo.Environ).
func TestMain(m *testing.M) { os.Exit(gittest.RunIsolated(m)) }

// newSagaRepo is gittest.NewProjectRepo, opened, with a workflow "login" bound to main. The
// external tests have the same as apptest.NewSagaRepo (app's own tests cannot import apptest,
// which imports app).
func newSagaRepo(t testing.TB) (string, *Repo) {
	t.Helper()
	dir := gittest.NewProjectRepo(t)
	r, err := Open(dir)
	require.NoError(t, err)
	_, err = Init(r, InitOptions{Feature: "login", Type: "feature", Branch: "main"})
	require.NoError(t, err)
	return dir, r
}
