package engine

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/exarchos/git-exarchos/gitstore"
	"github.com/exarchos/git-exarchos/hookrun"
	"github.com/exarchos/git-exarchos/project"
	"github.com/exarchos/git-exarchos/trust"
	"github.com/exarchos/git-exarchos/workflow"
)

// Env is what Decide needs from the world: the actor, the guards (on this repository's facts,
// the worktree's state read through the hook runtime) and the opt-in guards the rules turn on.
func (r *Engine) Env() (workflow.Env, error) {
	actor, err := r.Actor()
	if err != nil {
		return workflow.Env{}, err
	}
	caller := hookrun.CallerFromEnv(r.Environ)
	ev := r.Evaluator()
	ev.Caller = caller
	// A worktree's state as the hook keeps it under the file-system monitor's token while the
	// monitor runs (no `git status` then), else git's: an input of this decision, not a hook
	// installed on the repository.
	ev.Facts = r.Facts().WithStatus(r.hook.WorktreeState)
	return workflow.Env{Actor: actor, Guards: ev, OptIn: r.Rules().OptIn(), Caller: caller, Agent: ev.Agent}, nil
}

// Execute runs workflow commands against a feature and appends everything the call records in
// one commit: the events the commands decide (each decided on the state the previous ones left,
// so an observation, the evidence it justifies and the transition that needs it land together or
// not at all), a guard refusal (guard.failed), and the hook's denials waiting in the journal.
//
// Facts come before the swap: the commands are first decided on the current state outside any
// lock, which runs every guard they need (shell guards included) once and keeps the verdicts. The
// compare-and-swap loop then only re-decides on the fresh state with those verdicts; when the
// fresh state or the branch tip differs in a way the verdicts may depend on, it leaves the loop
// and gathers again. No ref lock is ever held while a guard runs.
//
// A rejection is returned as the error (*workflow.Rejection). It appends nothing, except what the
// refusal itself records (a circuit opening, a guard refusal): then those events are appended and
// the rejection is still returned (with the result for a circuit, which the engine asks for).
func (r *Engine) Execute(feature string, cmds ...workflow.Command) (*project.Result, error) {
	if err := r.RefuseDecisions(feature, cmds...); err != nil {
		return nil, err
	}
	rules := r.Rules()
	if err := rules.Err(); err != nil {
		return nil, err
	}
	env, err := r.Env()
	if err != nil {
		return nil, err
	}
	journal, _ := r.hook.Journaled(feature) // the hook's denials ride in this call's commit
	waiting := journal.Events
	verdicts := &gathered{live: env.Guards, facts: r.Facts()}
	signed := &trust.Presigned{} // human decisions are signed outside the swap, once per head (trust/trust.go)
	for round := 0; ; round++ {
		if round == MaxGathers {
			return nil, fmt.Errorf("%w: %s changed what its guards read %d times while this call decided; run it again", gitstore.ErrConcurrent, feature, MaxGathers)
		}
		st, snap, err := r.State(feature)
		if err != nil {
			return nil, err
		}
		if f := st.RefusedStart(); f != nil && len(cmds) > 0 {
			if _, rej := workflow.Decide(nil, st, cmds[0], env); rej != nil {
				return nil, rej // says why it never started
			}
		}
		def, err := rules.Definition(st.Type)
		if err != nil {
			return nil, err
		}
		// Gather: every guard the commands ask for on this state runs here, outside the loop.
		verdicts.begin(st.Branch)
		env.Guards, env.Head = verdicts, verdicts.tip
		if decided, refused, err := project.DecideAll(def, st, cmds, env); err == nil {
			// A git config key of an earlier version refuses only a decision it would have changed.
			if err := r.LegacyChange(def, st, cmds, env, decided, refused); err != nil {
				return nil, err
			}
			if !signed.Reuse(snap.Commit.String(), decided) {
				if err := signed.Sign(r.Repo, feature, snap.Commit.String(), decided); err != nil {
					return nil, err
				}
			}
		}
		verdicts.gathering = false
		var rejection *workflow.Rejection
		recorded := false // the refusal itself is what this call records
		var res *gitstore.Result
		for { // a lost race on a moved head: sign again (outside the swap), then swap again
			res, err = r.hook.Update(feature, func(cur *gitstore.Snapshot) ([]workflow.NewEvent, error) {
				rejection, recorded = nil, false
				st, err := workflow.DecodeState(cur.State)
				if err != nil {
					return nil, err
				}
				if verdicts.moved(st.Branch) {
					return nil, errFactsChanged
				}
				out, rej, err := project.DecideAll(def, st, cmds, env)
				if err != nil {
					return nil, err
				}
				if verdicts.missed {
					return nil, errFactsChanged
				}
				rejection = rej
				if rej != nil && len(out) == 0 {
					refusal, ok := r.refusal(st, rej, env.Actor)
					if !ok {
						return nil, rej // nothing to record: nothing written, the journal waits
					}
					out, recorded = []workflow.NewEvent{refusal}, true
				}
				// Human decisions are signed over the head they were decided on (trust/trust.go), never in
				// here: a signature may need a key touch, and this may hold the ref's lock.
				if !signed.Reuse(cur.Commit.String(), out) {
					signed.Want(cur.Commit.String(), out)
					return nil, trust.ErrSignAgain
				}
				return append(slices.Clip(waiting), out...), nil
			})
			if !errors.Is(err, trust.ErrSignAgain) {
				break
			}
			if err := signed.Again(r.Repo, feature); err != nil {
				return nil, err
			}
		}
		if errors.Is(err, errFactsChanged) {
			continue
		}
		if err != nil {
			return nil, err
		}
		journal.Done()
		out, err := Result(feature, res)
		if err != nil {
			return nil, err
		}
		switch {
		case rejection == nil:
			if rej := refusedNow(out); rej != nil {
				return out, rej
			}
			return out, nil
		case recorded:
			return nil, rejection
		}
		return out, rejection
	}
}

