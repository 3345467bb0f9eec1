package workflow_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/exarchos/git-exarchos/guards"
	"github.com/exarchos/git-exarchos/workflow"
)

// fakeRepo is a tiny in-memory git: one commit history per branch, files added by commits.
type fakeRepo struct {
	tips    map[string]string          // branch → tip
	files   map[string]map[string]bool // commit → paths
	parents map[string]string          // commit → parent
	added   map[string][]string        // commit → the paths it added or changed
	dirty   []string                   // uncommitted paths in the branch's worktree
	n       int
}

func newFakeRepo(branch string) *fakeRepo {
	r := &fakeRepo{tips: map[string]string{}, files: map[string]map[string]bool{}, parents: map[string]string{}, added: map[string][]string{}}
	r.commit(branch)
	return r
}

// commit adds a commit on branch containing the parent's files plus paths; returns its sha.
func (r *fakeRepo) commit(branch string, paths ...string) string {
	r.n++
	sha := fmt.Sprintf("%040x", r.n)
	parent := r.tips[branch]
	fs := map[string]bool{}
	for p := range r.files[parent] {
		fs[p] = true
	}
	for _, p := range paths {
		fs[p] = true
	}
	r.files[sha], r.parents[sha], r.tips[branch], r.added[sha] = fs, parent, sha, paths
	return sha
}

func (r *fakeRepo) MergeBase(a, b string) (string, bool, error) {
	for c := a; c != ""; c = r.parents[c] {
		if ok, _ := r.IsAncestor(c, b); ok {
			return c, true, nil
		}
	}
	return "", false, nil
}

// AddedOrModified: the paths of the commits after from, up to to (to's first-parent chain).
func (r *fakeRepo) AddedOrModified(from, to string) ([]string, error) {
	var out []string
	for c := to; c != "" && c != from; c = r.parents[c] {
		out = append(out, r.added[c]...)
	}
	return out, nil
}

func (r *fakeRepo) ChangedPaths(from, to string) ([]string, error) {
	return r.AddedOrModified(from, to)
}

func (r *fakeRepo) WorktreeChanges(string) ([]string, error) { return r.dirty, nil }

func (r *fakeRepo) BranchTip(branch string) (string, error) {
	if t, ok := r.tips[branch]; ok {
		return t, nil
	}
	return "", fmt.Errorf("no branch %s", branch)
}

func (r *fakeRepo) FileExists(commit, path string) (bool, error) { return r.files[commit][path], nil }

func (r *fakeRepo) IsAncestor(a, d string) (bool, error) {
	for c := d; c != ""; c = r.parents[c] {
		if c == a {
			return true, nil
		}
	}
	return false, nil
}

// decide is Decide with the built-in definition of the state's type (or Init's).
func decide(s workflow.State, cmd workflow.Command, env workflow.Env) ([]workflow.NewEvent, *workflow.Rejection) {
	typ := s.Type
	if in, ok := cmd.(workflow.Init); ok {
		typ = in.Type
	}
	def, _ := workflow.Builtin(typ)
	return workflow.Decide(def, s, cmd, env)
}

// run drives one workflow: Decide, stamp, append, Apply, like the CLI and store will.
type run struct {
	t     testing.TB
	repo  *fakeRepo
	env   workflow.Env
	state workflow.State
	log   []workflow.Event
	// defn, when set, replaces the built-in definition (e.g. other limits from the base branch).
	defn *workflow.Definition
	// idle stops work from committing for the agent: the commands meet the branch as it is.
	idle bool
}

func newRun(t testing.TB, feature, typ string, init workflow.Init) *run {
	t.Helper()
	r := &run{t: t, repo: newFakeRepo("topic")}
	r.env = workflow.Env{Actor: "alice", Guards: &guards.Evaluator{Facts: r.repo, Validation: []string{"go test ./...", "make"}}}
	init.Feature, init.Type = feature, typ
	if init.Branch == "" {
		init.Branch = "topic"
	}
	if init.ForkPoint == "" {
		init.ForkPoint = r.repo.tips[init.Branch]
	}
	if rej := r.do(init); rej != nil {
		t.Fatalf("init: %v", rej)
	}
	return r
}

