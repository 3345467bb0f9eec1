//go:build linux

package hookrun_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/exarchos/git-exarchos/app"
	"github.com/exarchos/git-exarchos/fsmonitor"
	"github.com/exarchos/git-exarchos/hookrun"
	"github.com/exarchos/git-exarchos/internal/gittest"
)

// withMonitor has the hook start file-system monitors in this process (the CLI starts
// `git exarchos hook monitor`); each ends when its tree is removed.
func withMonitor(t *testing.T, o fsmonitor.Options) {
	prev := testMonitor
	testMonitor = func(root string) error {
		ready := make(chan struct{})
		o := o
		o.Ready = func() { close(ready) }
		done := make(chan error, 1)
		go func() { done <- fsmonitor.Serve(root, o) }()
		select {
		case <-ready:
		case err := <-done:
			return err
		}
		return nil
	}
	t.Cleanup(func() { testMonitor = prev })
}

// brokenGit puts a git that always fails first on PATH for one call: a call that still answers
// did not run `git status`, it used the answer kept under the monitor's token.
func brokenGit(t *testing.T, call func()) {
	t.Helper()
	bin := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(bin, "git"), []byte("#!/bin/sh\necho broken git >&2\nexit 1\n"), 0o755))
	old := os.Getenv("PATH")
	t.Setenv("PATH", bin+string(os.PathListSeparator)+old)
	call()
	t.Setenv("PATH", old)
}

// TestHookEffectsKeptUnderTheMonitor: with a monitor watching the worktree, PostToolUse reuses its
// last `git status` while nothing changed (shown by a git that fails), and every way of changing
// what the status reads makes it look again: a write by any process, an index-only change, a
// commit made with plumbing (no file of the tree touched), a checkout, a write inotify does not
// report (through a hard link from outside, found by the rescan: TestHookEffectsRescan).
func TestHookEffectsKeptUnderTheMonitor(t *testing.T) {
	// No timed rescan here: one that lags behind the events counts their change again, which
	// costs a call one more `git status` and would make the kept() checks below flaky.
	withMonitor(t, fsmonitor.Options{Rescan: -1})
	dir, _ := loginRepo(t)
	post := func() string { return callHook(t, "m1", dir, "PostToolUse", "Bash", bash("whatever")).denied() }
	sh := func(script string) {
		t.Helper()
		cmd := exec.Command("sh", "-c", script)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s: %s", script, out)
	}
	kept := func() string {
		t.Helper()
		var reason string
		brokenGit(t, func() { reason = post() })
		require.NotContains(t, reason, "could not read what changed", "the kept status was not used")
		return reason
	}

	assert.Empty(t, post(), "clean; the monitor starts")
	_, err := fsmonitor.Token(dir)
	require.NoError(t, err, "the hook started a monitor")
	assert.Empty(t, post(), "clean; the status is kept")
	assert.Empty(t, kept(), "clean, from the kept status")

	// A write by another process, the way sed -i makes one.
	sh("sed -i 's/main/main \\/\\/ x/' main.go")
	assert.Contains(t, post(), "main.go (worktree)")
	assert.Contains(t, kept(), "main.go (worktree)", "a denial is kept too")
	sh("git checkout -q -- main.go")
	assert.Empty(t, post(), "undone")
	assert.Empty(t, kept())

	// Index only: the tree's files do not change, the index does.
	sh("git rm -q --cached main.go")
	reason := post()
	assert.Contains(t, reason, "main.go (index)")
	assert.Contains(t, reason, "main.go (untracked)")
	sh("git add main.go")
	assert.Empty(t, post())
	assert.Empty(t, kept())

	// A commit made with plumbing moves HEAD without touching the tree or the index.
	sh(`blob=$(echo 'package sneak' | git hash-object -w --stdin)
tree=$( (printf '100644 blob %s\tsneak.go\n' "$blob"; git ls-tree HEAD) | git mktree)
git update-ref HEAD $(git commit-tree -p HEAD -m sneak $tree)`)
	reason = post()
	assert.Contains(t, reason, "sneak.go (branch)")
	sh("git update-ref HEAD HEAD~1")
	assert.Empty(t, post(), "the sneaked commit dropped")
	assert.Empty(t, kept())

	// A checkout of another branch with other files.
	sh("git switch -q -c other && echo 'package x' > x.go && git add x.go && git commit -q -m x && git switch -q login")
	assert.Empty(t, post())
	sh("git checkout -q other -- x.go")
	assert.Contains(t, post(), "x.go (index)")
	sh("git rm -q -f x.go")
	assert.Empty(t, post())
	assert.Empty(t, kept())

}

// TestHookEffectsRescan: a write inotify does not report, through a hard link that lives outside
// the tree, is found by the monitor's timed rescan and judged.
func TestHookEffectsRescan(t *testing.T) {
	withMonitor(t, fsmonitor.Options{Rescan: 20 * time.Millisecond})
	dir, _ := loginRepo(t)
	post := func() string { return callHook(t, "m3", dir, "PostToolUse", "Bash", bash("whatever")).denied() }
	assert.Empty(t, post())
	outside := filepath.Join(t.TempDir(), "main.go")
	require.NoError(t, os.Link(filepath.Join(dir, "main.go"), outside))
	assert.Empty(t, post())
	assert.Empty(t, post())
	require.NoError(t, os.WriteFile(outside, []byte("package main // through the link\n"), 0o644))
	deadline := time.Now().Add(5 * time.Second)
	for {
		reason := post()
		if reason != "" {
			assert.Contains(t, reason, "main.go (worktree)")
			break
		}
		require.True(t, time.Now().Before(deadline), "the write through the hard link was never seen")
		time.Sleep(20 * time.Millisecond)
	}
}

