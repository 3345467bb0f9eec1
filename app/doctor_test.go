package app_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/exarchos/git-exarchos/app"
	"github.com/exarchos/git-exarchos/ghclient"
	"github.com/exarchos/git-exarchos/internal/apptest"
	"github.com/exarchos/git-exarchos/internal/gittest"
)

// TestDoctorFindsWhatIsWrong: a stale lock and a snapshot that disagrees with its events are
// failures with a runnable fix; a workflow waiting on a human for days is a warning; fixing the
// lock clears it.
func TestDoctorFindsWhatIsWrong(t *testing.T) {
	dir, _ := apptest.InPlanReview(t)
	t.Setenv("GH_TOKEN", "")
	t.Setenv("GITHUB_TOKEN", "")
	noGh := func(string) (string, error) { return "", os.ErrNotExist }
	env := func(k string) string { return os.Getenv(k) }
	bin := t.TempDir() // the handler on PATH, as an install puts it
	require.NoError(t, os.WriteFile(filepath.Join(bin, "git-exarchos"), []byte("#!/bin/sh\n"), 0o755))
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))

	res, err := app.Doctor(app.DoctorOptions{Dir: dir, Env: envOf(env, noGh)})
	require.NoError(t, err)
	assert.Zero(t, res.Failures, "%+v", res.Checks)
	assert.Equal(t, app.CheckOK, checkOf(res, "store").Status)

	// Four days later, still waiting for approval.
	res, err = app.Doctor(app.DoctorOptions{Dir: dir, Env: envOf(env, noGh), Now: time.Now().Add(96 * time.Hour)})
	require.NoError(t, err)
	st := checkOf(res, "stuck")
	assert.Equal(t, app.CheckWarn, st.Status)
	assert.Contains(t, st.Message, "waited on a human in plan-review")
	assert.Equal(t, "ask the user to run: git exarchos approve login --note \"…\"", st.Fix)

	// A lock left by a crashed git, an hour old.
	lock := filepath.Join(dir, ".git", "refs", "exarchos", "login.lock")
	require.NoError(t, os.WriteFile(lock, nil, 0o644))
	old := time.Now().Add(-time.Hour)
	require.NoError(t, os.Chtimes(lock, old, old))
	res, err = app.Doctor(app.DoctorOptions{Dir: dir, Env: envOf(env, noGh)})
	require.NoError(t, err)
	assert.Equal(t, 1, res.Failures, "%+v", res.Checks)
	l := checkOf(res, "store")
	assert.Equal(t, app.CheckFail, l.Status)
	assert.Equal(t, "rm -f -- '"+lock+"'", l.Fix)
	require.NoError(t, os.Remove(lock))

	// A snapshot that disagrees with the events (state.json rewritten by hand).
	head := gittest.Git(t, dir, "", "rev-parse", "refs/exarchos/login")
	blob := gittest.Git(t, dir, "", "hash-object", "-w", "/dev/null")
	tree := gittest.Git(t, dir, "", "rev-parse", head+"^{tree}")
	ls := gittest.Git(t, dir, "", "ls-tree", tree)
	var lines []string
	for _, l := range strings.Split(ls, "\n") {
		if strings.HasSuffix(l, "\tstate.json") {
			l = "100644 blob " + blob + "\tstate.json"
		}
		lines = append(lines, l)
	}
	tree = gittest.Git(t, dir, strings.Join(lines, "\n")+"\n", "mktree")
	msg := gittest.Git(t, dir, "", "log", "-1", "--format=%B", head)
	forged := gittest.Git(t, dir, "", "commit-tree", tree, "-p", head, "-m", msg)
	gittest.Git(t, dir, "", "update-ref", "refs/exarchos/login", forged, head)
	res, err = app.Doctor(app.DoctorOptions{Dir: dir, Env: envOf(env, noGh)})
	require.NoError(t, err)
	s := checkOf(res, "store")
	assert.Equal(t, app.CheckFail, s.Status, "%+v", res.Checks)
	assert.Equal(t, "git exarchos fsck login", s.Fix)
}

// checkOf is the check named id in res, or the zero check.
func checkOf(res *app.DoctorResult, id string) app.DoctorCheck {
	for _, c := range res.Checks {
		if c.ID == id {
			return c
		}
	}
	return app.DoctorCheck{}
}

func envOf(getenv func(string) string, gh func(string) (string, error)) ghclient.Env {
	return ghclient.Env{Getenv: getenv, GhToken: gh}
}
