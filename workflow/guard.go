package workflow

import (
	"fmt"
	"strings"
)

// GuardFailure says why a guard did not pass and how to make it pass. Fix is a runnable
// `git exarchos …` command line.
type GuardFailure struct {
	Guard    string `json:"guard"`
	Reason   string `json:"reason"`
	Expected string `json:"expected"`
	Fix      string `json:"fix"`
}

// GuardEvaluator evaluates a guard of a transition towards target: nil means it passes. The real
// one (package guards) reads git facts; Decide only sees this interface so workflow stays pure.
// def is the definition the decision is taken under (its reviews, shell guards, …).
type GuardEvaluator interface {
	Evaluate(def *Definition, guardID string, s State, target string) *GuardFailure
}

// Env is what Decide may not compute itself.
type Env struct {
	// Actor is who issues the command (recorded on human decisions).
	Actor string
	// Guards evaluates guard ids. Without one every guard fails closed.
	Guards GuardEvaluator
	// OptIn names the opt-in guards (Transition.OptIn) this repository enforces.
	OptIn map[string]bool
	// Head is the workflow branch's tip the command is decided on ("" when unknown): recorded
	// on transitions and task starts, so later guards and verify measure work from it.
	Head string
	// Caller is who runs the command as the agent's client reports it (empty outside a session).
	Caller Caller
	// Agent: the command runs in an agent's session (its client's variables are set), whether or
	// not the client names a session.
	Agent bool
}

// Caller is who recorded an event, as the agent's client reports it: the session, and the
// subagent inside it when the call came from one. It is a claim of the client, good enough to
// tell the agent that did the work from one that reviews it, not a proof of identity.
type Caller struct {
	Session   string `json:"session,omitempty"`
	Agent     string `json:"agent,omitempty"`
	AgentType string `json:"agentType,omitempty"`
}

// Rejection codes.
const (
	CodeInvalidTransition = "INVALID_TRANSITION"
	CodeGuardFailed       = "GUARD_FAILED"
	CodeCircuitOpen       = "CIRCUIT_OPEN"
	CodeFinalPhase        = "FINAL_PHASE"
	CodeReservedField     = "RESERVED_FIELD"
	CodeBadInput          = "BAD_INPUT"
	// CodeNoWork: a task is marked done with no commit of its own.
	CodeNoWork       = "NO_WORK"
	CodeUnknownPhase = "UNKNOWN_PHASE"
	CodeUnknownType  = "UNKNOWN_TYPE"
	// CodeDefinitionMissing: an existing workflow's type is not defined where the rules are read
	// (the base branch); it keeps its state and does not move.
	CodeDefinitionMissing = "DEFINITION_MISSING"
	CodeNotStarted        = "NOT_STARTED"
	CodeAlreadyStarted    = "ALREADY_STARTED"
	CodeLimitReached      = "LIMIT_REACHED"
	CodeWrongPhase        = "WRONG_PHASE"
	CodeNotBlocked        = "NOT_BLOCKED"
	// CodeHumanDecision: the command chooses less process; only a human decision (--human) may.
	CodeHumanDecision = "HUMAN_DECISION_REQUIRED"
)

// Rejection is a refused command, as data. It is also an error so callers can return it.
type Rejection struct {
	Code         string         `json:"code"`
	Message      string         `json:"message"`
	Phase        string         `json:"phase,omitempty"`
	Target       string         `json:"target,omitempty"`
	ValidTargets []string       `json:"validTargets,omitempty"`
	FailedGuards []GuardFailure `json:"failedGuards,omitempty"`
	// Definition and Limits: for a refusal by a limit (LIMIT_REACHED, CIRCUIT_OPEN), the definition
	// and the limits it was enforced under.
	Definition string           `json:"definition,omitempty"`
	Limits     *EffectiveLimits `json:"limits,omitempty"`
}

func (r *Rejection) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s", r.Code, r.Message)
	for _, g := range r.FailedGuards {
		fmt.Fprintf(&b, "\n  guard %s: %s (expected %s)\n    fix: %s", g.Guard, g.Reason, g.Expected, g.Fix)
	}
	if len(r.ValidTargets) > 0 {
		fmt.Fprintf(&b, "\n  valid targets: %s", strings.Join(r.ValidTargets, ", "))
	}
	return b.String()
}

func reject(code, format string, args ...any) *Rejection {
	return &Rejection{Code: code, Message: fmt.Sprintf(format, args...)}
}

// GuardVerdict is one guard's outcome for one transition.
type GuardVerdict struct {
	Guard      string        `json:"guard"`
	Passed     bool          `json:"passed"`
	Overridden bool          `json:"overridden,omitempty"`
	Failure    *GuardFailure `json:"failure,omitempty"`
}

// activeOverride reports whether a human overrode guard in the current visit of the phase.
func activeOverride(s State, guard string) bool {
	for _, o := range s.Overrides {
		if o.Guard == guard && o.Phase == s.Phase && o.At >= s.EnteredAt {
			return true
		}
	}
	return false
}

// evaluate runs every guard of t (no short-circuit, so a rejection lists all failures).
func evaluate(def *Definition, t Transition, s State, env Env) []GuardVerdict {
	ids := t.Guards
	for _, g := range t.OptIn {
		if env.OptIn[g] {
			ids = append(ids[:len(ids):len(ids)], g)
		}
	}
	out := make([]GuardVerdict, 0, len(ids))
	for _, g := range ids {
		v := GuardVerdict{Guard: g}
		switch {
		case activeOverride(s, g):
			v.Passed, v.Overridden = true, true
		case g == GuardCompletionSubmitted:
			// Read from the log, not from a fact: the submission was validated when it was recorded.
			if _, ok := s.Submitted(s.Phase); !ok {
				v.Failure = &GuardFailure{Guard: g, Reason: "no completion was submitted in this visit of " + s.Phase,
					Expected: "a payload valid against the phase's completion schema",
					Fix:      fmt.Sprintf("git exarchos submit %s %s --file <payload.json>", s.Feature, s.Phase)}
			}
			v.Passed = v.Failure == nil
		case env.Guards == nil:
			v.Failure = &GuardFailure{Guard: g, Reason: "no guard evaluator configured", Expected: "a guard evaluator", Fix: "git exarchos transitions " + s.Feature}
		default:
			v.Failure = env.Guards.Evaluate(def, g, s, t.To)
			v.Passed = v.Failure == nil
		}
		out = append(out, v)
	}
	return out
}

func failures(vs []GuardVerdict) []GuardFailure {
	var fs []GuardFailure
	for _, v := range vs {
		if !v.Passed && v.Failure != nil {
			fs = append(fs, *v.Failure)
		}
	}
	return fs
}
