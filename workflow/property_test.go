package workflow_test

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"

	"github.com/exarchos/git-exarchos/workflow"
)

// randomCommand picks a command (or a change of git facts, returned as nil) with weights that let
// random runs make progress through every type.
func randomCommand(rng *rand.Rand, r *run) workflow.Command {
	def := r.def()
	pick := func(xs ...string) string { return xs[rng.Intn(len(xs))] }
	if r.state.Phase == def.CancellingPhase() && rng.Intn(10) < 6 {
		return compensationCommand(rng, r)
	}
	if len(workflow.CompensationPlan(r.state)) > 0 && rng.Intn(25) == 0 {
		return workflow.Cancel{Reason: "random, with resources"}
	}
	if rng.Intn(10) < 3 {
		if c := helpfulCommand(rng, r); c != nil {
			return c
		}
	}
	switch n := rng.Intn(100); {
	case n < 35:
		var targets []string
		for _, t := range def.Outgoing(r.state.Phase) {
			if t.To != def.CancelTarget() {
				targets = append(targets, t.To)
			}
		}
		if len(targets) == 0 || rng.Intn(6) == 0 {
			return workflow.TransitionTo{Phase: pick(append(def.PhaseIDs(), "bogus", "")...)}
		}
		return workflow.TransitionTo{Phase: pick(targets...)}
	case n < 40:
		name := pick("design", "plan", "rca", "fix-design", "report", "brief")
		p := "docs/" + name + ".md"
		if rng.Intn(3) > 0 {
			r.repo.commit("topic", p)
		}
		if rng.Intn(5) == 0 {
			return workflow.Set{Inline: true, Assignments: []workflow.Assignment{{Path: "artifacts." + name, Value: []byte(`"inline text"`)}}}
		}
		return workflow.RecordArtifact{Name: name, Path: p}
	case n < 44:
		tip, _ := r.repo.BranchTip("topic")
		vals := []string{"track=" + pick(append(slices.Clone(def.Tracks), "nope")...), "fixCommit=" + tip, "fixCommit=0123456",
			`sources=["a"]`, "sources=[]", "pr.url=https://github.com/o/r/pull/7", "note.deep.x=1", "phase=done", "a..b=1"}
		a, err := workflow.ParseAssignment(pick(vals...))
		if err != nil {
			return workflow.Set{Assignments: []workflow.Assignment{{Path: "a..b", Value: []byte("1")}}}
		}
		return workflow.Set{Assignments: []workflow.Assignment{a}}
	case n < 48:
		r.repo.commit("topic", fmt.Sprintf("src/%d.go", rng.Intn(1000)))
		return nil
	case n < 58:
		id := pick("t1", "t2", "t3")
		switch rng.Intn(5) {
		case 0:
			return workflow.AddTask{ID: id, Title: "task " + id}
		case 4:
			tip, _ := r.repo.BranchTip("topic")
			return workflow.StartTaskWorktree{ID: id, Worktree: workflow.WorktreeData{Path: "/wt/" + id, Branch: "topic--" + id, Base: tip, BranchCreated: rng.Intn(3) > 0}}
		case 1:
			return workflow.StartTask{ID: id}
		case 2:
			return workflow.CompleteTask{ID: id}
		default:
			if rng.Intn(3) == 0 {
				return workflow.FailTask{ID: id, Reason: "broken"}
			}
			return workflow.CompleteTask{ID: id}
		}
	case n < 64:
		return workflow.RecordReview{Dimension: pick("spec", "quality", "review"), Pass: rng.Intn(4) > 0}
	case n < 68:
		tip, _ := r.repo.BranchTip("topic")
		if rng.Intn(4) == 0 {
			tip = fmt.Sprintf("%040x", 1) // the first commit: usually not the tip any more
		}
		return workflow.RecordValidation{Command: "make test", ExitCode: pick0(rng, 0, 0, 0, 1), DurationMs: int64(rng.Intn(5000)), Commit: tip}
	case n < 73:
		return workflow.Approve{Note: "ok"}
	case n < 78:
		return workflow.Reject{Gaps: pick("gaps", "gaps", "")}
	case n < 80:
		return workflow.Unblock{Reason: pick("go on", "")}
	case n < 88:
		return workflow.Signal{Signal: pick("done", "pass", "fail", "done", "fail", "bogus")}
	case n < 90:
		return workflow.RequestSynthesis{}
	case n < 91:
		return workflow.Cancel{Reason: "random"}
	case n < 93:
		return workflow.Cleanup{}
	case n < 95:
		var gs []string
		for _, t := range def.Outgoing(r.state.Phase) {
			gs = append(gs, t.Guards...)
		}
		if len(gs) == 0 || rng.Intn(2) == 0 {
			return workflow.OverrideGuard{Guard: "nope", Reason: "x"}
		}
		return workflow.OverrideGuard{Guard: pick(gs...), Reason: "human says so"}
	case n < 96:
		return workflow.VerifyMerge{MergeVerifiedData: workflow.MergeVerifiedData{Method: "github"}}
	case n < 98:
		return workflow.LinkPR{URL: "https://github.com/o/r/pull/7"}
	default:
		return workflow.ObservePR{PRObservation: workflow.PRObservation{Number: 7, Checks: pick("success", "failure")}}
	}
}