func (r *run) def() *workflow.Definition {
	if r.defn != nil {
		return r.defn
	}
	d, _ := workflow.Builtin(r.state.Type)
	return d
}

// do decides cmd and appends whatever it decided (rejections may carry events too).
func (r *run) do(cmd workflow.Command) *workflow.Rejection {
	r.t.Helper()
	if rv, ok := cmd.(workflow.RecordReview); ok && rv.Commit == "" {
		rv.Commit, _ = r.repo.BranchTip(r.state.Branch) // as app.Run binds a verdict to the tip
		cmd = rv
	}
	cmd = r.work(cmd)
	if r.defn != nil {
		evs, rej := workflow.Decide(r.defn, r.state, cmd, r.envFor(cmd))
		r.append(evs)
		return rej
	}
	evs, rej := decide(r.state, cmd, r.envFor(cmd))
	r.append(evs)
	return rej
}

// work stands for the agent doing a task's work: a task completed without a head gets a commit
// of code on the branch, and its tip as the head (as app.CompleteTask records it).
func (r *run) work(cmd workflow.Command) workflow.Command {
	if r.idle {
		return cmd
	}
	if c, ok := cmd.(workflow.CompleteTask); ok && c.HeadSHA == "" {
		c.HeadSHA = r.repo.commit(r.state.Branch, "src/"+c.ID+".go")
		return c
	}
	// A fix cycle's way back to review needs new work too.
	if c, ok := cmd.(workflow.TransitionTo); ok {
		for _, t := range r.def().Outgoing(r.state.Phase) {
			if t.To == c.Phase && slices.Contains(t.Guards, workflow.GuardWorkCommitted) {
				r.repo.commit(r.state.Branch, fmt.Sprintf("src/fix%d.go", len(r.log)))
			}
		}
	}
	return cmd
}

// envFor is the environment a command is decided in: on the branch's tip, the work recorded by
// the session's main agent and every verdict by a reviewer subagent of the same session.
func (r *run) envFor(cmd workflow.Command) workflow.Env {
	env := r.env
	env.Head, _ = r.repo.BranchTip(r.state.Branch)
	if env.Caller == (workflow.Caller{}) {
		env.Caller = workflow.Caller{Session: "s1"}
		if _, ok := cmd.(workflow.RecordReview); ok {
			env.Caller.Agent, env.Caller.AgentType = "a-reviewer", "code-reviewer"
		}
	}
	return env
}

func (r *run) append(evs []workflow.NewEvent) {
	r.t.Helper()
	for _, ne := range evs {
		seq := int64(len(r.log))
		e, err := ne.Stamp(fmt.Sprintf("ev-%06d", seq), seq, time.Unix(1700000000+seq, 0), r.env.Actor, r.state.LastClock+1)
		if err != nil {
			r.t.Fatalf("stamp: %v", err)
		}
		// Round-trip through the log's encoding, as the store will.
		b, err := json.Marshal(e)
		if err != nil {
			r.t.Fatalf("marshal event: %v", err)
		}
		var back workflow.Event
		if err := json.Unmarshal(b, &back); err != nil {
			r.t.Fatalf("unmarshal event: %v", err)
		}
		r.log = append(r.log, back)
		if r.defn != nil {
			r.state = workflow.Apply(r.defn, r.state, back)
		} else {
			r.state = workflow.Definitions{}.Apply(r.state, back)
		}
	}
}

// must runs cmd and fails the test on a rejection.
func (r *run) must(cmds ...workflow.Command) {
	r.t.Helper()
	for _, c := range cmds {
		if rej := r.do(c); rej != nil {
			r.t.Fatalf("%T%+v rejected: %v", c, c, rej)
		}
	}
}

