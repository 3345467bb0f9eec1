package teamsync_test

import (
	"errors"
	"fmt"
	"math/rand"
	"os"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/exarchos/git-exarchos/app"
	"github.com/exarchos/git-exarchos/gitstore"
	"github.com/exarchos/git-exarchos/internal/apptest"
	"github.com/exarchos/git-exarchos/internal/gittest"
	"github.com/exarchos/git-exarchos/project"
	"github.com/exarchos/git-exarchos/teamsync"
	"github.com/exarchos/git-exarchos/workflow"
)

func TestPullCreatesFastForwardsAndMerges(t *testing.T) {
	tm := apptest.NewTeam(t, 2)
	a, b := tm.Clones[0], tm.Clones[1]
	// A remote with no workflow yet: pull and push do nothing and succeed.
	pr, err := teamsync.Pull(b.Repo, teamsync.PullOptions{})
	if err != nil || len(pr.Workflows) != 0 {
		t.Fatalf("empty pull: %+v %v", pr, err)
	}
	_, err = a.CreateWorkflow(workflow.Init{Feature: "login", Type: "oneshot", Branch: "main"})
	require.NoError(t, err)
	ps, err := teamsync.Push(a.Repo, teamsync.PushOptions{})
	if err != nil || ps.Counts[teamsync.PushedNew] != 1 {
		t.Fatalf("push: %+v %v", ps, err)
	}
	if pr, err = teamsync.Pull(b.Repo, teamsync.PullOptions{}); err != nil || pr.Counts[gitstore.Created] != 1 {
		t.Fatalf("pull: %+v %v", pr, err)
	}
	// Both set the same field to different values and push: the second push is rejected, merged
	// and pushed again; the conflict is named.
	set := func(r *app.Repo, v string) {
		t.Helper()
		_, err := r.Execute("login", workflow.Set{Assignments: []workflow.Assignment{{Path: "owner", Value: []byte(`"` + v + `"`)}}})
		require.NoError(t, err)
	}
	set(a, "ann")
	set(b, "bob")
	if ps, err = teamsync.Push(a.Repo, teamsync.PushOptions{}); err != nil || ps.Counts[teamsync.Pushed] != 1 {
		t.Fatalf("push a: %+v %v", ps, err)
	}
	ps, err = teamsync.Push(b.Repo, teamsync.PushOptions{})
	if err != nil || ps.Counts[teamsync.PushedAfter] != 1 || len(ps.Workflows[0].Conflicts) != 1 {
		t.Fatalf("push b: %+v %v", ps, err)
	}
	pr, err = teamsync.Pull(a.Repo, teamsync.PullOptions{})
	if err != nil || pr.Counts[gitstore.FastForward] != 1 || len(pr.Workflows[0].Conflicts) != 1 {
		t.Fatalf("pull a: %+v %v", pr, err)
	}
	if sa, sb := gittest.StateBlobs(t, tm.Dirs[0]), gittest.StateBlobs(t, tm.Dirs[1]); sa["login"] != sb["login"] {
		t.Fatalf("states differ:\n%s\n%s", sa["login"], sb["login"])
	}
	st, _, _ := a.State("login")
	if len(st.Conflicts) != 1 || st.FieldString("owner") == "" {
		t.Fatalf("state %+v", st)
	}
	// The next local event's clock is above both sides'.
	res, err := a.Execute("login", workflow.AddTask{ID: "t1"})
	if err != nil || res.Appended[0].Clock <= st.LastClock {
		t.Fatalf("clock after merge: %+v %v (last %d)", res, err, st.LastClock)
	}
}

