package workflow

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"strings"
	"time"
)

// Decide turns a command into the events to append, or a rejection. It reads only its arguments.
//
// Both results may be set at once: when a command is refused but the refusal itself must be
// recorded (the circuit breaker tripping records circuit.opened), the caller appends the events
// and still reports the rejection. A nil rejection with no events means there was nothing to do
// (e.g. a transition to the current phase).
//
// def is the definition of the workflow's type (of Init's type for Init), chosen by the caller;
// nil or another type's refuses with CodeUnknownType.
func Decide(def *Definition, s State, cmd Command, env Env) ([]NewEvent, *Rejection) {
	if c, ok := cmd.(Init); ok {
		return decideInit(def, s, c)
	}
	if !s.Started() {
		if f := s.RefusedStart(); f != nil {
			return nil, reject(CodeNotStarted, "%s never started: its start replaced another workflow on the branch, a human decision, and was refused (%s); the branch stays with the workflow it had", s.Feature, f.Reason)
		}
		return nil, reject(CodeNotStarted, "the workflow has not been started (git exarchos init)")
	}
	if def == nil || def.Type != s.Type {
		return nil, reject(CodeUnknownType, "no definition for workflow type %q", s.Type)
	}
	if _, ok := def.Phase(s.Phase); !ok {
		return nil, reject(CodeUnknownPhase, "the workflow is in phase %q which the %s definition does not have", s.Phase, def.Type)
	}
	d := decider{def: def, s: s, env: env}
	if t, ok := cmd.(TransitionTo); ok && t.Phase == s.Phase && def.IsFinal(s.Phase) && enteredByTransition(def, s.Phase) {
		// Already there: a retry of the transition that ended the workflow (its answer lost) gets
		// the answer the first call had, and records nothing (docs/concepts.md: a deliberate choice). A final
		// phase only cancel enters (cancelled) is no transition's answer: refused below.
		return nil, nil
	}
	if def.IsFinal(s.Phase) && !allowedWhenFinal(cmd) && !(isCompensation(cmd) && EndedByCancel(def, s)) {
		r := reject(CodeFinalPhase, "%s is in the final phase %s", s.Feature, s.Phase)
		r.Phase = s.Phase
		return nil, r
	}
	if cancelling := def.CancellingPhase(); cancelling != "" && s.Phase == cancelling && !allowedWhenCancelling(cmd) {
		r := reject(CodeCancelling, "%s is being cancelled: finish with git exarchos cancel %s", s.Feature, s.Feature)
		r.Phase = s.Phase
		return nil, r
	}
	switch c := cmd.(type) {
	case TransitionTo:
		return d.transitionTo(c.Phase)
	case Set:
		return d.set(c)
	case AddTask, StartTask, CompleteTask, FailTask:
		return d.task(c)
	case RecordReview:
		return d.review(c)
	case ResolveFinding:
		return d.resolveFinding(c)
	case ImportFindings:
		return d.importFindings(c)
	case RecordValidation:
		return d.validation(c)
	case Approve:
		return d.approve(c)
	case Reject:
		return d.reject(c)
	case Unblock:
		return d.unblock(c)
	case Acknowledge:
		return d.acknowledge(c)
	case Signal:
		return d.signal(c)
	case RequestSynthesis:
		return d.requestSynthesis(c)
	case Cancel:
		return d.cancel(c)
	case StartTaskWorktree:
		return d.startTaskWorktree(c)
	case RecordCompensation:
		return d.recordCompensation(c)
	case Cleanup:
		return d.take(OnCleanup, "", s, "")
	case RecordArtifact:
		return d.artifact(c.Name, c.Path, c.Text, c.Inline, c.Commit)
	case RecordCheckpoint:
		return d.recordCheckpoint(c)
	case OverrideGuard:
		return d.override(c)
	case GrantTool, ExtendBudget, SubmitCompletion:
		return d.envelopeCommand(c)
	case CompleteStage, FailStage:
		return d.stage(c)
	case LinkPR:
		return d.linkPR(c)
	case DecideMerge:
		return d.decideMerge(c)
	case ObservePR:
		if c.Number <= 0 && c.URL == "" {
			return nil, reject(CodeBadInput, "a PR observation needs a number or a URL")
		}
		return one(EventPRObserved, c.PRObservation), nil
	case VerifyMerge:
		if c.Method != "github" && c.Method != "ancestry" {
			return nil, reject(CodeBadInput, "merge verification method must be github or ancestry, not %q", c.Method)
		}
		return one(EventMergeVerified, c.MergeVerifiedData), nil
	}
	return nil, reject(CodeBadInput, "unknown command %T", cmd)
}

// allowedWhenFinal lists the commands that record facts rather than move the workflow: a PR can
// be observed, or a validation run, after the workflow ended.
func allowedWhenFinal(cmd Command) bool {
	switch cmd.(type) {
	case RecordArtifact, LinkPR, ObservePR, VerifyMerge, Acknowledge:
		return true // facts observed after the end still belong in the audit trail
	}
	return false
}

// isCompensation: a cancelled workflow still records compensation steps, for the resources a
// merge brought in after it ended (a task worktree started on another clone meanwhile).
func isCompensation(cmd Command) bool {
	_, ok := cmd.(RecordCompensation)
	return ok
}

// EndedByCancel reports whether the workflow ended through a cancel.
func EndedByCancel(def *Definition, s State) bool {
	return s.Cancel != nil && def.IsFinal(s.Phase) && s.Phase == def.CancelTarget()
}