// MaxGathers bounds how often one call gathers facts; past it the call fails as a concurrent
// update (exit 5) rather than run a guard inside the loop, where it could hold the ref lock.
const MaxGathers = 4

// errFactsChanged leaves the compare-and-swap loop to gather the facts again.
var errFactsChanged = errors.New("the facts the decision used changed")

// gathered is the guard evaluator of one call: while gathering it runs guards and keeps their
// verdicts, keyed by guard, target and what of the state a guard can read; afterwards it only
// answers from what it kept, and notes a miss (the state changed in a way that matters).
type gathered struct {
	live  workflow.GuardEvaluator
	facts interface {
		BranchTip(branch string) (string, error)
	} // the store's facts, asked once per call
	gathering bool
	missed    bool
	branch    string
	tip       string
	kept      map[string]*workflow.GuardFailure
}

func (g *gathered) begin(branch string) {
	g.gathering, g.missed = true, false
	g.branch, g.tip = branch, g.readTip(branch)
	g.kept = map[string]*workflow.GuardFailure{}
}

func (g *gathered) readTip(branch string) string {
	if branch == "" {
		return ""
	}
	tip, _ := g.facts.BranchTip(branch)
	return tip
}

// moved reports whether the branch the facts were read on moved since they were gathered.
func (g *gathered) moved(branch string) bool {
	return branch != g.branch || g.readTip(branch) != g.tip
}

func (g *gathered) Evaluate(def *workflow.Definition, id string, s workflow.State, target string) *workflow.GuardFailure {
	key := id + "\x00" + target + "\x00" + guardInput(s)
	if f, ok := g.kept[key]; ok {
		return f
	}
	if !g.gathering {
		g.missed = true
		return &workflow.GuardFailure{Guard: id, Reason: "not gathered"} // discarded: the call gathers again
	}
	f := g.live.Evaluate(def, id, s, target)
	g.kept[key] = f
	return f
}

// guardInput identifies what of a state a guard may read: all of it but the counters every
// append moves (events, sequence, clock, the turn budget, conflicts), so verdicts outlive
// concurrent appends that leave the workflow itself as it was.
func guardInput(s workflow.State) string {
	s.Events, s.Ignored, s.LastSeq, s.LastClock = 0, 0, 0, 0
	s.Budget, s.Conflicts = workflow.Budget{}, nil
	b, err := json.Marshal(s)
	if err != nil {
		return "unencodable"
	}
	return project.HashHex(string(b))
}

