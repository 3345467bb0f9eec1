package hookrun_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/exarchos/git-exarchos/app"
	"github.com/exarchos/git-exarchos/engine"
	"github.com/exarchos/git-exarchos/gitrepo"
	"github.com/exarchos/git-exarchos/internal/apptest"
	"github.com/exarchos/git-exarchos/internal/gittest"
	"github.com/exarchos/git-exarchos/teamsync"
	"github.com/exarchos/git-exarchos/workflow"
)

// hookTeam is two clones of one remote, each with the workflow "shared" on main (created by the
// first, pulled by the second), the second's hook index and controls' watch written by a look.
func hookTeam(t *testing.T) (a, b *app.Repo, dir string, tm *apptest.Team) {
	t.Helper()
	t.Setenv("HOME", t.TempDir())
	tm = apptest.NewTeam(t, 2)
	a, b, dir = tm.Clones[0], tm.Clones[1], tm.Dirs[1]
	_, err := a.CreateWorkflow(workflow.Init{Feature: "shared", Type: "oneshot", Branch: "main"})
	require.NoError(t, err)
	_, err = push(a)
	require.NoError(t, err)
	_, err = pull(b, teamsync.PullOptions{})
	require.NoError(t, err)
	look(t, b, dir)
	return a, b, dir, tm
}

// push, pull and syncAll are the sync commands as cmd/git-exarchos runs them: their moves handed to
// the hook runtime (engine.Follow).
func push(r *app.Repo) (*teamsync.PushResult, error) {
	return engine.Follow(r.Engine, func() (*teamsync.PushResult, error) { return teamsync.Push(r.Repo, teamsync.PushOptions{}) })
}

func pull(r *app.Repo, o teamsync.PullOptions) (*teamsync.PullResult, error) {
	return engine.Follow(r.Engine, func() (*teamsync.PullResult, error) { return teamsync.Pull(r.Repo, o) })
}

func syncAll(r *app.Repo) (*teamsync.SyncResult, error) {
	return engine.Follow(r.Engine, func() (*teamsync.SyncResult, error) { return teamsync.Sync(r.Repo, teamsync.SyncOptions{}) })
}

// look is a hook call's full read: the index and the controls' watch read from the refs.
func look(t *testing.T, r *app.Repo, dir string) {
	t.Helper()
	boundPhases(t, dir)
	assert.Empty(t, hookRuntime(r).CheckControls(dir), "no ref held: every move was git exarchos's")
}

// kept reports whether the next hook call would take the index and the controls' watch as they
// are, reading no ref.
func kept(t *testing.T, r *app.Repo, dir string) (index, controls bool) {
	t.Helper()
	return indexTakenNow(t, dir), hookRuntime(r).StampsHold(dir)
}

// note appends a note to feature's log through the engine (as `git exarchos event` does).
func note(t *testing.T, r *app.Repo, feature string) {
	t.Helper()
	_, err := r.Append(feature, workflow.NewEvent{Type: "note.added", Data: map[string]string{"by": fmt.Sprint(r.Store.Now().UnixNano())}})
	require.NoError(t, err)
}