// refuse runs cmd and expects a rejection with code.
func (r *run) refuse(code string, cmd workflow.Command) *workflow.Rejection {
	r.t.Helper()
	rej := r.do(cmd)
	if rej == nil {
		r.t.Fatalf("%T%+v: expected %s, was accepted (phase %s)", cmd, cmd, code, r.state.Phase)
	}
	if rej.Code != code {
		r.t.Fatalf("%T%+v: expected %s, got %v", cmd, cmd, code, rej)
	}
	return rej
}

func (r *run) to(phases ...string) {
	r.t.Helper()
	for _, p := range phases {
		r.must(workflow.TransitionTo{Phase: p})
		if r.state.Phase != p && r.def().IsFinal(p) == false {
			if ph, _ := r.def().Phase(p); ph.Kind != workflow.Compound {
				r.t.Fatalf("transition to %s left the workflow in %s", p, r.state.Phase)
			}
		}
	}
}

func (r *run) phase(want string) {
	r.t.Helper()
	if r.state.Phase != want {
		r.t.Fatalf("phase = %s, want %s (conflicts %v)", r.state.Phase, want, r.state.Conflicts)
	}
}

// artifact commits a file on the branch and records it.
func (r *run) artifact(name string) {
	r.t.Helper()
	p := "docs/" + name + ".md"
	r.repo.commit("topic", p)
	r.must(workflow.Set{Assignments: []workflow.Assignment{{Path: "artifacts." + name, Value: json.RawMessage(`"` + p + `"`)}}})
}

func (r *run) set(args ...string) {
	r.t.Helper()
	var as []workflow.Assignment
	for _, a := range args {
		x, err := workflow.ParseAssignment(a)
		if err != nil {
			r.t.Fatalf("parse %s: %v", a, err)
		}
		as = append(as, x)
	}
	r.must(workflow.Set{Assignments: as})
}

// validate records a passing validation on the current tip.
func (r *run) validate(exit int) {
	r.t.Helper()
	tip, _ := r.repo.BranchTip("topic")
	r.must(workflow.RecordValidation{Command: "go test ./...", ExitCode: exit, DurationMs: 1200, Commit: tip})
}

func (r *run) completeTasks(ids ...string) {
	r.t.Helper()
	for _, id := range ids {
		if _, ok := r.state.Task(id); !ok {
			r.must(workflow.AddTask{ID: id, Title: "task " + id})
		}
		r.must(workflow.StartTask{ID: id}, workflow.CompleteTask{ID: id})
	}
}

// checkReplay asserts that folding the log at once, in chunks, and through Apply all give the
// same bytes.
func (r *run) checkReplay() {
	r.t.Helper()
	checkReplay(r.t, r.log, r.state)
}

func checkReplay(t testing.TB, log []workflow.Event, state workflow.State) {
	t.Helper()
	want, err := json.Marshal(state)
	if err != nil {
		t.Fatal(err)
	}
	all, err := workflow.Project(workflow.Definitions{}, nil, log)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(all, want) {
		t.Fatalf("fold all differs from incremental Apply:\n%s\n%s", all, want)
	}
	for _, step := range []int{1, 2, 3, 7, 64} {
		var snap json.RawMessage
		for i := 0; i < len(log); i += step {
			end := min(i+step, len(log))
			if snap, err = workflow.Project(workflow.Definitions{}, snap, log[i:end]); err != nil {
				t.Fatal(err)
			}
		}
		if len(log) == 0 {
			snap, _ = workflow.Project(workflow.Definitions{}, nil, nil)
		}
		if !bytes.Equal(snap, all) {
			t.Fatalf("fold in chunks of %d differs:\n%s\n%s", step, snap, all)
		}
	}
}

var zeroTime time.Time

// verdict records a review verdict on the current tip.
func (r *run) verdict(dim string, pass bool) {
	r.t.Helper()
	r.must(workflow.RecordReview{Dimension: dim, Pass: pass})
}
