package app

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/exarchos/git-exarchos/internal/gittest"
	"github.com/exarchos/git-exarchos/views"
)

// BenchmarkViewPipeline20 builds the pipeline of 20 feature workflows (each: its state, its first
// event, and the way out of its phase, guards evaluated, as `transitions` does); the baseline in
// the same run is `list` over the same workflows (trailers only, nothing folded or evaluated).
func BenchmarkViewPipeline20(b *testing.B) {
	dir := b.TempDir()
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"config", "user.name", "Bench"}, {"config", "user.email", "bench@example.com"}, {"commit", "-q", "--allow-empty", "-m", "initial"}} {
		gittest.Git(b, dir, "", args...)
	}
	r, err := Open(dir)
	require.NoError(b, err)
	for i := range 20 {
		f := fmt.Sprintf("w%02d", i)
		gittest.Git(b, dir, "", "branch", f)
		_, err := Init(r, InitOptions{Feature: f, Type: "feature", Branch: f})
		require.NoError(b, err)
	}
	b.Run("baseline-list", func(b *testing.B) {
		for b.Loop() {
			fresh, _ := Open(dir)
			if l, err := ListWorkflows(fresh, ListOptions{}); err != nil || len(l.Workflows) != 20 {
				b.Fatal(err, len(l.Workflows))
			}
		}
	})
	b.Run("pipeline", func(b *testing.B) {
		for b.Loop() {
			fresh, _ := Open(dir)
			if p, err := views.ShowPipeline(fresh.Hook(), views.PipelineOptions{}, fresh.ViewWorkflows()); err != nil || len(p.Workflows) != 20 {
				b.Fatal(err)
			}
		}
	})
}