// TestEveryWriterKeepsTheHookCurrent: after each writer's moves of workflow refs (a creation, an
// append, a transition, a pull that creates, fast-forwards or merges teammates' workflows, a push
// whose rejected ref is merged, a sync, a pull --prune that deletes one), the next hook call takes
// the index and the controls' watch without reading the refs, and they say what git says.
func TestEveryWriterKeepsTheHookCurrent(t *testing.T) {
	a, b, dir, tm := hookTeam(t)
	steps := []struct {
		name  string
		moves func()
	}{
		{"create", func() {
			_, err := b.CreateWorkflow(workflow.Init{Feature: "mine", Type: "oneshot", Branch: "main"})
			require.NoError(t, err)
		}},
		{"append", func() { note(t, b, "mine") }},
		{"transition", func() {
			_, err := b.Execute("mine", workflow.Set{Assignments: []workflow.Assignment{{Path: "owner", Value: []byte(`"bob"`)}}})
			require.NoError(t, err)
		}},
		{"pull creates two teammates' workflows", func() {
			for _, f := range []string{"theirs", "theirs-2"} {
				_, err := a.CreateWorkflow(workflow.Init{Feature: f, Type: "oneshot", Branch: "main"})
				require.NoError(t, err)
			}
			_, err := push(a)
			require.NoError(t, err)
			pr, err := pull(b, teamsync.PullOptions{})
			require.NoError(t, err)
			require.Equal(t, 2, pr.Counts[teamsync.Created], "%+v", pr)
		}},
		{"pull fast-forwards", func() {
			note(t, a, "theirs")
			_, err := push(a)
			require.NoError(t, err)
			pr, err := pull(b, teamsync.PullOptions{})
			require.NoError(t, err)
			require.Equal(t, 1, pr.Counts[teamsync.FastForward], "%+v", pr)
		}},
		{"pull merges", func() {
			note(t, a, "theirs")
			note(t, b, "theirs")
			_, err := push(a)
			require.NoError(t, err)
			pr, err := pull(b, teamsync.PullOptions{})
			require.NoError(t, err)
			require.Equal(t, 1, pr.Counts[teamsync.Merged], "%+v", pr)
		}},
		{"push merges a rejected ref", func() {
			_, err := pull(a, teamsync.PullOptions{})
			require.NoError(t, err)
			note(t, a, "shared")
			note(t, b, "shared")
			_, err = push(a)
			require.NoError(t, err)
			ps, err := push(b)
			require.NoError(t, err)
			require.Equal(t, 1, ps.Counts[teamsync.PushedAfter], "%+v", ps)
		}},
		{"sync", func() {
			_, err := pull(a, teamsync.PullOptions{})
			require.NoError(t, err)
			note(t, a, "theirs-2")
			_, err = push(a)
			require.NoError(t, err)
			_, err = syncAll(b)
			require.NoError(t, err)
		}},
		{"pull --prune deletes", func() {
			// The pull that first sees the deletion moves no workflow ref; its `git fetch --prune`
			// rewrites packed-refs, so the next call reads the refs (nothing a writer can prove).
			gittest.Git(t, tm.Dirs[0], "", "push", "-q", "origin", ":refs/exarchos/theirs")
			pr, err := pull(b, teamsync.PullOptions{})
			require.NoError(t, err)
			require.Equal(t, 1, pr.Counts[teamsync.DeletedUpstream], "%+v", pr)
			look(t, b, dir)
			pr, err = pull(b, teamsync.PullOptions{Prune: true})
			require.NoError(t, err)
			require.Equal(t, 1, pr.Counts[teamsync.Pruned], "%+v", pr)
		}},
	}
	for _, s := range steps {
		before := refCommits(t, dir)
		s.moves()
		require.NotEqual(t, before, refCommits(t, dir), "%s moved a workflow ref", s.name)
		index, controls := kept(t, b, dir)
		assert.True(t, index, "%s: the index is current after the writer's moves", s.name)
		assert.True(t, controls, "%s: the controls' watch holds after the writer's moves", s.name)
		assert.Equal(t, refCommits(t, dir), indexedCommits(t, dir), "%s: the index names what git says", s.name)
		look(t, b, dir)
	}
	_, gone := refCommits(t, dir)["theirs"]
	assert.False(t, gone, "pruned")
}

// TestUnreportedMovesCostOnlyARead: a move nobody reports to the hook runtime (the store written
// directly, a pull's moves not handed on) leaves the index and the controls' watch as they were:
// the next hook call does not take them, reads the refs, and answers what git says; the move
// holds nothing (the ref-write log names it as git exarchos's own).
func TestUnreportedMovesCostOnlyARead(t *testing.T) {
	a, b, dir, _ := hookTeam(t)
	tip := func(f string) string { return refCommits(t, dir)[f] }
	steps := []struct {
		name  string
		moves func()
	}{
		{"append", func() {
			_, err := b.Store.Append("shared", b.Projector(), workflow.NewEvent{Type: "note.added"})
			require.NoError(t, err)
		}},
		{"create", func() {
			def, _ := workflow.Builtin("oneshot")
			evs, rej := workflow.Decide(def, workflow.State{}, workflow.Init{Feature: "mine", Type: "oneshot", Branch: "main"}, workflow.Env{Actor: "Dev 1 <dev1@example.com>"})
			require.Nil(t, rej)
			_, err := b.Store.Create("mine", b.Projector(), evs)
			require.NoError(t, err)
		}},
		{"pull", func() {
			note(t, a, "shared")
			_, err := push(a)
			require.NoError(t, err)
			pr, err := teamsync.Pull(b.Repo, teamsync.PullOptions{})
			require.NoError(t, err)
			require.NotEmpty(t, pr.RefMoves())
		}},
		{"delete", func() {
			h, ok := gitrepo.ParseHash([]byte(tip("mine")))
			require.True(t, ok)
			moved, err := b.Store.DeleteIfUnchanged("mine", h)
			require.NoError(t, err)
			require.NotNil(t, moved)
		}},
	}
	for _, s := range steps {
		s.moves()
		index, controls := kept(t, b, dir)
		assert.False(t, index, "%s: an unreported move leaves the index not taken", s.name)
		assert.False(t, controls, "%s: and the controls' watch not taken", s.name)
		bound := map[string]bool{}
		for f := range boundPhases(t, dir) {
			bound[f] = true
		}
		refs := map[string]bool{}
		for f := range refCommits(t, dir) {
			refs[f] = true // every workflow here is on main
		}
		assert.Equal(t, refs, bound, "%s: the next call reads the refs and binds what git says", s.name)
		assert.Equal(t, refCommits(t, dir), indexedCommits(t, dir), "%s: and keeps what git says", s.name)
		look(t, b, dir)
	}
}