// Two clones start one id separately: the sync that meets it reports the workflow as failed with
// both types and a fix, changes neither side, and its push does not try it; the other workflows
// still sync.
func TestSyncRefusesSeparateStarts(t *testing.T) {
	tm := apptest.NewTeam(t, 2)
	a, b := tm.Clones[0], tm.Clones[1]
	for _, init := range []struct {
		r    *app.Repo
		f, t string
	}{{a, "report", "oneshot"}, {b, "report", "refactor"}, {b, "other", "oneshot"}} {
		_, err := init.r.CreateWorkflow(workflow.Init{Feature: init.f, Type: init.t, Branch: "main"})
		require.NoError(t, err)
	}
	_, err := teamsync.Push(a.Repo, teamsync.PushOptions{})
	require.NoError(t, err)
	before := gittest.Git(t, tm.Dirs[1], "", "rev-parse", "refs/exarchos/report")
	res, err := teamsync.Sync(b.Repo, teamsync.SyncOptions{})
	require.NoError(t, err)
	if res.Pull.Failures() != 1 || res.Pull.Workflows[0].Feature != "report" {
		t.Fatalf("pull: %+v", res.Pull)
	}
	msg := res.Pull.Workflows[0].Message
	for _, want := range []string{"two workflows were started under one id", "type refactor", "type oneshot", "refs/exarchos-duplicates/report"} {
		if !strings.Contains(msg, want) {
			t.Fatalf("message %q lacks %q", msg, want)
		}
	}
	for _, w := range res.Push.Workflows {
		if w.Feature == "report" {
			t.Fatalf("push tried the refused workflow: %+v", w)
		}
	}
	if res.Push.Counts[teamsync.PushedNew] != 1 {
		t.Fatalf("the other workflow still syncs: %+v", res.Push)
	}
	if after := gittest.Git(t, tm.Dirs[1], "", "rev-parse", "refs/exarchos/report"); after != before {
		t.Fatalf("local workflow changed: %s → %s", before, after)
	}
	st, _, err := b.State("report")
	if err != nil || st.Type != "refactor" {
		t.Fatalf("local type: %+v %v", st, err)
	}
	if got := gittest.Git(t, tm.Remote, "", "cat-file", "blob", "refs/exarchos/report:state.json"); !strings.Contains(got, `"type":"oneshot"`) {
		t.Fatalf("remote changed: %s", got)
	}
}

func TestDeletedUpstreamKeptUnlessPruned(t *testing.T) {
	tm := apptest.NewTeam(t, 2)
	a, b := tm.Clones[0], tm.Clones[1]
	for _, f := range []string{"one", "two"} {
		_, err := a.CreateWorkflow(workflow.Init{Feature: f, Type: "oneshot", Branch: "main"})
		require.NoError(t, err)
	}
	_, err := teamsync.Sync(a.Repo, teamsync.SyncOptions{})
	require.NoError(t, err)
	_, err = teamsync.Pull(b.Repo, teamsync.PullOptions{})
	require.NoError(t, err)
	gittest.Git(t, tm.Dirs[0], "", "push", "-q", "origin", ":refs/exarchos/one", ":refs/exarchos/two")
	// b changed "two" after the deletion: even --prune keeps it.
	_, err = b.Store.Append("two", b.Projector(), workflow.NewEvent{Type: "note"})
	require.NoError(t, err)
	pr, err := teamsync.Pull(b.Repo, teamsync.PullOptions{})
	if err != nil || pr.Counts[teamsync.DeletedUpstream] != 2 {
		t.Fatalf("pull: %+v %v", pr, err)
	}
	// push does not bring them back.
	ps, err := teamsync.Push(b.Repo, teamsync.PushOptions{})
	if err != nil || ps.Counts[teamsync.SkippedGone] != 2 {
		t.Fatalf("push: %+v %v", ps, err)
	}
	pr, err = teamsync.Pull(b.Repo, teamsync.PullOptions{Prune: true})
	if err != nil || pr.Counts[teamsync.Pruned] != 1 || pr.Counts[teamsync.DeletedUpstream] != 1 {
		t.Fatalf("prune: %+v %v", pr, err)
	}
	if ok, _ := b.Store.Exists("one"); ok {
		t.Fatal("one not pruned")
	}
	if ok, _ := b.Store.Exists("two"); !ok {
		t.Fatal("two (changed here) pruned")
	}
}

