package workflow_test

import (
	"fmt"
	"testing"

	"github.com/exarchos/git-exarchos/workflow"
)

// bigLog is a feature workflow with n events, mostly tasks, reviews and custom events.
func bigLog(b *testing.B, n int) []workflow.Event {
	r := newRun(b, "big", "feature", workflow.Init{})
	for i := 0; len(r.log) < n; i++ {
		switch i % 4 {
		case 0:
			r.append([]workflow.NewEvent{{Type: "team.note", Data: map[string]int{"i": i}}})
		case 1:
			r.must(workflow.RecordReview{Dimension: "spec", Pass: i%3 == 0})
		case 2:
			r.must(workflow.AddTask{ID: fmt.Sprintf("t%d", i)})
		default:
			r.set(fmt.Sprintf("counter=%d", i))
		}
	}
	return r.log
}

func BenchmarkProjectAll10k(b *testing.B) {
	log := bigLog(b, 10000)
	b.ResetTimer()
	for b.Loop() {
		if _, err := workflow.Project(workflow.Definitions{}, nil, log); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkProjectAppend is the store's path for one appended event on a 10k-event snapshot.
func BenchmarkProjectAppend(b *testing.B) {
	log := bigLog(b, 10000)
	snap, _ := workflow.Project(workflow.Definitions{}, nil, log[:len(log)-1])
	b.ResetTimer()
	for b.Loop() {
		if _, err := workflow.Project(workflow.Definitions{}, snap, log[len(log)-1:]); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecideTransition(b *testing.B) {
	r := newRun(b, "big", "feature", workflow.Init{})
	r.artifact("design")
	b.ResetTimer()
	for b.Loop() {
		if _, rej := decide(r.state, workflow.TransitionTo{Phase: "plan"}, r.env); rej != nil {
			b.Fatal(rej)
		}
	}
}