// CreateWorkflow starts a workflow in the store: Decide on the empty state, then create its ref
// (the init command, app.Init, validates its options and binds the branch first).
func (r *Engine) CreateWorkflow(cmd workflow.Init) (*project.Result, error) {
	if err := r.RefuseDecisions(cmd.Feature, cmd); err != nil {
		return nil, err
	}
	if err := gitstore.ValidateFeature(cmd.Feature); err != nil {
		return nil, &project.UsageError{Msg: err.Error()}
	}
	rules := r.Rules()
	if err := rules.Err(); err != nil {
		return nil, err
	}
	def, err := rules.Definition(cmd.Type)
	if err != nil {
		return nil, err
	}
	env, err := r.Env()
	if err != nil {
		return nil, err
	}
	if rej := workflow.CheckBranch("branch", cmd.Branch); cmd.Branch != "" && rej != nil {
		return nil, rej // before the fork point: git would read a name such as --orphan as an option
	}
	if cmd.ForkPoint == "" && cmd.Branch != "" {
		cmd.ForkPoint = r.ForkPoint(cmd.Branch)
	}
	events, rej := workflow.Decide(def, workflow.State{}, cmd, env)
	if rej != nil {
		return nil, rej
	}
	// A start that replaces another type's workflow on the branch is a human decision: signed like
	// every other (trust/trust.go), over no head (the workflow has none yet; the feature, the workflows
	// it replaces and the time are in the payload).
	if err := r.SignDecisions(cmd.Feature, "", events); err != nil {
		return nil, err
	}
	res, err := r.hook.Create(cmd.Feature, events)
	if err != nil {
		return nil, err
	}
	out, err := Result(cmd.Feature, res)
	if err != nil {
		return nil, err
	}
	if rej := refusedNow(out); rej != nil {
		return out, rej
	}
	return out, nil
}

// Result is the store's result of a write as the commands return it (the state decoded).
func Result(feature string, res *gitstore.Result) (*project.Result, error) {
	st, err := workflow.DecodeState(res.State)
	if err != nil {
		return nil, err
	}
	out := &project.Result{Feature: feature, Head: res.Commit.String(), State: st, Appended: res.Appended, Duplicates: res.Duplicates}
	if out.Appended == nil {
		out.Appended = []workflow.Event{}
	}
	return out, nil
}

// refusedNow reports a decision this call appended that the fold gave no effect (a key not in the
// allowed signers, a role it lacks): it stays in the log for the audit, and the caller is told.
func refusedNow(res *project.Result) *workflow.Rejection {
	appended := map[string]bool{}
	for _, e := range res.Appended {
		appended[e.ID] = true
	}
	for _, f := range res.State.Refused {
		if appended[f.ID] {
			return &workflow.Rejection{Code: CodeDecisionRefused, Phase: res.State.Phase,
				Message: fmt.Sprintf("the %s decision was recorded without effect: %s", f.Kind, f.Reason)}
		}
	}
	return nil
}

// CodeDecisionRefused is the rejection of a decision whose signature the allowed signers refuse.
const CodeDecisionRefused = workflow.CodeDecisionRefused

// refusal is the event that records a transition its guards or a limit refused (guard.failed, with
// the limit enforced), for the audit; ok=false for other rejections. The idempotency key is the
// visit, the target and the failures, so the same refusal repeated in one visit of a phase is one
// event.
func (r *Engine) refusal(st workflow.State, rej *workflow.Rejection, actor string) (workflow.NewEvent, bool) {
	data := workflow.GuardFailedData{From: st.Phase, To: rej.Target, Failures: rej.FailedGuards, Actor: actor}
	fails, _ := json.Marshal(rej.FailedGuards)
	switch rej.Code {
	case workflow.CodeGuardFailed:
	case workflow.CodeLimitReached:
		data.Code, data.Definition, data.Limits, data.Failures = rej.Code, rej.Definition, rej.Limits, []workflow.GuardFailure{}
		fails = append(fails, rej.Code...)
	default:
		return workflow.NewEvent{}, false
	}
	sum := sha256.Sum256(fails)
	key := fmt.Sprintf("guard-failed:%s:%d:%s:%s", st.Phase, st.EnteredAt, rej.Target, hex.EncodeToString(sum[:8]))
	return workflow.NewEvent{Type: workflow.EventGuardFailed, ID: key, Data: data}, true
}
