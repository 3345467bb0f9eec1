package workflow

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// Apply folds one event into a state and returns the new state. It is total: it never panics and
// never fails. An engine event that does not fit where it stands (a transition whose `from` is not
// the current phase after a merge, a task that does not exist, a malformed payload) is recorded in
// Conflicts and otherwise ignored; custom and unknown event types are counted and ignored (the
// engine's own audit events are ignored without being counted).
// s is not modified: Apply works on a deep copy.
//
// def is the definition of the workflow's type, chosen by the caller; without it (nil or another
// type's) every engine event after the start is a conflict, so callers that may lack it (Project)
// refuse to fold instead.
func Apply(def *Definition, s State, e Event) State {
	c := s.Clone()
	c.apply(def, e)
	return c
}

// Fold applies events in order to a copy of s.
func Fold(def *Definition, s State, events []Event) State {
	c := s.Clone()
	for _, e := range events {
		c.apply(def, e)
	}
	return c
}

// apply folds e into s in place; s must own its slices and maps.
func (s *State) apply(def *Definition, e Event) {
	at := s.Events
	s.Events++
	s.LastSeq = e.Seq
	if e.Clock > s.LastClock {
		s.LastClock = e.Clock
	}
	if !engineEventTypes[e.Type] {
		// The engine's own audit events (guard.failed, tool.denied, hook.*) are not folded, and not
		// "ignored" either: Ignored counts what someone else wrote that this version does not read.
		if !auditEventTypes[e.Type] {
			s.Ignored++
		}
		return
	}
	if e.Type == EventKeyCollided {
		s.conflict(e, keyCollision(e))
		return
	}
	if e.Type != EventStarted && !s.Started() {
		s.conflict(e, "the workflow has not started")
		return
	}
	if e.Type != EventStarted && (def == nil || def.Type != s.Type) {
		s.conflict(e, fmt.Sprintf("unknown workflow type %q", s.Type))
		return
	}
	if e.Verdict != nil {
		if kind := s.needsSignature(def, e); kind != "" && !e.Verdict.OK {
			s.refuse(e, kind)
			if kind == KindReplace {
				// A refused replacement never starts: the workflow stays inert (every later event
				// is a conflict, every command is refused) and binds no branch, so the branch
				// stays with the workflow it had. Only its name is kept, so status can say why.
				var d StartedData
				if decode(e, &d) == nil {
					s.Feature = d.Feature
				}
			}
			return
		}
		if e.Verdict.OK && e.Verdict.Principal != "" {
			e.Actor = e.Verdict.Principal
		}
	}
	var err error
	switch e.Type {
	case EventStarted:
		err = s.applyStarted(def, e, at)
	case EventTransitioned:
		err = s.applyTransitioned(def, e, at)
	case EventCancelled:
		err = s.applyCancelled(def, e, at)
	case EventUnblocked:
		err = s.applyUnblocked(e)
	case EventGuardOverridden:
		err = s.applyOverride(e, at)
	case EventArtifactRecorded:
		err = s.applyArtifact(e)
	case EventFieldSet:
		err = s.applyField(e)
	case EventTaskAdded, EventTaskStarted, EventTaskCompleted, EventTaskFailed:
		err = s.applyTask(e)
	case EventDecisionAcknowledged:
		err = s.applyAcknowledged(e)
	case EventReviewRecorded:
		err = s.applyReview(e, at)
	case EventFindingResolved:
		err = s.applyFindingResolved(def, e)
	case EventFindingsImported:
		err = s.applyFindingsImported(e)
	case EventValidationRecorded:
		var d ValidationData
		if err = decode(e, &d); err == nil {
			s.Validations = append(s.Validations, Validation(d))
		}
	case EventPlanApproved, EventPlanRejected:
		err = s.applyDecision(e, at)
	case EventCircuitOpened:
		var d CircuitData
		if err = decode(e, &d); err == nil {
			s.Circuit = &Circuit{Compound: d.Compound, Open: true, FixCycles: d.FixCycles, Limit: d.Limit}
		}
	case EventLoopSignalled:
		err = s.applySignal(e)
	case EventSynthesisRequested:
		s.SynthesisRequested = true
	case EventPRLinked, EventPRObserved, EventMergeVerified:
		err = s.applyPR(e)
	case EventPRMergeDecided:
		err = s.applyMergeDecided(e)
	case EventWorktreeCreated:
		err = s.applyWorktreeCreated(e)
	case EventCancelRequested:
		err = s.applyCancelRequested(def, e, at)
	case EventCompensationStep:
		err = s.applyCompensation(e)
	case EventToolCalled, EventBudgetExtended, EventGrantIssued, EventGrantConsumed, EventCompletionSubmitted:
		err = s.applyEnvelope(e, at)
	case EventCheckpointRecorded, EventHookCheckpoint:
		err = s.applyCheckpoint(e)
	case EventStageCompleted, EventStageFailed, EventStageCancelled:
		err = s.applyStage(def, e)
	}
	if err != nil {
		s.conflict(e, err.Error())
	}
}