func TestRemoteSetupIsIdempotentAndPlainFetchBringsWorkflows(t *testing.T) {
	tm := apptest.NewTeam(t, 2)
	_, err := tm.Clones[0].CreateWorkflow(workflow.Init{Feature: "x", Type: "oneshot", Branch: "main"})
	require.NoError(t, err)
	_, err = teamsync.Push(tm.Clones[0].Repo, teamsync.PushOptions{})
	require.NoError(t, err)
	for i, want := range []bool{true, false} {
		res, err := teamsync.RemoteSetup(tm.Clones[1].Repo, teamsync.RemoteSetupOptions{})
		if err != nil || res.Added != want || res.Remote != "origin" {
			t.Fatalf("setup %d: %+v %v", i, res, err)
		}
	}
	gittest.Git(t, tm.Dirs[1], "", "fetch", "-q")
	if got := gittest.Git(t, tm.Dirs[1], "", "for-each-ref", "--format=%(refname)", "refs/exarchos-remotes/"); got != "refs/exarchos-remotes/origin/x" {
		t.Fatalf("tracking refs %q", got)
	}
	if got := gittest.Git(t, tm.Dirs[1], "", "for-each-ref", "refs/exarchos/"); got != "" {
		t.Fatalf("plain fetch wrote local workflows: %s", got)
	}
	if _, err := teamsync.Pull(tm.Clones[1].Repo, teamsync.PullOptions{Remote: "nope"}); err == nil || !strings.Contains(err.Error(), "no such remote") {
		t.Fatalf("unknown remote: %v", err)
	}
}

// TestConvergence drives two and three clones through random interleavings of workflow commands,
// custom events, pulls, pushes and syncs; then everyone syncs twice. Every clone must then hold a
// byte-identical state.json for every workflow, every event written anywhere exactly once, and each
// conflict once.
func TestConvergence(t *testing.T) {
	seeds := 8
	if testing.Short() {
		seeds = 3
	}
	var merges, conflicts atomic.Int64
	t.Cleanup(func() {
		// The property is vacuous unless the interleavings diverged and conflicted.
		if !t.Failed() && (merges.Load() == 0 || conflicts.Load() == 0) {
			t.Errorf("no run exercised a merge (%d) or a conflict (%d): change the seeds", merges.Load(), conflicts.Load())
		}
		t.Logf("%d merges, %d conflicts", merges.Load(), conflicts.Load())
	})
	for _, n := range []int{2, 3} {
		for seed := 1; seed <= seeds; seed++ {
			t.Run(fmt.Sprintf("clones=%d/seed=%d", n, seed), func(t *testing.T) {
				t.Parallel()
				m, c := converge(t, n, int64(seed*100+n), 30)
				merges.Add(int64(m))
				conflicts.Add(int64(c))
			})
		}
	}
}