// compensationCommand runs a cancel in progress: the next planned step with a random outcome
// (failures included), a step out of order now and then, or the final cancel.
func compensationCommand(rng *rand.Rand, r *run) workflow.Command {
	plan := workflow.CompensationPlan(r.state)
	if len(plan) == 0 {
		return workflow.Cancel{}
	}
	st := plan[0]
	if rng.Intn(8) == 0 {
		st = plan[rng.Intn(len(plan))]
	}
	outcome := []string{workflow.OutcomeDone, workflow.OutcomeDone, workflow.OutcomeSkipped, workflow.OutcomeFailed}[rng.Intn(4)]
	return workflow.RecordCompensation{CompensationData: workflow.CompensationData{Resource: st.Resource.ID, Action: st.Action, Outcome: outcome, Detail: "random"}}
}

// helpfulCommand works towards a random way out of the current phase: the command that fixes its
// first failing guard, or the command that takes it. Random runs then reach deep phases too.
func helpfulCommand(rng *rand.Rand, r *run) workflow.Command {
	var opts []workflow.TransitionOption
	for _, o := range workflow.Transitions(r.def(), r.state, r.env) {
		if !o.Universal {
			opts = append(opts, o)
		}
	}
	if len(opts) == 0 {
		return nil
	}
	i := rng.Intn(len(opts))
	o := opts[i]
	// Verdicts only count on the tip, in one visit: a fix cycle (it needs a fail) is aimed at less
	// often than going forward, or the deep phases are never reached.
	for _, g := range o.Guards {
		if g.Guard == "review-failed" && len(opts) > 1 && rng.Intn(4) > 0 {
			o = opts[(i+1)%len(opts)]
			break
		}
	}
	tip, _ := r.repo.BranchTip("topic")
	for _, g := range o.Guards {
		if g.Passed {
			continue
		}
		switch id := g.Guard; {
		case strings.HasPrefix(id, "artifact-"):
			name := strings.TrimPrefix(id, "artifact-")
			r.repo.commit("topic", "docs/"+name+".md")
			return workflow.RecordArtifact{Name: name, Path: "docs/" + name + ".md"}
		case id == "plan-approved":
			return workflow.Approve{}
		case id == "tasks-complete":
			for _, t := range r.state.Tasks {
				if t.Status != workflow.TaskCompleted {
					return workflow.CompleteTask{ID: t.ID}
				}
			}
			return workflow.AddTask{ID: "t1"}
		case id == "review-failed":
			return workflow.RecordReview{Dimension: r.def().Reviews[rng.Intn(len(r.def().Reviews))], Pass: false}
		case id == workflow.GuardWorkCommitted:
			r.repo.commit("topic", "src/work.go")
			return workflow.TransitionTo{Phase: o.To}
		case id == workflow.GuardPathsAllowed:
			return workflow.OverrideGuard{Guard: id, Reason: "the generator commits code anywhere"}
		case id == "reviews-passed" && r.state.Circuit != nil && r.state.Circuit.Open:
			return workflow.Unblock{Reason: "a human looked"}
		case id == "reviews-passed":
			return workflow.RecordReview{Dimension: r.def().Reviews[rng.Intn(len(r.def().Reviews))], Pass: true}
		case id == "validation-passed":
			return workflow.RecordValidation{Command: "make", Commit: tip}
		case strings.HasPrefix(id, "track-"):
			return workflow.Set{Assignments: []workflow.Assignment{{Path: "track", Value: []byte(`"` + strings.TrimPrefix(id, "track-") + `"`)}}}
		case id == "fix-commit-recorded":
			return workflow.Set{Assignments: []workflow.Assignment{{Path: "fixCommit", Value: []byte(`"` + tip + `"`)}}}
		case id == "sources-collected":
			return workflow.Set{Assignments: []workflow.Assignment{{Path: "sources", Value: []byte(`["s"]`)}}}
		case id == "synthesis-required":
			return workflow.RequestSynthesis{}
		case id == "pr-url-exists":
			return workflow.LinkPR{URL: "https://github.com/o/r/pull/7"}
		}
	}
	switch o.Trigger {
	case workflow.OnReject:
		return workflow.Reject{Gaps: "gaps"}
	case workflow.OnUnblock:
		return workflow.Unblock{Reason: "go"}
	case workflow.OnLoopDone:
		return workflow.Signal{Signal: "done"}
	case workflow.OnLoopPass, workflow.OnLoopFail:
		return workflow.Signal{Signal: []string{"pass", "fail"}[rng.Intn(2)]}
	}
	return workflow.TransitionTo{Phase: o.To}
}