// keyCollision describes a workflow.key-collided event for the conflict list.
func keyCollision(e Event) string {
	var d KeyCollidedData
	var lost Event
	if e.DecodeData(&d) != nil || json.Unmarshal(d.Event, &lost) != nil {
		return "two clones used one idempotency key for different events (malformed record)"
	}
	return fmt.Sprintf("two clones used idempotency key %q for different events: the one kept under the key came first in canonical order; this %s by %s (clock %d) was not applied and is kept here whole", d.Key, lost.Type, lost.Actor, lost.Clock)
}

func (s *State) conflict(e Event, reason string) {
	s.Conflicts = append(s.Conflicts, Conflict{Seq: e.Seq, ID: e.ID, Type: e.Type, Reason: reason})
}

// sameJSON compares two JSON values as compacted bytes (fields are stored compacted, keys sorted).
func sameJSON(a, b json.RawMessage) bool { return bytes.Equal(compact(a), compact(b)) }

func decode(e Event, v any) error {
	if err := e.DecodeData(v); err != nil {
		return fmt.Errorf("malformed payload: %v", err)
	}
	return nil
}

func (s *State) applyStarted(def *Definition, e Event, at int64) error {
	if s.Started() {
		return fmt.Errorf("the workflow was already started (as %s)", s.Type)
	}
	var d StartedData
	if err := decode(e, &d); err != nil {
		return err
	}
	if def == nil || def.Type != d.Type {
		return fmt.Errorf("unknown workflow type %q", d.Type)
	}
	s.Feature, s.Type, s.Branch, s.ForkPoint = d.Feature, d.Type, d.Branch, d.ForkPoint
	s.Phase, s.EnteredAt = def.Initial, at
	s.Fanout = def.startStages(s.Phase)
	s.Synthesis = firstOr(d.Synthesis, def.SynthesisPolicies)
	s.Completion = firstOr(d.Completion, def.CompletionPolicies)
	if def.Limits.MaxIterations > 0 {
		s.MaxIterations = d.MaxIterations
		if s.MaxIterations <= 0 {
			s.MaxIterations = def.Limits.MaxIterations
		}
	}
	return nil
}

func firstOr(v string, options []string) string {
	if v == "" && len(options) > 0 {
		return options[0]
	}
	return v
}

func (s *State) applyTransitioned(def *Definition, e Event, at int64) error {
	var d TransitionedData
	if err := decode(e, &d); err != nil {
		return err
	}
	if def.IsFinal(s.Phase) {
		return fmt.Errorf("transition %s → %s after the workflow ended in %s", d.From, d.To, s.Phase)
	}
	if d.From != s.Phase {
		return fmt.Errorf("transition %s → %s but the workflow is in %s", d.From, d.To, s.Phase)
	}
	t, ok := def.find(d.From, d.To)
	if !ok {
		return fmt.Errorf("no transition %s → %s in the %s definition", d.From, d.To, def.Type)
	}
	s.enter(def, t, at, d.Reason)
	s.EnteredHead = d.Head
	return nil
}

// enter moves to t.To: counts, restarts a compound's fix cycles on entry, clears per-visit state.
func (s *State) enter(def *Definition, t Transition, at int64, reason string) {
	from, to := s.Phase, t.To
	switch t.Counts {
	case Revisions:
		s.Revisions++
	case Retries:
		s.Retries++
	case Iterations:
		s.Iterations++
	case FixCycles:
		s.bumpFixCycles(def.compoundOf(from), 1)
	}
	fromC, toC := def.compoundOf(from), def.compoundOf(to)
	if toC != "" && toC != fromC {
		s.bumpFixCycles(toC, 0)
	}
	if s.Circuit != nil && s.Circuit.Compound != toC || toC != fromC {
		s.Circuit = nil
	}
	if to == "working" && def.Type == loopDefinition.Type {
		s.Loop.WorkerDone, s.Loop.ReviewerPass = false, false
	}
	s.Phase, s.EnteredAt, s.EnteredHead = to, at, ""
	s.Budget = Budget{} // turn caps count one stay
	s.Fanout = def.startStages(to)
	if def.IsFinal(to) && reason != "" {
		s.Reason = reason
	}
}

// bumpFixCycles adds n to a compound's count; n == 0 restarts it.
func (s *State) bumpFixCycles(compound string, n int) {
	if compound == "" {
		return
	}
	if s.FixCycles == nil {
		s.FixCycles = map[string]int{}
	}
	if n == 0 {
		s.FixCycles[compound] = 0
		return
	}
	s.FixCycles[compound] += n
}

