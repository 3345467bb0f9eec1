package workflow

import (
	"fmt"
	"slices"
	"strings"
)

// TransitionOption is one outgoing transition of the current phase as `git exarchos transitions`
// shows it: the command that takes it and each guard's verdict.
type TransitionOption struct {
	To      string         `json:"to"`
	Trigger Trigger        `json:"trigger"`
	Command string         `json:"command"`
	Guards  []GuardVerdict `json:"guards"`
	Allowed bool           `json:"allowed"`
	Blocked string         `json:"blocked,omitempty"` // why it is closed besides guards (limit, circuit)
	// WhenExhausted: the transition opens only once this counter reaches its limit.
	WhenExhausted Counter `json:"whenExhausted,omitempty"`
	Universal     bool    `json:"universal,omitempty"`
	Note          string  `json:"note,omitempty"`
	// Counts is the counter taking the transition spends (a retry, a fix cycle).
	Counts Counter `json:"counts,omitempty"`
}

// Retry reports whether the option only spends a retry on the word of whoever takes it (no guard
// checks a fact): a next step names it only when nothing else moves the workflow on.
func (o TransitionOption) Retry() bool { return o.Counts != "" && len(o.Guards) == 0 }

// Transitions lists every outgoing transition of the current phase with its guards' verdicts.
// A final phase has none.
func Transitions(def *Definition, s State, env Env) []TransitionOption {
	if def == nil || def.Type != s.Type || !s.Started() {
		return nil
	}
	d := decider{def: def, s: s, env: env}
	var out []TransitionOption
	for _, t := range def.Outgoing(s.Phase) {
		o := TransitionOption{To: t.To, Trigger: t.Trigger(), Command: t.Command(s.Feature), Universal: t.Universal(), Note: t.Note, WhenExhausted: t.WhenExhausted, Counts: t.Counts}
		if o.Trigger == OnCancel && (def.PastPlanning(s.Phase) || d.waitsForUser() != "") {
			// Past planning, or while the plan waits for the user, a cancel is the user's decision
			// (decider.cancel refuses it without --human).
			o.Command = AskUser(fmt.Sprintf("git exarchos cancel %s --human --reason \"…\"", s.Feature))
		}
		o.Guards = evaluate(def, t, s, env)
		o.Allowed = len(failures(o.Guards)) == 0
		if t.WhenExhausted != "" {
			if ok, _, limit := d.exhausted(t.WhenExhausted, s); !ok {
				o.Allowed, o.Blocked = false, fmt.Sprintf("only once %s reach their limit (%d)", t.WhenExhausted, limit)
			}
		}
		if t.Counts != "" {
			if ok, n, limit := d.exhausted(t.Counts, s); ok {
				o.Allowed = false
				o.Blocked = fmt.Sprintf("%s limit reached (%d of %d)", t.Counts, n, limit)
				if t.Counts == FixCycles {
					o.Blocked = "circuit open: " + o.Blocked + "; git exarchos unblock " + s.Feature + " --reason \"…\""
				}
			}
		}
		if t.Trigger() == OnTransition && o.Blocked == "" {
			if r := d.checkpointDue(); r != nil {
				o.Allowed, o.Blocked = false, "checkpoint due: "+r.FailedGuards[0].Reason+"; "+r.FailedGuards[0].Fix
			}
		}
		// Alternatives to one target taken by one command (synthesize → completed by its PR, or by
		// the universal cleanup once merged) are one row: the open one if any, else the first.
		if i := slices.IndexFunc(out, func(p TransitionOption) bool { return p.To == o.To && p.Command == o.Command }); i >= 0 {
			if o.Allowed && !out[i].Allowed {
				out[i] = o
			}
			continue
		}
		out = append(out, o)
	}
	return out
}

// Trigger is the first command that takes the transition.
func (t Transition) Trigger() Trigger {
	if len(t.On) > 0 {
		return t.On[0]
	}
	return OnTransition
}