type decider struct {
	def *Definition
	s   State
	env Env
}

func one(t string, data any) []NewEvent { return []NewEvent{{Type: t, Data: data}} }

// ValidFeature reports whether id may name a workflow (and so a ref).
func ValidFeature(id string) bool {
	if len(id) == 0 || len(id) > 64 || strings.Contains(id, "..") || strings.HasSuffix(id, ".lock") || strings.HasSuffix(id, ".") {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		lowerOrDigit := c >= 'a' && c <= 'z' || c >= '0' && c <= '9'
		if !lowerOrDigit && (i == 0 || (c != '.' && c != '_' && c != '-')) {
			return false
		}
	}
	return true
}

func decideInit(def *Definition, s State, c Init) ([]NewEvent, *Rejection) {
	if s.Started() {
		return nil, reject(CodeAlreadyStarted, "workflow %s already exists (a %s workflow in %s)", s.Feature, s.Type, s.Phase)
	}
	if !ValidFeature(c.Feature) {
		return nil, reject(CodeBadInput, "invalid feature id %q: use [a-z0-9][a-z0-9._-]{0,63}, no '..', no '.lock' suffix", c.Feature)
	}
	if def == nil || def.Type != c.Type {
		return nil, reject(CodeUnknownType, "unknown workflow type %q (built in: %s)", c.Type, strings.Join(BuiltinTypes(), ", "))
	}
	if c.Branch == "" {
		return nil, reject(CodeBadInput, "a branch is required: the workflow's guards read its tip")
	}
	if r := CheckBranch("branch", c.Branch); r != nil {
		return nil, r
	}
	if len(c.Replaces) > 0 && !c.Human {
		return nil, reject(CodeHumanDecision, "branch %s already had workflow(s) %s: starting a %s workflow on it may drop the process they were in, which is the user's decision: ask the user to run git exarchos init %s --type %s --human",
			c.Branch, strings.Join(c.Replaces, ", "), c.Type, c.Feature, c.Type)
	}
	d := StartedData{Feature: c.Feature, Type: c.Type, Branch: c.Branch, Phase: def.Initial, ForkPoint: c.ForkPoint, Replaces: c.Replaces, Human: c.Human, Definition: def.ID}
	var r *Rejection
	if d.Synthesis, r = policy("synthesis", c.Synthesis, def.SynthesisPolicies, def.Type); r != nil {
		return nil, r
	}
	if d.Completion, r = policy("completion", c.Completion, def.CompletionPolicies, def.Type); r != nil {
		return nil, r
	}
	switch {
	case c.MaxIterations < 0:
		return nil, reject(CodeBadInput, "max iterations must be positive, not %d", c.MaxIterations)
	case c.MaxIterations > 0 && def.Limits.MaxIterations == 0:
		return nil, reject(CodeBadInput, "max iterations does not apply to %s workflows", def.Type)
	case def.Limits.MaxIterations > 0:
		d.MaxIterations = c.MaxIterations
		if d.MaxIterations == 0 {
			d.MaxIterations = def.Limits.MaxIterations
		}
	}
	return one(EventStarted, d), nil
}

// policy validates an init policy and fills its default, so the log states it explicitly.
func policy(name, v string, options []string, typ string) (string, *Rejection) {
	if len(options) == 0 {
		if v != "" {
			return "", reject(CodeBadInput, "a %s policy does not apply to %s workflows", name, typ)
		}
		return "", nil
	}
	if v == "" {
		return options[0], nil
	}
	if !slices.Contains(options, v) {
		return "", reject(CodeBadInput, "unknown %s policy %q (one of %s)", name, v, strings.Join(options, ", "))
	}
	return v, nil
}

// validTargets are the phases `transition` may be asked for from the current phase.
func (d decider) validTargets() []string {
	var out []string
	for _, t := range d.def.Outgoing(d.s.Phase) {
		if t.TakenBy(OnTransition) && !slices.Contains(out, t.To) {
			out = append(out, t.To)
		}
	}
	return out
}

func (d decider) transitionTo(target string) ([]NewEvent, *Rejection) {
	if target == "" {
		return nil, d.withTargets(reject(CodeBadInput, "a target phase is required"))
	}
	resolved := d.def.resolve(target)
	if _, ok := d.def.Phase(resolved); !ok {
		r := d.withTargets(reject(CodeUnknownPhase, "the %s workflow has no phase %q%s", d.def.Type, target, DidYouMean(d.def.PhaseIDs(), target)))
		r.Target = target
		return nil, r
	}
	if resolved == d.s.Phase {
		return nil, nil
	}
	if r := d.checkpointDue(); r != nil {
		r.Target = resolved
		return nil, r
	}
	return d.take(OnTransition, resolved, d.s, "")
}

func (d decider) withTargets(r *Rejection) *Rejection {
	r.Phase = d.s.Phase
	r.ValidTargets = d.validTargets()
	return r
}