func (s *State) applyCancelled(def *Definition, e Event, at int64) error {
	var d CancelledData
	if err := decode(e, &d); err != nil {
		return err
	}
	if def.IsFinal(s.Phase) {
		return fmt.Errorf("cancel after the workflow ended in %s", s.Phase)
	}
	// A cancel applies from whatever phase the merged log reached: the intent does not depend on it.
	to := def.CancelTarget()
	if p, ok := def.Phase(d.To); ok && p.Kind != Compound {
		to = d.To
	}
	s.Phase, s.EnteredAt, s.Circuit, s.Budget, s.Fanout = to, at, nil, Budget{}, nil
	if def.IsFinal(to) {
		s.Reason = d.Reason
	}
	return nil
}

func (s *State) applyUnblocked(e Event) error {
	var d UnblockedData
	if err := decode(e, &d); err != nil {
		return err
	}
	compound := d.Compound
	if s.Circuit != nil {
		compound = s.Circuit.Compound
	}
	if compound != "" {
		s.bumpFixCycles(compound, 0)
	}
	s.Circuit = nil
	return nil
}

func (s *State) applyOverride(e Event, at int64) error {
	var d OverrideData
	if err := decode(e, &d); err != nil {
		return err
	}
	if d.Guard == "" {
		return fmt.Errorf("override without a guard id")
	}
	if d.Phase == "" {
		d.Phase = s.Phase
	}
	s.Overrides = append(s.Overrides, Override{Guard: d.Guard, Reason: d.Reason, Actor: actorOf(d.Actor, e), Phase: d.Phase, At: at})
	return nil
}

// actorOf is who made a decision: the signer's principal when the signature was verified (the
// payload's actor comes from git config and proves nothing), else the payload's, else the event header's.
func actorOf(a string, e Event) string {
	if e.Verdict != nil && e.Verdict.OK && e.Verdict.Principal != "" {
		return e.Verdict.Principal
	}
	if a != "" {
		return a
	}
	return e.Actor
}

func (s *State) applyArtifact(e Event) error {
	var d ArtifactData
	if err := decode(e, &d); err != nil {
		return err
	}
	if d.Name == "" {
		return fmt.Errorf("artifact without a name")
	}
	if s.Artifacts == nil {
		s.Artifacts = map[string]Artifact{}
	}
	s.Artifacts[d.Name] = Artifact{Path: d.Path, Text: d.Text, Inline: d.Inline, Commit: d.Commit}
	return nil
}

func (s *State) applyField(e Event) error {
	var d FieldSetData
	if err := decode(e, &d); err != nil {
		return err
	}
	if !ValidPath(d.Path) {
		return fmt.Errorf("malformed field path %q", d.Path)
	}
	if len(d.Value) == 0 || !json.Valid(d.Value) {
		return fmt.Errorf("field %s: malformed JSON value", d.Path)
	}
	if d.Prev != nil {
		cur, ok := s.Field(d.Path)
		saw := ok == d.Prev.Set && (!ok || sameJSON(cur, d.Prev.Value))
		if !saw && !(ok && sameJSON(cur, d.Value)) {
			now := "unset"
			if ok {
				now = string(compact(cur))
			}
			return fmt.Errorf("field %s set to %s concurrently with %s: the first in canonical order (%s) is kept", d.Path, compact(d.Value), now, now)
		}
	}
	f, err := setPath(s.Fields, strings.Split(d.Path, "."), d.Value, true)
	if err != nil {
		return fmt.Errorf("field %s: %v", d.Path, err)
	}
	s.Fields = f
	if d.Path == "track" {
		var t string
		if json.Unmarshal(d.Value, &t) == nil {
			s.Track = t
		}
	}
	return nil
}

func (s *State) applyTask(e Event) error {
	var d TaskData
	if err := decode(e, &d); err != nil {
		return err
	}
	if d.ID == "" {
		return fmt.Errorf("task event without an id")
	}
	i := -1
	for j, t := range s.Tasks {
		if t.ID == d.ID {
			i = j
			break
		}
	}
	if e.Type == EventTaskAdded {
		if i >= 0 {
			return fmt.Errorf("task %s already exists", d.ID)
		}
		s.Tasks = append(s.Tasks, Task{ID: d.ID, Title: d.Title, Status: TaskPending, Start: d.Start})
		return nil
	}
	if i < 0 {
		return fmt.Errorf("no task %s", d.ID)
	}
	t := &s.Tasks[i]
	if finished := e.Type == EventTaskCompleted || e.Type == EventTaskFailed; finished && d.Was != "" && d.Was != t.Status {
		target := TaskCompleted
		if e.Type == EventTaskFailed {
			target = TaskFailed
		}
		if (t.Status == TaskCompleted || t.Status == TaskFailed) && t.Status != target {
			return fmt.Errorf("task %s was %s concurrently with this %s (decided when it was %s): the first in canonical order (%s) is kept", d.ID, t.Status, target, d.Was, t.Status)
		}
	}
	switch e.Type {
	case EventTaskStarted:
		t.Status = TaskInProgress
		if d.Start != "" {
			t.Start = d.Start
		}
	case EventTaskCompleted:
		t.Status, t.Reason = TaskCompleted, ""
		t.Session, t.Agent = d.Session, d.Agent
	case EventTaskFailed:
		t.Status, t.Reason = TaskFailed, d.Reason
	}
	if d.HeadSHA != "" {
		t.HeadSHA = d.HeadSHA
		s.recordTaskHead(d.ID, d.HeadSHA)
	}
	if d.Title != "" {
		t.Title = d.Title
	}
	return nil
}

