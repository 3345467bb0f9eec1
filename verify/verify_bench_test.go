package verify_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/exarchos/git-exarchos/app"
	"github.com/exarchos/git-exarchos/gitstore"
	"github.com/exarchos/git-exarchos/internal/apptest"
	"github.com/exarchos/git-exarchos/internal/gittest"
	"github.com/exarchos/git-exarchos/verify"
	"github.com/exarchos/git-exarchos/workflow"
)

// BenchmarkVerify10k verifies a feature workflow of 10,000 events (custom events after a start)
// from a fresh Repo each time, as `git exarchos verify` runs; the baseline, in the same run, is
// what any reader pays to fold the log again (read every event, project). Target: ≤ 1 s.
func BenchmarkVerify10k(b *testing.B) {
	tm := apptest.NewTeam(b, 1)
	dir := tm.Dirs[0]
	gittest.Git(b, dir, "", "checkout", "-q", "-b", "f")
	r := apptest.Reopen(b, dir)
	_, err := app.Init(r, app.InitOptions{Feature: "f", Type: "feature"})
	require.NoError(b, err)
	for done := 1; done < 10000; {
		batch := make([]workflow.NewEvent, 0, 500)
		for ; done < 10000 && len(batch) < 500; done++ {
			batch = append(batch, workflow.NewEvent{Type: "bench.note", Data: map[string]int{"i": done}})
		}
		_, err := r.Store.Append("f", r.Projector(), batch...)
		require.NoError(b, err)
	}
	b.Run("baseline-refold", func(b *testing.B) {
		for b.Loop() {
			fresh := apptest.Reopen(b, dir)
			events, _, err := fresh.Store.Events("f", gitstore.EventFilter{})
			require.NoError(b, err)
			_, err = fresh.Projector().Project(nil, events)
			require.NoError(b, err)
		}
	})
	b.Run("verify", func(b *testing.B) {
		for b.Loop() {
			_, err := verify.Verify(&verify.Repo{Repo: apptest.Reopen(b, dir).Repo}, verify.Options{Feature: "f"})
			require.NoError(b, err)
		}
	})
	// As CI runs it: the branch's workflows found by their events first (verify_branch.go).
	b.Run("verify-branch", func(b *testing.B) {
		for b.Loop() {
			_, err := verify.Verify(&verify.Repo{Repo: apptest.Reopen(b, dir).Repo}, verify.Options{Branch: "f"})
			require.NoError(b, err)
		}
	})
}
