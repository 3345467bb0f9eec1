package app_test

import (
	"testing"

	"github.com/exarchos/git-exarchos/app"
	"github.com/exarchos/git-exarchos/workflow"
)

// BenchmarkVerify10k verifies a feature workflow of 10,000 events from a fresh Repo each time
// (as `git exarchos verify` runs). Target: ≤ 1 s.
func BenchmarkVerify10k(b *testing.B) {
	tm := newTeam(b, 1)
	dir := tm.dirs[0]
	git(b, dir, "checkout", "-q", "-b", "f")
	r := reopen(b, dir)
	if _, err := app.Init(r, app.InitOptions{Feature: "f", Type: "feature"}); err != nil {
		b.Fatal(err)
	}
	for done := 1; done < 10000; {
		batch := make([]workflow.NewEvent, 0, 500)
		for ; done < 10000 && len(batch) < 500; done++ {
			batch = append(batch, workflow.NewEvent{Type: workflow.EventTaskAdded, Data: workflow.TaskData{ID: "t" + string(rune('a'+done%26)) + itoa(done)}})
		}
		if _, err := r.Store.Append("f", r.Projector(), batch...); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for b.Loop() {
		if _, err := app.Verify(reopen(b, dir), app.VerifyOptions{Feature: "f"}); err != nil {
			b.Fatal(err)
		}
	}
}

func itoa(n int) string {
	s := ""
	for ; n > 0; n /= 10 {
		s = string(rune('0'+n%10)) + s
	}
	return s
}