func pick0(rng *rand.Rand, xs ...int) int { return xs[rng.Intn(len(xs))] }

// checkStep asserts the invariants of one decided step: every phase change is a defined
// transition whose guards passed (or were overridden) in the state it was decided on, no event
// conflicts in a single writer's log, counters stay within their limits.
func checkStep(t *testing.T, r *run, pre workflow.State, cmd workflow.Command, evs []workflow.NewEvent, rej *workflow.Rejection) {
	t.Helper()
	def := r.def()
	if rej != nil {
		if rej.Code == "" || rej.Message == "" {
			t.Fatalf("%T: empty rejection %+v", cmd, rej)
		}
		for _, f := range rej.FailedGuards {
			// A fix is a runnable command (git exarchos …, or git itself), or a human's step for the user.
			if f.Guard == "" || f.Reason == "" || !(strings.HasPrefix(f.Fix, "git ") || strings.HasPrefix(f.Fix, "ask the user to run")) || !strings.Contains(f.Fix, pre.Feature) {
				t.Fatalf("%T: unhelpful guard failure %+v", cmd, f)
			}
		}
		if len(evs) > 0 && rej.Code != workflow.CodeCircuitOpen {
			t.Fatalf("%T: rejection %s with events %v", cmd, rej.Code, evs)
		}
	}
	if def.IsFinal(pre.Phase) {
		entered := slices.ContainsFunc(def.Transitions, func(t workflow.Transition) bool { return t.To == pre.Phase && t.TakenBy(workflow.OnTransition) })
		if tr, ok := cmd.(workflow.TransitionTo); ok && tr.Phase == pre.Phase && entered {
			if rej != nil || len(evs) > 0 {
				t.Fatalf("the transition to the final phase %s it is in is not answered idempotently: %v %v", pre.Phase, evs, rej)
			}
		} else if ok && (rej == nil || rej.Code != workflow.CodeFinalPhase) {
			t.Fatalf("final phase %s accepted a transition: %v", pre.Phase, rej)
		}
	}
	if pre.Phase == def.CancellingPhase() {
		switch cmd.(type) {
		case workflow.TransitionTo, workflow.Set, workflow.AddTask, workflow.StartTask, workflow.StartTaskWorktree, workflow.Approve, workflow.Reject, workflow.Cleanup:
			if rej == nil || rej.Code != workflow.CodeCancelling {
				t.Fatalf("%T accepted while cancelling: %v %v", cmd, evs, rej)
			}
		}
	}
	// A compensation step is recorded only as the next action of its resource.
	for _, ne := range evs {
		if ne.Type != workflow.EventCompensationStep {
			continue
		}
		d := ne.Data.(workflow.CompensationData)
		res, _ := pre.Resource(d.Resource)
		next := ""
		for _, a := range workflow.CompensationActions(res.Kind) {
			if !slices.Contains(res.Done, a) {
				next = a
				break
			}
		}
		if d.Action != next {
			t.Fatalf("compensation %s %s recorded out of order (next was %q)", d.Action, d.Resource, next)
		}
	}
	if tt, ok := cmd.(workflow.TransitionTo); ok && tt.Phase == pre.Phase && !def.IsFinal(pre.Phase) && pre.Phase != def.CancellingPhase() && (evs != nil || rej != nil) {
		t.Fatalf("self transition to %s was not a no-op: %v %v", pre.Phase, evs, rej)
	}
	// Re-fold the decided events one by one, checking each phase change against the definition.
	cur := pre
	for _, ne := range evs {
		e, err := ne.Stamp("x", cur.LastSeq+1, zeroTime, "t", cur.LastClock+1)
		if err != nil {
			t.Fatal(err)
		}
		next := workflow.Definitions{}.Apply(cur, e)
		if next.Phase != cur.Phase {
			switch e.Type {
			case workflow.EventTransitioned:
				var d workflow.TransitionedData
				_ = json.Unmarshal(e.Data, &d)
				// Several defined transitions may join the same phases (a universal cleanup next
				// to an explicit one): the recorded guards must be exactly one of theirs.
				got := append(slices.Clone(d.Guards), d.Overridden...)
				slices.Sort(got)
				matched := false
				for _, tr := range def.Outgoing(cur.Phase) {
					want := slices.Clone(tr.Guards)
					slices.Sort(want)
					matched = matched || (tr.To == d.To && tr.TakenBy(d.Trigger) && slices.Equal(got, want))
				}
				if !matched || d.From != cur.Phase {
					t.Fatalf("phase change %s → %s by %s with guards %v is not a defined transition", cur.Phase, d.To, d.Trigger, got)
				}
				if d.Definition != r.def().ID || d.Definition == "" {
					t.Fatalf("%s → %s records definition %q, decided under %q", d.From, d.To, d.Definition, r.def().ID)
				}
				for _, g := range d.Guards {
					if f := r.env.Guards.Evaluate(r.def(), g, cur, d.To); f != nil {
						t.Fatalf("%s → %s taken although guard %s failed: %+v", d.From, d.To, g, f)
					}
				}
				for _, g := range d.Overridden {
					found := false
					for _, o := range cur.Overrides {
						found = found || (o.Guard == g && o.Phase == cur.Phase && o.At >= cur.EnteredAt)
					}
					if !found {
						t.Fatalf("guard %s recorded as overridden without an override", g)
					}
				}
			case workflow.EventCancelled:
				var d workflow.CancelledData
				if _ = json.Unmarshal(e.Data, &d); d.Definition != r.def().ID {
					t.Fatalf("cancel records definition %q, decided under %q", d.Definition, r.def().ID)
				}
				if next.Phase != def.CancelTarget() {
					t.Fatalf("cancel went to %s", next.Phase)
				}
				// The saga never ends with work left behind.
				if plan := workflow.CompensationPlan(cur); len(plan) > 0 {
					t.Fatalf("cancelled with %d compensation steps pending: %+v", len(plan), plan)
				}
			case workflow.EventCancelRequested:
				if next.Phase != def.CancellingPhase() || next.Cancel == nil || next.Cancel.From != cur.Phase {
					t.Fatalf("cancel request went from %s to %s (%+v)", cur.Phase, next.Phase, next.Cancel)
				}
			default:
				t.Fatalf("event %s changed the phase %s → %s", e.Type, cur.Phase, next.Phase)
			}
		}
		cur = next
	}
	s := r.state
	if p, ok := def.Phase(s.Phase); !ok || p.Kind == workflow.Compound {
		t.Fatalf("workflow in impossible phase %q", s.Phase)
	}
	if len(s.Conflicts) > 0 {
		t.Fatalf("a single writer's log has conflicts: %+v", s.Conflicts)
	}
	for c, n := range s.FixCycles {
		p, _ := def.Phase(c)
		if n > p.MaxFixCycles {
			t.Fatalf("fix cycles in %s = %d > %d", c, n, p.MaxFixCycles)
		}
	}
	if s.MaxIterations > 0 && s.Iterations > s.MaxIterations {
		t.Fatalf("iterations %d > %d", s.Iterations, s.MaxIterations)
	}
	if l := def.Limits.PlanRevisions; l > 0 && s.Revisions > l {
		t.Fatalf("revisions %d > %d", s.Revisions, l)
	}
	if l := def.Limits.SynthesisRetries; l > 0 && s.Retries > l {
		t.Fatalf("retries %d > %d", s.Retries, l)
	}
}