// converge runs one interleaving and returns how many merges it made and conflicts it ended with.
func converge(t *testing.T, n int, seed int64, steps int) (merges, conflicted int) {
	rng := rand.New(rand.NewSource(seed))
	tm := apptest.NewTeam(t, n)
	features := []string{"alpha", "beta"}
	written := map[string]map[string]bool{} // feature → event ids ever written
	started := map[string]bool{}
	record := func(f string, evs []workflow.Event) {
		if written[f] == nil {
			written[f] = map[string]bool{}
		}
		for _, e := range evs {
			written[f][e.ID] = true
		}
	}
	var trace []string
	for step := 0; step < steps; step++ {
		c := rng.Intn(n)
		r := tm.Clones[c]
		f := features[rng.Intn(len(features))]
		op := rng.Intn(10)
		trace = append(trace, fmt.Sprintf("%d:%s:%d", c, f, op))
		var res *project.Result
		var err error
		switch op {
		case 0:
			// Each id is started once in the team: two clones starting one id separately make two
			// workflows, which sync refuses to merge (TestSyncRefusesSeparateStarts).
			if !started[f] {
				if res, err = r.CreateWorkflow(workflow.Init{Feature: f, Type: "loop", Branch: "main"}); err == nil {
					started[f] = true
				}
			}
		case 1:
			var gr *gitstore.Result
			if gr, err = r.Store.Append(f, r.Projector(), workflow.NewEvent{Type: "note", Data: map[string]int{"step": step}}); err == nil {
				record(f, gr.Appended)
			}
		case 2:
			res, err = r.Execute(f, workflow.Set{Assignments: []workflow.Assignment{{Path: "owner", Value: []byte(fmt.Sprintf(`"dev%d"`, c))}}})
		case 3:
			res, err = r.Execute(f, workflow.AddTask{ID: fmt.Sprintf("t%d", rng.Intn(2))})
		case 4:
			if rng.Intn(2) == 0 {
				res, err = r.Execute(f, workflow.CompleteTask{ID: fmt.Sprintf("t%d", rng.Intn(2))})
			} else {
				res, err = r.Execute(f, workflow.FailTask{ID: fmt.Sprintf("t%d", rng.Intn(2)), Reason: "flaky"})
			}
		case 5:
			res, err = r.Execute(f, workflow.TransitionTo{Phase: "working"}) // unguarded: races decide it
		case 6:
			var pr *teamsync.PullResult
			if pr, err = teamsync.Pull(r.Repo, teamsync.PullOptions{}); err == nil {
				merges += pr.Counts[gitstore.Merged]
			}
		case 7:
			var ps *teamsync.PushResult
			if ps, err = teamsync.Push(r.Repo, teamsync.PushOptions{}); err == nil {
				merges += ps.Counts[teamsync.PushedAfter]
			}
		default:
			var sr *teamsync.SyncResult
			if sr, err = teamsync.Sync(r.Repo, teamsync.SyncOptions{}); err == nil {
				merges += sr.Pull.Counts[gitstore.Merged] + sr.Push.Counts[teamsync.PushedAfter]
			}
		}
		if res != nil {
			record(f, res.Appended)
		}
		if err != nil && !project.IsRejection(err) && !isExpected(err) {
			t.Fatalf("step %d (%v): %v", step, trace, err)
		}
	}
	for round := 0; round < 2; round++ {
		for c, r := range tm.Clones {
			res, err := teamsync.Sync(r.Repo, teamsync.SyncOptions{})
			require.NoError(t, err, "final sync %d/%d", round, c)
			merges += res.Pull.Counts[gitstore.Merged] + res.Push.Counts[teamsync.PushedAfter]
			if res.Pull.Failures() > 0 || res.Push.Failures() > 0 {
				t.Fatalf("final sync %d/%d: %+v %+v", round, c, res.Pull, res.Push)
			}
		}
	}
	want := gittest.StateBlobs(t, tm.Dirs[0])
	if len(want) != len(written) {
		t.Fatalf("clone 0 has %d workflows, %d were written (%v)", len(want), len(written), trace)
	}
	for c := 1; c < n; c++ {
		got := gittest.StateBlobs(t, tm.Dirs[c])
		for f := range want {
			if got[f] != want[f] {
				t.Fatalf("clone %d %s state.json differs (%v):\n%s\n%s", c, f, trace, got[f], want[f])
			}
		}
	}
	for f, ids := range written {
		for c, r := range tm.Clones {
			events, _, err := r.Store.Events(f, gitstore.EventFilter{})
			require.NoError(t, err)
			seen := map[string]bool{}
			for _, e := range events {
				if seen[e.ID] {
					t.Fatalf("clone %d %s: event %s twice", c, f, e.ID)
				}
				seen[e.ID] = true
				if !ids[e.ID] {
					t.Fatalf("clone %d %s: event %s never written", c, f, e.ID)
				}
			}
			if len(seen) != len(ids) {
				t.Fatalf("clone %d %s: %d events, %d written (%v)", c, f, len(seen), len(ids), trace)
			}
			problems, err := r.Store.Verify(f, r.Projector())
			if err != nil || len(problems) > 0 {
				t.Fatalf("clone %d %s: fsck %v %+v", c, f, err, problems)
			}
			st, _, _ := r.State(f)
			conflicts := map[string]bool{}
			for _, k := range st.Conflicts {
				if conflicts[k.ID] {
					t.Fatalf("conflict %s listed twice", k.ID)
				}
				conflicts[k.ID] = true
			}
			if c == 0 {
				conflicted += len(conflicts)
			}
		}
	}
	return merges, conflicted
}

// isExpected are the errors a random interleaving legitimately runs into.
func isExpected(err error) bool {
	return errors.Is(err, gitstore.ErrNotFound) || errors.Is(err, gitstore.ErrExists)
}

// TestMain runs the tests isolated from the developer's PATH, git config and agent session.
func TestMain(m *testing.M) { os.Exit(gittest.RunIsolated(m)) }