func (s *State) applyReview(e Event, at int64) error {
	var d ReviewData
	if err := decode(e, &d); err != nil {
		return err
	}
	if d.Dimension == "" || (d.Verdict != VerdictPass && d.Verdict != VerdictFail) {
		return fmt.Errorf("review needs a dimension and a verdict pass|fail")
	}
	if err := s.applyFindings(d, actorOf(d.Actor, e), e.Seq); err != nil {
		return err
	}
	if s.Reviews == nil {
		s.Reviews = map[string]Review{}
	}
	s.Reviews[d.Dimension] = Review{Verdict: d.Verdict, Note: d.Note, Actor: actorOf(d.Actor, e), Commit: d.Commit, Session: d.Session, Human: d.Human, Agent: d.Agent, At: at}
	return nil
}

// Review verdicts.
const (
	VerdictPass = "pass"
	VerdictFail = "fail"
)

func (s *State) applyDecision(e Event, at int64) error {
	var d DecisionData
	if err := decode(e, &d); err != nil {
		return err
	}
	a := Approval{Phase: d.Phase, Note: d.Note, Gaps: d.Gaps, Actor: actorOf(d.Actor, e), At: at, Decision: "approved"}
	if e.Type == EventPlanRejected {
		a.Decision = "rejected"
	}
	if a.Phase == "" {
		a.Phase = s.Phase
	}
	s.Approvals = append(s.Approvals, a)
	return nil
}

// Loop signals.
const (
	SignalDone = "done"
	SignalPass = "pass"
	SignalFail = "fail"
	// SignalFailNow fails the loop at once; SignalError says an agent failed.
	SignalFailNow = "fail-now"
	SignalError   = "error"
)

func (s *State) applySignal(e Event) error {
	var d SignalData
	if err := decode(e, &d); err != nil {
		return err
	}
	switch d.Signal {
	case SignalDone:
		s.Loop.WorkerDone = true
	case SignalPass:
		s.Loop.ReviewerPass = true
	case SignalFail:
		s.Loop.ReviewerPass = false
	case SignalFailNow, SignalError: // they end the loop; the transition records why
	default:
		return fmt.Errorf("unknown loop signal %q", d.Signal)
	}
	s.Loop.Signals++
	return nil
}

func (s *State) applyPR(e Event) error {
	pr := PR{}
	if s.PR != nil {
		pr = *s.PR
	}
	switch e.Type {
	case EventPRLinked:
		var d PRLinkData
		if err := decode(e, &d); err != nil {
			return err
		}
		if pr.Number != d.Number || pr.URL != d.URL {
			pr = PR{} // another pull request: nothing observed or verified about it yet
		}
		pr.URL, pr.Number = d.URL, d.Number
		pr.Confirmed = pr.Confirmed || d.Confirmed
		if d.Confirmed {
			pr.Head, pr.Base, pr.HeadSHA = d.Head, d.Base, d.HeadSHA
		}
		s.linkPRResource(d.URL)
	case EventPRObserved:
		var d PRObservation
		if err := decode(e, &d); err != nil {
			return err
		}
		if d.URL == "" {
			d.URL = pr.URL
		}
		pr.PRObservation, pr.Observed = d, true
	case EventMergeVerified:
		var d MergeVerifiedData
		if err := decode(e, &d); err != nil {
			return err
		}
		pr.MergeVerified, pr.VerifiedBy, pr.Verification = true, d.Method, &d
	}
	s.PR = &pr
	return nil
}

// auditEventTypes are written by this version for the audit trail and deliberately not folded.
var auditEventTypes = map[string]bool{EventToolDenied: true, EventGuardFailed: true, EventHookCheckpoint: true, EventHookSessionEnded: true,
	EventHookTaskCompleted: true, EventHookSessionBound: true, EventHookJournalFlushed: true, EventToolCalled: true}
