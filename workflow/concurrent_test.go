package workflow_test

import (
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/exarchos/git-exarchos/workflow"
)

// fork decides cmds on two copies of one state, as two clones would, and folds the union of both
// logs in canonical order, as a merge does. Side b's clocks are offset so the sides interleave.
func fork(t *testing.T, base []workflow.Event, a, b []workflow.Command) workflow.State {
	t.Helper()
	env := workflow.Env{Actor: "alice"}
	side := func(name string, cmds []workflow.Command, offset uint64) []workflow.Event {
		st := workflow.Definitions{}.Fold(workflow.State{}, base)
		var out []workflow.Event
		clock := st.LastClock + offset
		for i, c := range cmds {
			evs, rej := decide(st, c, env)
			if rej != nil {
				t.Fatalf("%s %d: %v", name, i, rej)
			}
			for _, ne := range evs {
				clock++
				e, err := ne.Stamp(fmt.Sprintf("%s-%03d", name, len(out)), 0, time.Unix(int64(clock), 0), name, clock)
				if err != nil {
					t.Fatal(err)
				}
				st = workflow.Definitions{}.Apply(st, e)
				out = append(out, e)
			}
		}
		return out
	}
	all := append(append(append([]workflow.Event(nil), base...), side("a", a, 0)...), side("b", b, 1)...)
	sort.Slice(all, func(i, j int) bool { return workflow.Less(all[i], all[j]) })
	for i := range all {
		all[i].Seq = int64(i + 1)
	}
	return workflow.Definitions{}.Fold(workflow.State{}, all)
}

func baseLog(t *testing.T, typ string, cmds ...workflow.Command) []workflow.Event {
	t.Helper()
	var log []workflow.Event
	st := workflow.State{}
	for i, c := range append([]workflow.Command{workflow.Init{Feature: "f", Type: typ, Branch: "b"}}, cmds...) {
		evs, rej := decide(st, c, workflow.Env{Actor: "alice"})
		if rej != nil {
			t.Fatalf("base %d: %v", i, rej)
		}
		for _, ne := range evs {
			e, err := ne.Stamp(fmt.Sprintf("base-%03d", len(log)), int64(len(log)+1), time.Unix(0, 0), "alice", uint64(len(log)+1))
			if err != nil {
				t.Fatal(err)
			}
			st = workflow.Definitions{}.Apply(st, e)
			log = append(log, e)
		}
	}
	return log
}

func TestConcurrentTaskOutcomesConflict(t *testing.T) {
	base := baseLog(t, "feature", workflow.AddTask{ID: "t1", Title: "one"}, workflow.StartTask{ID: "t1"})
	st := fork(t, base, []workflow.Command{workflow.CompleteTask{ID: "t1", HeadSHA: "c0ffee"}}, []workflow.Command{workflow.FailTask{ID: "t1", Reason: "broke"}})
	task, _ := st.Task("t1")
	if task.Status != workflow.TaskCompleted {
		t.Fatalf("first in canonical order (a's completion) should win, got %s", task.Status)
	}
	if len(st.Conflicts) != 1 || st.Conflicts[0].Type != workflow.EventTaskFailed || !strings.Contains(st.Conflicts[0].Reason, "concurrently") {
		t.Fatalf("conflicts %+v", st.Conflicts)
	}
}

func TestSequentialRetryIsNoConflict(t *testing.T) {
	// Fail then complete on one side: a retry, not a conflict.
	base := baseLog(t, "feature", workflow.AddTask{ID: "t1"}, workflow.FailTask{ID: "t1", Reason: "x"}, workflow.CompleteTask{ID: "t1", HeadSHA: "c0ffee"},
		workflow.Set{Assignments: []workflow.Assignment{{Path: "owner", Value: []byte(`"a"`)}}},
		workflow.Set{Assignments: []workflow.Assignment{{Path: "owner", Value: []byte(`"b"`)}}})
	st := workflow.Definitions{}.Fold(workflow.State{}, base)
	if task, _ := st.Task("t1"); task.Status != workflow.TaskCompleted || len(st.Conflicts) != 0 || st.FieldString("owner") != "b" {
		t.Fatalf("task %+v conflicts %+v owner %s", task, st.Conflicts, st.FieldString("owner"))
	}
}

func TestConcurrentFieldSetsConflict(t *testing.T) {
	set := func(v string) workflow.Command {
		return workflow.Set{Assignments: []workflow.Assignment{{Path: "owner", Value: []byte(v)}}}
	}
	st := fork(t, baseLog(t, "feature"), []workflow.Command{set(`"ann"`)}, []workflow.Command{set(`"bob"`)})
	if st.FieldString("owner") != "ann" || len(st.Conflicts) != 1 || st.Conflicts[0].Type != workflow.EventFieldSet {
		t.Fatalf("owner %q conflicts %+v", st.FieldString("owner"), st.Conflicts)
	}
	// The same value set on both sides agrees: no conflict.
	st = fork(t, baseLog(t, "feature"), []workflow.Command{set(`"ann"`)}, []workflow.Command{set(`"ann"`)})
	if st.FieldString("owner") != "ann" || len(st.Conflicts) != 0 {
		t.Fatalf("owner %q conflicts %+v", st.FieldString("owner"), st.Conflicts)
	}
}

func TestConcurrentTransitionsConflict(t *testing.T) {
	// Both sides leave plan: the first in canonical order moves, the other is recorded.
	move := []workflow.Command{workflow.TransitionTo{Phase: "working"}}
	st := fork(t, baseLog(t, "loop"), move, move)
	if st.Phase != "working" || len(st.Conflicts) != 1 || st.Conflicts[0].Type != workflow.EventTransitioned {
		t.Fatalf("phase %s conflicts %+v", st.Phase, st.Conflicts)
	}
}