// Command is the CLI line that takes the transition for a workflow.
func (t Transition) Command(feature string) string { return commandFor(t.Trigger(), feature, t.To) }

// commandFor is the CLI line that takes a transition by trigger.
func commandFor(t Trigger, feature, to string) string {
	switch t {
	case OnTransition:
		return fmt.Sprintf("git exarchos transition %s %s", feature, to)
	case OnReject:
		return AskUser(fmt.Sprintf("git exarchos reject %s --gaps \"…\"", feature))
	case OnUnblock:
		return AskUser(fmt.Sprintf("git exarchos unblock %s --reason \"…\"", feature))
	case OnCancel:
		return fmt.Sprintf("git exarchos cancel %s --reason \"…\"", feature)
	case OnCleanup:
		return fmt.Sprintf("git exarchos transition %s %s", feature, to)
	case OnLoopDone, OnLoopPass, OnLoopFail:
		return fmt.Sprintf("git exarchos %s %s", t, feature)
	case OnLoopFailNow, OnLoopError:
		return fmt.Sprintf("git exarchos %s %s --reason \"…\"", t, feature)
	}
	return ""
}

// AskUser words a human's step (approve, reject, unblock, override, grant, budget) so that no
// message hands it to the agent as a fix of its own.
func AskUser(cmd string) string { return "ask the user to run: " + cmd }

// Summary is a short "what is needed to move on" for hooks and `status`: the phase, and for each
// way forward (universal transitions left out) either the command that takes it or the failing
// guards with their fixes.
func Summary(def *Definition, s State, env Env) string {
	if !s.Started() {
		return "no workflow started (git exarchos init <feature> --type <type>)\n"
	}
	if def == nil || def.Type != s.Type {
		return fmt.Sprintf("%s (%s) is in %s; no definition of %s is known here, so it cannot move.\n", s.Feature, s.Type, s.Phase, s.Type)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%s) is in %s", s.Feature, s.Type, s.Phase)
	if def.IsFinal(s.Phase) {
		if s.Reason != "" {
			fmt.Fprintf(&b, ": %s", s.Reason)
		}
		b.WriteString("; nothing left to do.\n")
		return b.String()
	}
	b.WriteString(".\n")
	if s.MaxIterations > 0 {
		fmt.Fprintf(&b, "iteration %d of %d\n", s.Iterations, s.MaxIterations)
	}
	if g, ok := s.OpenGaps(); ok {
		fmt.Fprintf(&b, "%s sent the plan back from %s; gaps to answer: %s\n", g.Actor, g.Phase, g.Gaps)
	}
	if s.Circuit != nil && s.Circuit.Open {
		fmt.Fprintf(&b, "circuit open in %s after %d fix cycles: %s\n", s.Circuit.Compound, s.Circuit.FixCycles, AskUser(fmt.Sprintf("git exarchos unblock %s --reason \"…\"", s.Feature)))
	}
	for _, o := range Transitions(def, s, env) {
		if o.Universal || (o.WhenExhausted != "" && !o.Allowed) {
			continue
		}
		switch {
		case o.Blocked != "" && !o.Allowed && len(failures(o.Guards)) == 0:
			fmt.Fprintf(&b, "  → %s: %s\n", o.To, o.Blocked)
		case o.Allowed && o.Retry():
			fmt.Fprintf(&b, "  → %s (%s; spends one of the %s): %s\n", o.To, o.Note, o.Counts, o.Command)
		case o.Allowed:
			fmt.Fprintf(&b, "  → %s: ready: %s\n", o.To, o.Command)
		default:
			fmt.Fprintf(&b, "  → %s: needs\n", o.To)
			for _, f := range failures(o.Guards) {
				fmt.Fprintf(&b, "      %s: %s\n        fix: %s\n", f.Guard, f.Reason, f.Fix)
			}
		}
	}
	return b.String()
}