func TestPropertyRandomCommands(t *testing.T) {
	seeds, steps := 100, 150
	if testing.Short() {
		seeds = 20
	}
	for _, typ := range workflow.BuiltinTypes() {
		t.Run(typ, func(t *testing.T) {
			visited := map[string]bool{}
			for seed := 1; seed <= seeds; seed++ {
				rng := rand.New(rand.NewSource(int64(seed)))
				init := workflow.Init{}
				if typ == "oneshot" {
					init.Synthesis = []string{"always", "never", "on-request"}[seed%3]
				}
				if typ == "loop" {
					init.Completion = []string{"worker-done", "reviewer-pass", "both"}[seed%3]
					init.MaxIterations = 1 + seed%5
				}
				r := newRun(t, "prop", typ, init)
				if d, _ := workflow.Builtin(typ); seed%4 == 0 && len(d.Phases) > 0 {
					r.defn = d.Clone()
					r.defn.SetMaxFixCycles(1)
				}
				for i := 0; i < steps; i++ {
					visited[r.state.Phase] = true
					cmd := randomCommand(rng, r)
					if cmd == nil {
						continue
					}
					pre := r.state
					preJSON, _ := json.Marshal(pre)
					cmd = r.work(cmd)
					evs, rej := workflow.Decide(r.def(), pre, cmd, r.envFor(cmd))
					r.append(evs)
					if again, _ := json.Marshal(pre); string(again) != string(preJSON) {
						t.Fatalf("seed %d: deciding or applying mutated the previous state", seed)
					}
					checkStep(t, r, pre, cmd, evs, rej)
				}
				visited[r.state.Phase] = true
				r.checkReplay()
			}
			d, _ := workflow.Builtin(typ)
			for _, p := range d.Phases {
				if p.Kind != workflow.Compound && !visited[p.ID] && !testing.Short() {
					t.Errorf("random runs never reached %s.%s: the generator is too weak", typ, p.ID)
				}
			}
		})
	}
}