// exhausted reports whether a counter has reached its limit in state s.
func (d decider) exhausted(c Counter, s State) (bool, int, int) {
	switch c {
	case Revisions:
		return d.def.Limits.PlanRevisions > 0 && s.Revisions >= d.def.Limits.PlanRevisions, s.Revisions, d.def.Limits.PlanRevisions
	case Retries:
		return d.def.Limits.SynthesisRetries > 0 && s.Retries >= d.def.Limits.SynthesisRetries, s.Retries, d.def.Limits.SynthesisRetries
	case Iterations:
		return s.MaxIterations > 0 && s.Iterations >= s.MaxIterations, s.Iterations, s.MaxIterations
	case FixCycles:
		comp := d.def.compoundOf(s.Phase)
		n, limit := s.FixCycles[comp], d.fixCycleLimit(comp)
		if s.Circuit != nil && s.Circuit.Open && s.Circuit.Compound == comp {
			// An open circuit closes only by a human unblock: a limit raised since it opened
			// (on the base branch) does not reopen the way.
			return true, n, s.Circuit.Limit
		}
		return n >= limit, n, limit
	}
	return false, 0, 0
}

// pastLimit says how a workflow whose counter reached its limit can still move: the limit is a
// rule a human raises on the base branch (the loop's is fixed at init), or the workflow ends.
func (d decider) pastLimit(c Counter, s State) string {
	cancel := commandFor(OnCancel, s.Feature, "")
	if c == Iterations {
		return fmt.Sprintf("the iteration limit was fixed at init; %s, then start again with a higher --max-iterations", cancel)
	}
	return fmt.Sprintf("ask the user to raise workflows.%s.%s in the rules on the base branch (.exarchos/config.yaml), or %s", d.def.Type, limitKey[c], cancel)
}

// limitKey names each counter's limit in the rules file.
var limitKey = map[Counter]string{Revisions: "planRevisions", Retries: "synthesisRetries", FixCycles: "maxFixCycles", Iterations: "maxIterations"}

// fixCycleLimit is the compound's circuit-breaker limit.
func (d decider) fixCycleLimit(compound string) int {
	p, _ := d.def.Phase(compound)
	return p.MaxFixCycles
}

// effective are the limits in force for a move out of s's phase, as recorded on the event.
func (d decider) effective(s State) *EffectiveLimits {
	l := EffectiveLimits{Revisions: d.def.Limits.PlanRevisions, Retries: d.def.Limits.SynthesisRetries, Iterations: s.MaxIterations}
	if comp := d.def.compoundOf(s.Phase); comp != "" {
		l.FixCycles = d.fixCycleLimit(comp)
	}
	if l == (EffectiveLimits{}) {
		return nil
	}
	return &l
}

// take decides the first transition from the current phase taken by trigger (towards target, or
// any target when empty) whose limits and guards allow it. Guards are evaluated against s, which
// may include events decided just before (e.g. a loop signal). Otherwise the first refusal is
// returned, so the caller sees why the preferred route is closed.
func (d decider) take(trigger Trigger, target string, s State, reason string) ([]NewEvent, *Rejection) {
	var cands []Transition
	for _, t := range d.def.Outgoing(s.Phase) {
		if t.TakenBy(trigger) && (target == "" || t.To == target) {
			cands = append(cands, t)
		}
	}
	if len(cands) == 0 {
		msg := fmt.Sprintf("no transition from %s to %s", s.Phase, target)
		if target == "" {
			msg = fmt.Sprintf("%s does not apply in phase %s", trigger, s.Phase)
		}
		// The target may be reachable by another command (reject, unblock, a loop signal, cancel).
		for _, t := range d.def.Outgoing(s.Phase) {
			if target != "" && t.To == target && len(t.On) > 0 {
				msg += fmt.Sprintf(" (use %s)", commandFor(t.On[0], s.Feature, t.To))
				break
			}
		}
		if target != "" && target == d.def.CancelTarget() && !strings.Contains(msg, "(use ") {
			msg += fmt.Sprintf(" (use %s)", commandFor(OnCancel, s.Feature, target))
		}
		r := d.withTargets(reject(CodeInvalidTransition, "%s", msg))
		r.Target = target
		return nil, r
	}
	var first *Rejection
	refuse := func(r *Rejection) {
		if first == nil {
			r.Target = target
			first = d.withTargets(r)
		}
	}
	for _, t := range cands {
		why := reason
		if t.WhenExhausted != "" {
			if ok, n, limit := d.exhausted(t.WhenExhausted, s); ok {
				why = fmt.Sprintf("%s limit reached (%d of %d)", t.WhenExhausted, n, limit)
			} else {
				continue
			}
		}
		if t.Counts != "" {
			if ok, n, limit := d.exhausted(t.Counts, s); ok {
				if t.Counts == FixCycles {
					return d.tripCircuit(s, n, limit, t.To)
				}
				r := reject(CodeLimitReached, "%s → %s refused: %s limit reached (%d of %d); way forward: %s", s.Phase, t.To, t.Counts, n, limit, d.pastLimit(t.Counts, s))
				r.Definition, r.Limits = d.def.ID, d.effective(s)
				refuse(r)
				continue
			}
		}
		verdicts := evaluate(d.def, t, s, d.env)
		if fs := failures(verdicts); len(fs) > 0 {
			// A universal transition's From is "*": the phase it leaves is the one the workflow is in.
			r := reject(CodeGuardFailed, "%s → %s refused: %d guard(s) failed", s.Phase, t.To, len(fs))
			r.FailedGuards = fs
			refuse(r)
			continue
		}
		if t.To == d.def.CancelTarget() && d.def.CancellingPhase() != "" && !t.TakenBy(OnCancel) {
			// A phase's own way to the cancelled phase (debug's escalation) ends the workflow like
			// cancel does, through the saga, so nothing it created is left behind.
			return d.cancel(Cancel{Reason: strings.TrimSpace(t.Note + ": " + s.FieldString(EscalationField))})
		}
		data := TransitionedData{From: s.Phase, To: t.To, Trigger: trigger, Reason: why, Definition: d.def.ID, Limits: d.effective(s), Head: d.env.Head}
		for _, v := range verdicts {
			if v.Overridden {
				data.Overridden = append(data.Overridden, v.Guard)
			} else {
				data.Guards = append(data.Guards, v.Guard)
			}
		}
		return one(EventTransitioned, data), nil
	}
	return nil, first
}

