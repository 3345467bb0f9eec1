package app_test

import (
	"testing"

	"github.com/exarchos/git-exarchos/app"
	"github.com/exarchos/git-exarchos/internal/gittest"
)

// team is a bare remote and n clones of it, each with its own identity, opened.
type team struct {
	remote string
	clones []*app.Repo
	dirs   []string
}

func newTeam(t testing.TB, n int) *team {
	t.Helper()
	tm := &team{}
	tm.remote, tm.dirs = gittest.NewTeam(t, n)
	for _, dir := range tm.dirs {
		r, err := app.Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		tm.clones = append(tm.clones, r)
	}
	return tm
}