// TestPropertyMergedLogsFold folds interleavings of two independent runs of the same workflow, as
// a merge of diverged logs would: the fold stays total, counts every event, and chunked folds
// agree byte for byte.
func TestPropertyMergedLogsFold(t *testing.T) {
	for seed := 1; seed <= 60; seed++ {
		rng := rand.New(rand.NewSource(int64(seed)))
		typ := workflow.BuiltinTypes()[seed%len(workflow.BuiltinTypes())]
		var logs [2][]workflow.Event
		for k := range logs {
			r := newRun(t, "prop", typ, workflow.Init{})
			for i := 0; i < 80; i++ {
				if cmd := randomCommand(rng, r); cmd != nil {
					r.do(cmd)
				}
			}
			logs[k] = r.log
		}
		// The shared prefix is the init event; then a random interleaving, deduplicated by id.
		merged := []workflow.Event{logs[0][0]}
		a, b := logs[0][1:], logs[1][1:]
		for len(a)+len(b) > 0 {
			if len(b) == 0 || (len(a) > 0 && rng.Intn(2) == 0) {
				merged, a = append(merged, a[0]), a[1:]
			} else {
				e := b[0]
				e.ID = "b-" + e.ID
				merged, b = append(merged, e), b[1:]
			}
		}
		for i := range merged {
			merged[i].Seq = int64(i)
		}
		s := workflow.Definitions{}.Fold(workflow.State{}, merged)
		if s.Events != int64(len(merged)) {
			t.Fatalf("seed %d: counted %d of %d events", seed, s.Events, len(merged))
		}
		checkReplay(t, merged, s)
	}
}