// tripCircuit refuses a fix cycle over the limit; the first refusal opens the circuit (an event).
func (d decider) tripCircuit(s State, n, limit int, target string) ([]NewEvent, *Rejection) {
	comp := d.def.compoundOf(s.Phase)
	r := d.withTargets(reject(CodeCircuitOpen, "circuit open: %d fix cycles in %s (limit %d); ask the user to run: git exarchos unblock %s --reason \"…\"", n, comp, limit, s.Feature))
	r.Definition, r.Limits = d.def.ID, &EffectiveLimits{FixCycles: limit}
	r.ValidTargets = slices.DeleteFunc(r.ValidTargets, func(t string) bool { return t == target }) // the refused one is not valid
	if s.Circuit != nil && s.Circuit.Open && s.Circuit.Compound == comp {
		return nil, r
	}
	return one(EventCircuitOpened, CircuitData{Compound: comp, FixCycles: n, Limit: limit, Definition: d.def.ID}), r
}

// reservedRoots are State's own keys: `set` may not write them (track is the one exception, and
// artifacts.<name> and pr.url are routed to their own events).
var reservedRoots = map[string]bool{
	"feature": true, "type": true, "phase": true, "branch": true, "enteredAt": true, "reason": true,
	"synthesis": true, "completion": true, "maxIterations": true, "artifacts": true, "tasks": true,
	"reviews": true, "validations": true, "approvals": true, "overrides": true, "fields": true,
	"fixCycles": true, "circuit": true, "revisions": true, "retries": true, "iterations": true,
	"loop": true, "synthesisRequested": true, "pr": true, "conflicts": true, "events": true,
	"ignored": true, "lastSeq": true, "lastClock": true, "head": true, "resources": true, "cancel": true,
}

// IsReservedField reports whether `set` refuses path (its first segment belongs to the engine).
func IsReservedField(p string) bool {
	root, rest, _ := strings.Cut(p, ".")
	switch {
	case root == "artifacts" && rest != "" && !strings.Contains(rest, "."):
		return false
	case p == "pr.url":
		return false
	}
	return reservedRoots[root]
}

func (d decider) set(c Set) ([]NewEvent, *Rejection) {
	if len(c.Assignments) == 0 {
		return nil, reject(CodeBadInput, "nothing to set: give path=value pairs")
	}
	var out []NewEvent
	for _, a := range c.Assignments {
		if !ValidPath(a.Path) {
			return nil, reject(CodeBadInput, "malformed path %q (dot-separated names of letters, digits, _ and -)", a.Path)
		}
		if r := d.lookalikeField(a.Path); r != nil {
			return nil, r
		}
		if IsReservedField(a.Path) {
			r := reject(CodeReservedField, "%s is managed by the engine and cannot be set", a.Path)
			if strings.HasPrefix(a.Path, "phase") {
				r.Message += fmt.Sprintf(" (use git exarchos transition %s <phase>)", d.s.Feature)
			}
			return nil, r
		}
		if len(a.Value) == 0 || !json.Valid(a.Value) {
			return nil, reject(CodeBadInput, "%s: malformed JSON value %s", a.Path, a.Value)
		}
		var str string
		isString := json.Unmarshal(a.Value, &str) == nil
		if r := checkTypedField(d.s.Feature, a); r != nil {
			return nil, r
		}
		switch {
		case strings.HasPrefix(a.Path, "artifacts."):
			if !isString {
				return nil, reject(CodeBadInput, "%s: an artifact is a path (or inline text with --inline), as a string", a.Path)
			}
			name := strings.TrimPrefix(a.Path, "artifacts.")
			evs, r := d.artifact(name, iff(!c.Inline, str), iff(c.Inline, str), c.Inline, c.Commit)
			if r != nil {
				return nil, r
			}
			out = append(out, evs...)
			continue
		case a.Path == "pr.url":
			if !isString {
				return nil, reject(CodeBadInput, "pr.url must be a string")
			}
			evs, r := d.linkPR(PRLinkData{URL: str})
			if r != nil {
				return nil, r
			}
			out = append(out, evs...)
			continue
		case a.Path == "track" || strings.HasPrefix(a.Path, "track."):
			if len(d.def.Tracks) == 0 {
				return nil, reject(CodeBadInput, "%s workflows have no tracks", d.def.Type)
			}
			if !isString || !slices.Contains(d.def.Tracks, str) {
				return nil, reject(CodeBadInput, "track must be one of %s, not %s", strings.Join(d.def.Tracks, ", "), a.Value)
			}
		}
		if strings.Contains(a.Path, ".") {
			// Refuse to replace a scalar with an object on the way down; the fold would, but a
			// user typing a.b=1 over a=2 more likely made a mistake.
			if _, err := setPath(d.s.Fields, strings.Split(a.Path, "."), a.Value, false); err != nil {
				return nil, reject(CodeBadInput, "%s: %v", a.Path, err)
			}
		}
		prev := &FieldPrev{}
		if v, ok := d.s.Field(a.Path); ok {
			prev = &FieldPrev{Set: true, Value: compact(v)}
		}
		out = append(out, NewEvent{Type: EventFieldSet, Data: FieldSetData{Path: a.Path, Value: compact(a.Value), Prev: prev}})
	}
	return out, nil
}

