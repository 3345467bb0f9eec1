package hooks

import (
	"strings"
	"testing"

	"github.com/exarchos/git-exarchos/workflow"
)

// TestTaskCompletedAndTeammateIdle: a Claude task marked completed, or a teammate going idle,
// while the workflow task it names is open is blocked with the reason and the fix (the client
// keeps the Claude task open, or the teammate working); once `task done` recorded the task (or
// `task fail` ended it) both pass, and what names no workflow task is left alone. The payloads
// are the pinned client's shapes: TaskCompleted as recorded in e2e/testdata/hook-payloads.json,
// TeammateIdle as the client builds it (teammate_name, team_name).
func TestTaskCompletedAndTeammateIdle(t *testing.T) {
	w := feature("delegate")
	w.State.Tasks = []workflow.Task{{ID: "t1", Title: "session store", Status: workflow.TaskInProgress}, {ID: "t2", Title: "login form", Status: workflow.TaskPending},
		{ID: "t3", Title: "docs", Status: workflow.TaskCompleted, HeadSHA: "abc"}, {ID: "t4", Title: "drop", Status: workflow.TaskFailed, Reason: "not needed"}}
	task := func(subject string) Input {
		return Input{SessionID: "s", Cwd: "/repo", HookEventName: TaskCompleted, TaskID: "1", TaskSubject: subject, TaskDescription: "d"}
	}
	idle := func(name string) Input {
		return Input{SessionID: "s", Cwd: "/repo", HookEventName: TeammateIdle, TeammateName: name, TeamName: "login-team"}
	}
	cases := []struct {
		in   Input
		want string // "" : no opinion
	}{
		{task("t1: session store"), "workflow login's task t1 is in progress"},
		{task("[T1] store"), "git exarchos task done login t1"},
		{task("Session store"), "names t1"}, // by its title
		{task("t2"), "task t2 is not started"},
		{task("t3: docs"), ""},
		{task("t4"), ""}, // failed: ended, with its reason
		{task("t10: something else"), ""},
		{task("write the t1 tests"), ""}, // t1 is not the subject's first word
		{task(""), ""},
		{idle("t1"), "teammate t1 is assigned t1"},
		{idle("impl-t2"), "task t2 is not started"},
		{idle("t1_reviewer"), "is in progress"},
		{idle("impl-t3"), ""},
		{idle("researcher"), ""},
		{idle("t10"), ""},
	}
	for _, c := range cases {
		repo := &fakeRepo{bound: []Bound{w}}
		out := Handle(c.in, repo, func(string) {})
		switch {
		case c.want == "" && (out.Decision != "" || out.Continue == nil):
			t.Errorf("%s %q%q: %+v, want no opinion", c.in.HookEventName, c.in.TaskSubject, c.in.TeammateName, out)
		case c.want != "" && (out.Decision != "block" || !strings.Contains(out.Reason, c.want)):
			t.Errorf("%s %q%q: %+v, want a block saying %q", c.in.HookEventName, c.in.TaskSubject, c.in.TeammateName, out, c.want)
		}
		if c.in.HookEventName == TaskCompleted && (len(repo.recorded) != 1 || repo.recorded[0].Type != workflow.EventHookTaskCompleted) {
			t.Errorf("%q: recorded %+v, want the hook.task-completed it always records", c.in.TaskSubject, repo.recorded)
		}
	}
	// Outside any workflow: nothing to hold the client to.
	if out := Handle(task("t1"), &fakeRepo{}, func(string) {}); out.Decision != "" {
		t.Errorf("unbound session: %+v", out)
	}
	// Both are installed: settings and the plugin's hooks.json come from this table.
	for _, ev := range []string{TaskCompleted, TeammateIdle} {
		found := false
		for _, e := range ClaudeEntries {
			found = found || e.Event == ev
		}
		if !found {
			t.Errorf("%s is not in ClaudeEntries: hooks install --claude would not install it", ev)
		}
	}
}