// TestHookEffectsWithoutTheMonitor: a kept status is believed only with the token it was kept
// under; a stale kept answer and a monitor that stopped make the hook read the tree again.
func TestHookEffectsWithoutTheMonitor(t *testing.T) {
	var started int
	prev := testMonitor
	testMonitor = func(string) error { started++; return nil } // a monitor that never comes up
	t.Cleanup(func() { testMonitor = prev })
	dir, _ := loginRepo(t)
	post := func() string { return callHook(t, "m2", dir, "PostToolUse", "Bash", bash("whatever")).denied() }
	assert.Empty(t, post())
	assert.Empty(t, post())
	assert.Equal(t, 1, started, "a monitor is started at most once a minute per tree")
	gittest.WriteFile(t, dir, "src/a.go", "package src\n")
	assert.Contains(t, post(), "src/a.go (untracked)", "no monitor: the tree is read on every call")
	var reason string
	brokenGit(t, func() { reason = post() })
	assert.Contains(t, reason, "could not read what changed", "without a monitor nothing is kept")
}

// TestHookMonitorTurnedOff: `git config exarchos.hookMonitor false` starts no monitor and keeps
// nothing, even where one is running; hooks status says so.
func TestHookMonitorTurnedOff(t *testing.T) {
	withMonitor(t, fsmonitor.Options{Rescan: -1})
	dir, r := loginRepo(t)
	post := func() string { return callHook(t, "m5", dir, "PostToolUse", "Bash", bash("whatever")).denied() }
	assert.Empty(t, post()) // on: starts a monitor
	_, err := fsmonitor.Token(dir)
	require.NoError(t, err)
	gittest.Git(t, dir, "", "config", "exarchos.hookMonitor", "false")
	assert.Contains(t, post(), "changes what git runs", "the user turned a watched setting; the agent is blocked until they accept it")
	_, err = app.HooksAccept(r, hookrun.HooksAcceptOptions{Environ: []string{}}) // the user's own terminal
	require.NoError(t, err)
	assert.Empty(t, post())
	assert.Empty(t, post())
	var reason string
	brokenGit(t, func() { reason = post() })
	assert.Contains(t, reason, "could not read what changed", "turned off: the running monitor's token is not used")
	res, err := app.HooksStatus(app.HooksOptions{Dir: dir, Claude: true})
	require.NoError(t, err)
	assert.Contains(t, res.Monitor, "off (git config exarchos.hookMonitor false)")

	dir2, _ := loginRepo(t)
	gittest.Git(t, dir2, "", "config", "exarchos.hookMonitor", "off")
	assert.Empty(t, callHook(t, "m6", dir2, "PostToolUse", "Bash", bash("whatever")).denied())
	_, err = fsmonitor.Token(dir2)
	require.ErrorIs(t, err, fsmonitor.ErrNotRunning, "turned off: no monitor is started")
}

// TestHookEffectsInALinkedWorktree: the workflow's branch checked out in a linked worktree (its
// .git a file, its index under the main repository's .git/worktrees/): the monitor watches that
// worktree, the kept status is used there, and a write or an index change there is judged.
func TestHookEffectsInALinkedWorktree(t *testing.T) {
	withMonitor(t, fsmonitor.Options{Rescan: -1})
	dir, _ := loginRepo(t)
	gittest.Git(t, dir, "", "switch", "-q", "-c", "elsewhere")
	wt := filepath.Join(t.TempDir(), "login-wt")
	gittest.Git(t, dir, "", "worktree", "add", "-q", wt, "login")
	post := func() string { return callHook(t, "m4", wt, "PostToolUse", "Bash", bash("whatever")).denied() }
	assert.Empty(t, post())
	assert.Empty(t, post())
	var reason string
	brokenGit(t, func() { reason = post() })
	assert.Empty(t, reason, "the kept status, in a linked worktree")

	gittest.WriteFile(t, dir, "main.go", "package main // in the other worktree\n")
	assert.Empty(t, post(), "the other worktree's changes are not this session's")
	gittest.WriteFile(t, wt, "main.go", "package main // here\n")
	assert.Contains(t, post(), "main.go (worktree)")
	gittest.Git(t, wt, "", "checkout", "-q", "--", "main.go")
	assert.Empty(t, post())
	gittest.Git(t, wt, "", "rm", "-q", "--cached", "main.go")
	assert.Contains(t, post(), "main.go (index)")
}

// TestDoctorReportsTheMonitor: doctor says whether PostToolUse's monitor watches the worktree,
// will start, or is turned off.
func TestDoctorReportsTheMonitor(t *testing.T) {
	withMonitor(t, fsmonitor.Options{Rescan: -1})
	dir, _ := loginRepo(t)
	check := func() app.DoctorCheck {
		res, err := app.Doctor(app.DoctorOptions{Dir: dir})
		require.NoError(t, err)
		return find(res, "fsmonitor")
	}
	c := check()
	assert.Equal(t, app.CheckOK, c.Status)
	assert.Contains(t, c.Message, "starts with the first PostToolUse")
	assert.Contains(t, c.Message, "inotify allows")
	callHook(t, "m7", dir, "PostToolUse", "Bash", bash("whatever"))
	assert.Contains(t, check().Message, "file-system monitor watching")
	gittest.Git(t, dir, "", "config", "exarchos.hookMonitor", "false")
	assert.Contains(t, check().Message, "off (exarchos.hookMonitor false)")
}

// find is the check named id in res, or the zero check.
func find(res *app.DoctorResult, id string) app.DoctorCheck {
	for _, c := range res.Checks {
		if c.ID == id {
			return c
		}
	}
	return app.DoctorCheck{}
}