// lookalikeField refuses a free field that looks like a mistyped known one: an artifact's name
// without "artifacts." (plan=docs/x.md would be a free field no guard reads), or a first segment a
// typo away from "artifacts" or "pr".
func (d decider) lookalikeField(path string) *Rejection {
	first, rest, dotted := strings.Cut(path, ".")
	if !dotted && slices.Contains(d.artifactNames(), path) {
		return reject(CodeBadInput, "%s is the name of an artifact, not a field: did you mean artifacts.%s?", path, path)
	}
	if dotted && first != "artifacts" && first != "pr" {
		if best := Closest([]string{"artifacts", "pr"}, first); best != "" {
			return reject(CodeBadInput, "%s is no field this workflow reads: did you mean %s.%s?", path, best, rest)
		}
	}
	return nil
}

// artifactNames are the artifacts the definition's guards check (artifact-<name>) or names paths for.
func (d decider) artifactNames() []string {
	var out []string
	add := func(n string) {
		if n != "" && n != "*" && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	for _, t := range d.def.Transitions {
		for _, g := range t.Guards {
			if n, ok := strings.CutPrefix(g, "artifact-"); ok {
				add(n)
			}
		}
	}
	for n := range d.def.ArtifactPaths {
		add(n)
	}
	for _, n := range d.def.InlineArtifacts {
		add(n)
	}
	return out
}

// EscalationField is the field that says why a debug workflow is escalated (and to whom).
const EscalationField = "escalation"

// typedFields are the fields a built-in guard reads, checked when set so that a wrong shape is
// refused at once with its fix instead of failing later as "none recorded" or a raw git error.
var typedFields = map[string]struct {
	valid func(json.RawMessage) bool
	want  string // what the value must be, and the command that sets it (%s: the feature)
}{
	"sources": {validSources, `a JSON array of sources: git exarchos set %s sources='["<url or path>"]'`},
	"fixCommit": {func(v json.RawMessage) bool {
		var s string
		return json.Unmarshal(v, &s) == nil && commitID().MatchString(s)
	}, "a commit id (4 to 64 hex digits): git exarchos set %s fixCommit=$(git rev-parse HEAD)"},
}

var commitID = lazyRegexp(`^[0-9a-f]{4,64}$`)

// validSources: an array of non-empty strings (empty is a shape the guard then refuses as none).
func validSources(v json.RawMessage) bool {
	var list []string
	return json.Unmarshal(v, &list) == nil && list != nil && !slices.Contains(list, "")
}

// checkTypedField refuses a typed field of the wrong shape, and the same name given as an
// artifact (artifacts.sources is not where the sources guard looks).
func checkTypedField(feature string, a Assignment) *Rejection {
	if name, ok := strings.CutPrefix(a.Path, "artifacts."); ok {
		if f, typed := typedFields[name]; typed {
			return reject(CodeBadInput, "%s is a field, not an artifact: it must be "+f.want, name, feature)
		}
		return nil
	}
	if f, typed := typedFields[a.Path]; typed && !f.valid(a.Value) {
		return reject(CodeBadInput, "%s must be "+f.want+", not %s", a.Path, feature, a.Value)
	}
	return nil
}

func iff(cond bool, s string) string {
	if cond {
		return s
	}
	return ""
}

func compact(v json.RawMessage) json.RawMessage {
	var b bytes.Buffer
	if err := json.Compact(&b, v); err != nil {
		return v
	}
	return b.Bytes()
}

var (
	artifactName = lazyRegexp(`^[a-z0-9][a-z0-9-]*$`)
	taskID       = lazyRegexp(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)
)

func (d decider) artifact(name, p, text string, inline bool, commit string) ([]NewEvent, *Rejection) {
	if !artifactName().MatchString(name) {
		return nil, reject(CodeBadInput, "invalid artifact name %q (lowercase letters, digits and -)", name)
	}
	if inline {
		if strings.TrimSpace(text) == "" || p != "" {
			return nil, reject(CodeBadInput, "an inline artifact carries text and no path")
		}
		if !d.def.InlineAllowed(name) {
			return nil, reject(CodeBadInput, "the %s definition does not allow an inline %s: write it to a file under %s, commit it on the branch, then `git exarchos set %s artifacts.%s=<path>`",
				d.def.Type, name, strings.Join(d.def.ArtifactPatterns(name), " or "), d.s.Feature, name)
		}
	} else {
		if p == "" || path.IsAbs(p) || path.Clean(p) != p || p == "." || strings.HasPrefix(p, "../") || p == ".." {
			return nil, reject(CodeBadInput, "artifact %s: %q is not a clean relative path in the repository", name, p)
		}
		// Refused here, not only at the guard: the hook lets a planning phase edit a recorded
		// artifact's file, so recording a source file would open the code to it.
		if pats := d.def.ArtifactPatterns(name); IsSourcePath(p) || !MatchAny(pats, p) {
			return nil, reject(CodeBadInput, "artifact %s: %s is not a document path (it must match %s and not be a source file): write the %s under docs/, e.g. `git exarchos set %s artifacts.%s=docs/%s.md`",
				name, p, strings.Join(pats, " or "), name, d.s.Feature, name, name)
		}
	}
	return one(EventArtifactRecorded, ArtifactData{Name: name, Path: p, Text: text, Inline: inline, Commit: commit}), nil
}

func (d decider) linkPR(c PRLinkData) ([]NewEvent, *Rejection) {
	ref, ok := ParsePRURL(c.URL)
	if !ok {
		return nil, reject(CodeBadInput, "%q is not a pull request URL (https://<host>/<owner>/<repo>/pull/<n>)", c.URL)
	}
	if c.Number == 0 {
		c.Number = ref.Number
	}
	if c.Number != ref.Number {
		return nil, reject(CodeBadInput, "pull request number %d does not match the URL %s", c.Number, c.URL)
	}
	return one(EventPRLinked, c), nil
}

func (d decider) task(c Command) ([]NewEvent, *Rejection) {
	var id string
	switch c := c.(type) {
	case AddTask:
		id = c.ID
	case StartTask:
		id = c.ID
	case CompleteTask:
		id = c.ID
	case FailTask:
		id = c.ID
	}
	if !ValidTaskID(id) {
		return nil, invalidTaskID(id)
	}
	t, exists := d.s.Task(id)
	if add, ok := c.(AddTask); ok {
		if exists {
			return nil, reject(CodeBadInput, "task %s already exists", id)
		}
		return one(EventTaskAdded, TaskData{ID: id, Title: add.Title, Start: d.env.Head}), nil
	}
	if !exists {
		return nil, reject(CodeBadInput, "no task %s (add it with git exarchos task add %s %s --title …)", id, d.s.Feature, id)
	}
	switch c := c.(type) {
	case StartTask:
		if t.Status == TaskInProgress {
			return nil, nil
		}
		return one(EventTaskStarted, TaskData{ID: id, Start: d.env.Head}), nil
	case CompleteTask:
		if t.Status == TaskCompleted && (c.HeadSHA == "" || c.HeadSHA == t.HeadSHA) {
			return nil, nil
		}
		if r := d.noWork(t, c); r != nil {
			return nil, r
		}
		if r := taskGatesRejection(d.def, d.s, id, c.HeadSHA); r != nil {
			return nil, r
		}
		by := d.env.Caller
		return one(EventTaskCompleted, TaskData{ID: id, HeadSHA: c.HeadSHA, Was: t.Status, Gates: taskGatesOf(d.def), Session: by.Session, Agent: by.Agent, AgentType: by.AgentType}), nil
	case FailTask:
		if t.Status == TaskFailed && c.Reason == t.Reason {
			return nil, nil
		}
		return one(EventTaskFailed, TaskData{ID: id, Reason: c.Reason, Was: t.Status}), nil
	}
	return nil, nil
}

// noWork refuses to complete a task that has no commit of its own: its head must be known and
// differ from where its work starts (its worktree's base, else the branch tip when the task was
// added or started, else the workflow's fork point). That the head descends from the start is a
// fact of the repository, checked by the caller and by verify.
func (d decider) noWork(t Task, c CompleteTask) *Rejection {
	since := c.Since
	if since == "" {
		since = t.Start
	}
	if since == "" {
		since = d.s.ForkPoint
	}
	if c.HeadSHA != "" && (since == "" || c.HeadSHA != since) {
		return nil
	}
	return reject(CodeNoWork, "task %s has no commit of its own: its branch is still at %s, where the task started; commit the task's work first (git add … && git commit), then run git exarchos task done %s %s again (or, if it needs no work: git exarchos task fail %s %s --reason \"…\")",
		t.ID, shortID(since), d.s.Feature, t.ID, d.s.Feature, t.ID)
}

func shortID(s string) string {
	if len(s) > 12 {
		return s[:12]
	}
	if s == "" {
		return "an unknown commit"
	}
	return s
}

func (d decider) review(c RecordReview) ([]NewEvent, *Rejection) {
	if !pathSegment().MatchString(c.Dimension) {
		return nil, reject(CodeBadInput, "invalid review dimension %q", c.Dimension)
	}
	findings, err := ValidateFindings(c.Dimension, c.Findings)
	if err != nil {
		return nil, reject(CodeBadInput, "%v", err)
	}
	if r := d.openAfter(c.Dimension, c.Commit, findings); r != nil {
		return nil, r
	}
	var blocking []string
	for _, f := range findings {
		if d.def.Blocks(f.Severity) {
			blocking = append(blocking, fmt.Sprintf("%s (%s %s)", f.ID, f.Severity, f.File))
		}
	}
	if c.Triage {
		c.Pass = len(blocking) == 0
	} else if c.Pass && len(blocking) > 0 {
		return nil, reject(CodeBadInput, "a pass with %d blocking finding(s) (%s; %s and above block in %s): record fail, or leave the verdict out and it follows from the findings",
			len(blocking), strings.Join(blocking, ", "), d.def.BlockingSeverity(), d.def.Type)
	}
	v := VerdictFail
	if c.Pass {
		v = VerdictPass
	}
	if c.Commit == "" {
		return nil, reject(CodeBadInput, "a review verdict names the commit it judged (git exarchos review binds it to the branch tip)")
	}
	if c.Human && d.def.ReviewBy != "human" && d.def.ReviewBy != "" {
		return nil, reject(CodeBadInput, "the %s definition takes reviews from %s, not human decisions: record the verdict without --human", d.def.Type, orAgent(d.def.ReviewBy))
	}
	if len(d.def.Reviews) > 0 && !slices.Contains(d.def.Reviews, c.Dimension) {
		return nil, reject(CodeBadInput, "the %s workflow reviews %s, not %q%s", d.def.Type, strings.Join(d.def.Reviews, " and "), c.Dimension, DidYouMean(d.def.Reviews, c.Dimension))
	}
	if phases := d.reviewPhases(); !slices.ContainsFunc(d.def.Outgoing(d.s.Phase), readsReviews) {
		// The review guards count only verdicts given in this visit of a review phase: one given
		// elsewhere would be recorded and never count.
		r := reject(CodeWrongPhase, "a review counts only in %s, and %s is in %s: record it there", strings.Join(phases, " or "), d.s.Feature, d.s.Phase)
		r.Phase = d.s.Phase
		return nil, r
	}
	by := d.env.Caller
	if c.Session != "" {
		by.Session = c.Session
	}
	if r := d.uncountedPass(c, by); r != nil {
		return nil, r
	}
	return one(EventReviewRecorded, ReviewData{Dimension: c.Dimension, Verdict: v, Note: c.Note, Actor: d.env.Actor, Commit: c.Commit, Session: by.Session, Human: c.Human, Agent: by.Agent, AgentType: by.AgentType,
		Findings: findings}), nil
}

// uncountedPass refuses a pass an agent records that reviews-passed would not count: from the
// agent that did the work (the main agent, or a subagent that completed a task) where a reviewer
// must be someone else, or from any agent where the definition takes reviews from a human. A pass
// recorded and then silently not counted sends the agent to the next refusal to learn it; a fail
// is recorded (it only sends the work back).
func (d decider) uncountedPass(c RecordReview, by Caller) *Rejection {
	if !c.Pass || c.Human || !(d.env.Agent || by.Session != "") {
		return nil
	}
	human := fmt.Sprintf("git exarchos review %s %s pass --human --note \"…\"", d.s.Feature, c.Dimension)
	switch {
	case d.def.ReviewBy == "human":
		return reject(CodeHumanDecision, "the %s definition takes reviews from a human, so an agent's pass would not count: %s", d.def.Type, AskUser(human))
	case d.def.ReviewBy == "" && !d.s.Independent(by):
		return reject(CodeHumanDecision, "a pass from the agent that did the work would not count for %s: a reviewer subagent (one that completed none of the tasks) runs git exarchos review %s %s pass --note \"…\" itself, or %s",
			c.Dimension, d.s.Feature, c.Dimension, AskUser(human))
	}
	return nil
}

// reviewPhases are the phases whose way out reads review verdicts (reviews-passed, review-failed).
func (d decider) reviewPhases() []string {
	var out []string
	for _, t := range d.def.Transitions {
		if readsReviews(t) && !slices.Contains(out, t.From) {
			out = append(out, t.From)
		}
	}
	return out
}

func readsReviews(t Transition) bool {
	return slices.Contains(t.Guards, "reviews-passed") || slices.Contains(t.Guards, "review-failed")
}

func (d decider) validation(c RecordValidation) ([]NewEvent, *Rejection) {
	if strings.TrimSpace(c.Command) == "" || c.Commit == "" || c.DurationMs < 0 {
		return nil, reject(CodeBadInput, "a validation needs the command, the commit it ran on and a duration")
	}
	return one(EventValidationRecorded, ValidationData(c)), nil
}

// checkpoint reports whether the current phase is a human plan review (it can be rejected).
func (d decider) checkpoint() bool {
	for _, t := range d.def.Outgoing(d.s.Phase) {
		if t.TakenBy(OnReject) {
			return true
		}
	}
	return false
}

func (d decider) notCheckpoint(verb string) *Rejection {
	var phases []string
	for _, t := range d.def.Transitions {
		if t.TakenBy(OnReject) && !slices.Contains(phases, t.From) {
			phases = append(phases, t.From)
		}
	}
	if len(phases) == 0 {
		return reject(CodeWrongPhase, "%s workflows have no plan review to %s", d.def.Type, verb)
	}
	return reject(CodeWrongPhase, "nothing to %s in %s: plans are reviewed in %s", verb, d.s.Phase, strings.Join(phases, ", "))
}

func (d decider) approve(c Approve) ([]NewEvent, *Rejection) {
	if !d.checkpoint() {
		return nil, d.notCheckpoint("approve")
	}
	return one(EventPlanApproved, DecisionData{Phase: d.s.Phase, Note: c.Note, Actor: d.env.Actor}), nil
}

func (d decider) reject(c Reject) ([]NewEvent, *Rejection) {
	if !d.checkpoint() {
		return nil, d.notCheckpoint("reject")
	}
	if strings.TrimSpace(c.Gaps) == "" {
		return nil, reject(CodeBadInput, "say what is missing: --gaps \"…\"")
	}
	evs, r := d.take(OnReject, "", d.s, "")
	if r != nil {
		return nil, r
	}
	return append(one(EventPlanRejected, DecisionData{Phase: d.s.Phase, Gaps: c.Gaps, Actor: d.env.Actor}), evs...), nil
}

func (d decider) unblock(c Unblock) ([]NewEvent, *Rejection) {
	if strings.TrimSpace(c.Reason) == "" {
		return nil, reject(CodeBadInput, "say why: --reason \"…\"")
	}
	data := UnblockedData{Reason: c.Reason, Actor: d.env.Actor, Phase: d.s.Phase}
	for _, t := range d.def.Outgoing(d.s.Phase) {
		if t.TakenBy(OnUnblock) {
			evs, r := d.take(OnUnblock, "", d.s, c.Reason)
			if r != nil {
				return nil, r
			}
			return append(one(EventUnblocked, data), evs...), nil
		}
	}
	if d.s.Circuit != nil && d.s.Circuit.Open {
		data.Compound = d.s.Circuit.Compound
		return one(EventUnblocked, data), nil
	}
	return nil, reject(CodeNotBlocked, "%s is not blocked (phase %s, no open circuit)", d.s.Feature, d.s.Phase)
}

func signalTrigger(sig string) (Trigger, bool) {
	switch sig {
	case SignalDone:
		return OnLoopDone, true
	case SignalPass:
		return OnLoopPass, true
	case SignalFail:
		return OnLoopFail, true
	case SignalFailNow:
		return OnLoopFailNow, true
	case SignalError:
		return OnLoopError, true
	}
	return "", false
}

func (d decider) signal(c Signal) ([]NewEvent, *Rejection) {
	tr, ok := signalTrigger(c.Signal)
	if !ok {
		return nil, reject(CodeBadInput, "unknown loop signal %q (done, pass, fail, fail-now or error)", c.Signal)
	}
	if (tr == OnLoopFailNow || tr == OnLoopError) && strings.TrimSpace(c.Reason) == "" {
		return nil, reject(CodeBadInput, "say why the loop fails: git exarchos loop %s %s --reason \"…\"", c.Signal, d.s.Feature)
	}
	var where []string
	here := false
	for _, t := range d.def.Transitions {
		if t.TakenBy(tr) {
			if !slices.Contains(where, t.From) {
				where = append(where, t.From)
			}
			here = here || t.From == d.s.Phase
		}
	}
	if len(where) == 0 {
		return nil, reject(CodeBadInput, "loop signals apply to loop workflows, not %s", d.def.Type)
	}
	if !here {
		return nil, reject(CodeWrongPhase, "loop %s is given in %s, and %s is in %s", c.Signal, strings.Join(where, ", "), d.s.Feature, d.s.Phase)
	}
	sig := NewEvent{Type: EventLoopSignalled, Data: SignalData{Signal: c.Signal, Iteration: d.s.Iterations, Actor: d.env.Actor, Reason: c.Reason}}
	ev, err := sig.Stamp("", d.s.LastSeq, time.Time{}, d.env.Actor, d.s.LastClock)
	if err != nil {
		return nil, reject(CodeBadInput, "%v", err)
	}
	after := Apply(d.def, d.s, ev) // the guards judge the state with the signal in it
	why := c.Reason
	if why != "" {
		why = fmt.Sprintf("%s (iteration %d): %s", tr, d.s.Iterations, why)
	}
	evs, r := d.take(tr, "", after, why)
	if r != nil {
		return nil, r
	}
	return append([]NewEvent{sig}, evs...), nil
}

func (d decider) requestSynthesis(c RequestSynthesis) ([]NewEvent, *Rejection) {
	if len(d.def.SynthesisPolicies) == 0 && !d.def.UsesGuard(GuardSynthesisRequested) {
		return nil, reject(CodeBadInput, "synthesis requests apply to oneshot and debug workflows, not %s", d.def.Type)
	}
	// Already where the request leads (as Exarchos, refused rather than a silent no-op): the
	// request decides whether a pull request is opened, and here it is being opened.
	if slices.ContainsFunc(d.def.Transitions, func(t Transition) bool {
		return t.To == d.s.Phase && (slices.Contains(t.Guards, GuardSynthesisRequested) || slices.Contains(t.Guards, GuardSynthesisRequired))
	}) {
		r := reject(CodeWrongPhase, "%s is already in %s: a synthesis request decides whether a pull request is opened, and it is being opened here; open it, then git exarchos pr link %s <url>", d.s.Feature, d.s.Phase, d.s.Feature)
		r.Phase = d.s.Phase
		return nil, r
	}
	switch {
	case d.s.Synthesis == "never":
		return nil, reject(CodeBadInput, "%s was started with synthesis policy never", d.s.Feature)
	case d.s.Synthesis == "always", d.s.SynthesisRequested:
		return nil, nil // already decided: nothing to record
	}
	return one(EventSynthesisRequested, SynthesisRequestData{Reason: c.Reason, Actor: d.env.Actor}), nil
}

func (d decider) override(c OverrideGuard) ([]NewEvent, *Rejection) {
	if strings.TrimSpace(c.Reason) == "" {
		return nil, reject(CodeBadInput, "an override needs a reason")
	}
	var guards []string
	for _, t := range d.def.Outgoing(d.s.Phase) {
		for _, g := range append(slices.Clip(t.Guards), t.OptIn...) {
			if !slices.Contains(guards, g) {
				guards = append(guards, g)
			}
		}
	}
	if !slices.Contains(guards, c.Guard) {
		return nil, reject(CodeBadInput, "guard %q does not apply in %s (guards here: %s)", c.Guard, d.s.Phase, strings.Join(guards, ", "))
	}
	return one(EventGuardOverridden, OverrideData{Guard: c.Guard, Reason: c.Reason, Actor: d.env.Actor, Phase: d.s.Phase}), nil
}

func orAgent(by string) string {
	if by == "" {
		return "agent"
	}
	return by
}

// enteredByTransition reports whether the transition command can enter the phase.
func enteredByTransition(def *Definition, phase string) bool {
	return slices.ContainsFunc(def.Transitions, func(t Transition) bool { return t.To == phase && t.TakenBy(OnTransition) })
}
