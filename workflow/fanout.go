package workflow

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// Stage fan-out and join (issue 30, item 5; stud-cli's `{stages: [test, lint], parallel, join:
// review}`). A definition's Fanout names a phase whose stay runs several stages in parallel, each
// with its own envelope, and the phase it joins into. Every stage is running when the workflow
// enters the fan-out phase; each completes (`git exarchos stage done`, with its completion when it
// has a schema) or fails (`git exarchos stage fail`) on its own. A failure cancels the siblings
// still running, strictly: the cancellations are recorded in the same write, and a cancelled
// stage's later completion is refused (and, merged in from another clone, is a conflict). The
// transition into the join requires stages-completed: every stage completed in this visit.
// Leaving the fan-out phase another way and coming back runs every stage afresh.

// Stage events, folded into State.Fanout.
const (
	EventStageCompleted = "stage.completed"
	EventStageFailed    = "stage.failed"
	EventStageCancelled = "stage.cancelled"
)

func init() {
	for _, t := range []string{EventStageCompleted, EventStageFailed, EventStageCancelled} {
		engineEventTypes[t] = true
	}
}

// GuardStagesCompleted is added to a fan-out phase's transitions into its join.
const GuardStagesCompleted = "stages-completed"

// Stage statuses.
const (
	StageRunning   = "running"
	StageCompleted = "completed"
	StageFailed    = "failed"
	StageCancelled = "cancelled"
)

// Rejection codes of stage commands.
const (
	// CodeStageCancelled: the stage was cancelled when a sibling failed; nothing it hands in counts.
	CodeStageCancelled = "STAGE_CANCELLED"
	// CodeStageClosed: the stage already completed or failed in this visit.
	CodeStageClosed = "STAGE_CLOSED"
)

// Stage is one parallel stage of a fan-out: its own envelope (allowed tools, completion schema),
// as a phase has. A stage has no turn cap of its own: the hook cannot tell which running stage a
// tool call works for (see Definition.EnvelopeIn), so a cap belongs on the fan-out phase.
type Stage struct {
	ID          string   `json:"id"`
	Description string   `json:"description,omitempty"`
	Tools       Envelope `json:"tools,omitzero"`
}

// Fanout runs Stages in parallel while the workflow is in Phase, and joins into Join once they
// all completed.
type Fanout struct {
	Phase  string   `json:"phase"`
	Stages []string `json:"stages"`
	Join   string   `json:"join"`
}

// StageRun is the current visit's run of a fan-out: each stage's status.
type StageRun struct {
	Phase  string                 `json:"phase"`
	Stages map[string]StageStatus `json:"stages,omitempty"`
}

// StageStatus is one stage's status in a run.
type StageStatus struct {
	Status string `json:"status"`
	Reason string `json:"reason,omitempty"` // failed: why; cancelled: the sibling's failure
	Cause  string `json:"cause,omitempty"`  // cancelled: the stage whose failure cancelled it
	SHA256 string `json:"sha256,omitempty"` // completed: the completion handed in, if any
	Actor  string `json:"actor,omitempty"`
}

// StageData is the payload of the stage events.
type StageData struct {
	Phase   string `json:"phase"`
	Stage   string `json:"stage"`
	Reason  string `json:"reason,omitempty"`
	Cause   string `json:"cause,omitempty"`
	SHA256  string `json:"sha256,omitempty"`
	Actor   string `json:"actor,omitempty"`
	Session string `json:"session,omitempty"`
	Agent   string `json:"agent,omitempty"`
}

// CompleteStage completes a running stage (`git exarchos stage done`). Payload is its completion,
// validated by the caller against the stage's schema; required exactly when it has one.
type CompleteStage struct {
	Stage   string
	Payload json.RawMessage
	SHA256  string
}

// FailStage fails a running stage and cancels its running siblings (`git exarchos stage fail`).
type FailStage struct {
	Stage, Reason string
}

func (CompleteStage) command() {}
func (FailStage) command()     {}

// StageArtifact names the inline artifact a stage's completion is recorded as.
func StageArtifact(stage string) string { return "stage-" + stage }

// FanoutOf returns the fan-out run in phase, if the phase is one.
func (d *Definition) FanoutOf(phase string) (Fanout, bool) {
	if d == nil {
		return Fanout{}, false
	}
	for _, f := range d.Fanouts {
		if f.Phase == phase {
			return f, true
		}
	}
	return Fanout{}, false
}

// Stage returns the stage with the given id.
func (d *Definition) Stage(id string) (Stage, bool) {
	for _, s := range d.Stages {
		if s.ID == id {
			return s, true
		}
	}
	return Stage{}, false
}

// isJoin reports whether t is a fan-out phase's transition into its join.
func (d *Definition) isJoin(t Transition) bool {
	f, ok := d.FanoutOf(t.From)
	return ok && t.To == f.Join && t.TakenBy(OnTransition)
}

// JoinTransition is the transition a fan-out joins by (Parse adds it when the file does not).
func (f Fanout) JoinTransition() Transition {
	return Transition{From: f.Phase, To: f.Join, Guards: []string{GuardStagesCompleted}}
}

// startStages is the run a phase's entry starts: every stage running; nil for other phases.
func (d *Definition) startStages(phase string) *StageRun {
	if d == nil {
		return nil
	}
	f, ok := d.FanoutOf(phase)
	if !ok {
		return nil
	}
	run := &StageRun{Phase: phase, Stages: make(map[string]StageStatus, len(f.Stages))}
	for _, id := range f.Stages {
		run.Stages[id] = StageStatus{Status: StageRunning}
	}
	return run
}

// StageStatuses lists the stages of the fan-out the workflow is in, in definition order, with
// their status in this visit (nil outside a fan-out phase).
func (s State) StageStatuses(def *Definition) []NamedStageStatus {
	f, ok := def.FanoutOf(s.Phase)
	if !ok {
		return nil
	}
	out := make([]NamedStageStatus, 0, len(f.Stages))
	for _, id := range f.Stages {
		st := StageStatus{Status: StageRunning}
		if s.Fanout != nil && s.Fanout.Phase == s.Phase {
			if got, ok := s.Fanout.Stages[id]; ok {
				st = got
			}
		}
		out = append(out, NamedStageStatus{Stage: id, StageStatus: st})
	}
	return out
}

// NamedStageStatus is a stage's status with its id.
type NamedStageStatus struct {
	Stage string `json:"stage"`
	StageStatus
}

// failedStage returns the stage whose failure stopped the run, if one did.
func failedStage(sts []NamedStageStatus) (NamedStageStatus, bool) {
	i := slices.IndexFunc(sts, func(st NamedStageStatus) bool { return st.Status == StageFailed })
	if i < 0 {
		return NamedStageStatus{}, false
	}
	return sts[i], true
}

// EnvelopeIn is the envelope the hook applies to a tool call in state s. Outside a fan-out, or when
// none of its stages is running any more, it is the phase's own (PhaseEnvelope). While stages run it
// is the union of the running stages' envelopes — a call passes when one running stage allows it
// — with the phase's own refusals (Deny) and turn cap on top. A union, not a per-session or
// per-agent binding: nothing in a tool call says which stage it works for (one agent may run
// every stage, or subagents may run one each), so a binding would refuse calls a stage needs or
// rest on a claim the hook cannot check; as each stage completes, fails or is cancelled, its
// tools drop out of the union.
func (d *Definition) EnvelopeIn(s State) Envelope {
	own := d.PhaseEnvelope(s.Phase)
	sts := s.StageStatuses(d)
	var running []Envelope
	for _, st := range sts {
		if st.Status == StageRunning {
			stage, _ := d.Stage(st.Stage)
			running = append(running, stage.Tools)
		}
	}
	if len(running) == 0 {
		return own
	}
	u := unionEnvelope(running)
	u.Deny = append(u.Deny, slices.DeleteFunc(slices.Clone(own.Deny), func(t string) bool { return slices.Contains(u.Deny, t) })...)
	u.TurnCap = own.TurnCap
	return u
}

// RunningStages names the stages of the current fan-out still running.
func (s State) RunningStages(def *Definition) []string {
	var out []string
	for _, st := range s.StageStatuses(def) {
		if st.Status == StageRunning {
			out = append(out, st.Stage)
		}
	}
	return out
}

// unionEnvelope allows what any of envs allows: no allow-list when one of them has none, else
// every allow-list's rules; a tool refused only where all refuse it; no tools only when none has.
func unionEnvelope(envs []Envelope) Envelope {
	var u Envelope
	anyTools := false
	u.NoTools = true
	for i, e := range envs {
		if !e.NoTools {
			u.NoTools = false
			if len(e.AllowedTools) == 0 {
				anyTools = true
			}
		}
		for _, r := range e.AllowedTools {
			if !slices.Contains(u.AllowedTools, r) {
				u.AllowedTools = append(u.AllowedTools, r)
			}
		}
		for _, a := range e.ExceptArtifacts {
			if !slices.Contains(u.ExceptArtifacts, a) {
				u.ExceptArtifacts = append(u.ExceptArtifacts, a)
			}
		}
		if i == 0 {
			u.Deny = slices.Clone(e.Deny)
		} else {
			u.Deny = slices.DeleteFunc(u.Deny, func(t string) bool { return !e.Denies(t) })
		}
	}
	if u.NoTools || anyTools {
		u.AllowedTools = nil
	}
	if len(u.Deny) == 0 && len(u.AllowedTools) == 0 && !u.NoTools {
		u.ExceptArtifacts = nil
	}
	return u
}

// FanoutProblem is one way a definition's fan-outs are malformed: Fanout is the index of the
// fan-out (-1: about a stage declaration, Stage names it), Field the key at fault.
type FanoutProblem struct {
	Fanout  int
	Stage   string
	Field   string
	Message string
}

// FanoutProblems checks the stages and fan-outs: Validate refuses the first, lint reports them all
// at their lines.
func (d *Definition) FanoutProblems() []FanoutProblem {
	var ps []FanoutProblem
	add := func(i int, stage, field, format string, args ...any) {
		ps = append(ps, FanoutProblem{Fanout: i, Stage: stage, Field: field, Message: fmt.Sprintf(format, args...)})
	}
	declared, badID := map[string]bool{}, map[string]bool{}
	for _, st := range d.Stages {
		badID[st.ID] = true // one problem per stage id
		switch {
		case !ValidFeature(st.ID):
			add(-1, st.ID, "id", "stage %q: name it with lower case letters, digits, '.', '_' and '-'", st.ID)
		case declared[st.ID]:
			add(-1, st.ID, "id", "stage %s is declared twice", st.ID)
		case slices.ContainsFunc(d.Phases, func(p Phase) bool { return p.ID == st.ID }):
			add(-1, st.ID, "id", "stage %s has the id of a phase: give it a name of its own", st.ID)
		default:
			badID[st.ID] = false
		}
		declared[st.ID] = true
		if st.Tools.TurnCap != 0 {
			add(-1, st.ID, "turnCap", "stage %s: a stage has no turn cap of its own (the hook cannot tell which running stage a tool call is for); put turnCap on the fan-out phase", st.ID)
		}
		if st.Tools.NoTools && len(st.Tools.AllowedTools) > 0 {
			add(-1, st.ID, "allowedTools", "stage %s allows no tools and names allowed tools", st.ID)
		}
		if len(st.Tools.ExceptArtifacts) > 0 && len(st.Tools.Deny) == 0 && len(st.Tools.AllowedTools) == 0 && !st.Tools.NoTools {
			add(-1, st.ID, "exceptArtifacts", "stage %s: exceptArtifacts without deny or allowedTools excepts from nothing", st.ID)
		}
	}
	inFanout := map[string]string{} // stage → the phase whose fan-out runs it
	joinOf := map[string]string{}   // fan-out phase → join
	for i, f := range d.Fanouts {
		p, ok := d.Phase(f.Phase)
		switch {
		case f.Phase == "":
			add(i, "", "phase", "a fan-out without a phase: name the phase whose stay runs the stages (phase: …)")
		case !ok:
			add(i, "", "phase", "fan-out phase %q is not defined%s", f.Phase, DidYouMean(d.PhaseIDs(), f.Phase))
		case p.Kind != Normal:
			add(i, "", "phase", "fan-out phase %s is a %s phase: the stages run while the workflow sits in a normal phase", f.Phase, p.Kind)
		case joinOf[f.Phase] != "":
			add(i, "", "phase", "phase %s has two fan-outs: give it one, with every stage it runs", f.Phase)
		}
		if len(f.Stages) == 0 {
			add(i, "", "stages", "fan-out %s runs no stages: name at least one (stages: [<stage>, …])", f.Phase)
		}
		for _, id := range f.Stages {
			switch {
			case !declared[id]:
				add(i, "", "stages", "fan-out %s runs stage %q, which is not declared under stages:%s", f.Phase, id, DidYouMean(stageIDs(d.Stages), id))
			case inFanout[id] == f.Phase:
				add(i, "", "stages", "fan-out %s names stage %s twice", f.Phase, id)
			case inFanout[id] != "":
				add(i, "", "stages", "stage %s is in two fan-outs (%s and %s): a stage belongs to one; declare another stage", id, inFanout[id], f.Phase)
			}
			if inFanout[id] == "" {
				inFanout[id] = f.Phase
			}
		}
		jp, ok := d.Phase(f.Join)
		switch {
		case f.Join == "":
			add(i, "", "join", "fan-out %s joins nowhere: name the phase that waits for its stages (join: …)", f.Phase)
		case declared[f.Join] && !ok:
			add(i, "", "join", "fan-out %s joins into %s, which is a stage: join into a phase", f.Phase, f.Join)
		case !ok:
			add(i, "", "join", "fan-out %s joins into unknown phase %q%s", f.Phase, f.Join, DidYouMean(d.PhaseIDs(), f.Join))
		case f.Join == f.Phase:
			add(i, "", "join", "fan-out %s joins into itself: its stages would never be waited for; join into the phase after them", f.Phase)
		case jp.Kind == Compound:
			add(i, "", "join", "fan-out %s joins into compound %s: join into one of its phases (%s)", f.Phase, f.Join, jp.Initial)
		}
		if f.Phase != "" && joinOf[f.Phase] == "" {
			joinOf[f.Phase] = f.Join
		}
	}
	for _, st := range d.Stages {
		if declared[st.ID] && !badID[st.ID] && inFanout[st.ID] == "" {
			add(-1, st.ID, "id", "stage %s is in no fan-out: name it in one (fanouts: - {phase: …, stages: [%s], join: …}) or remove it", st.ID, st.ID)
		}
	}
	// A fan-out joining into a fan-out phase whose joins lead back: the stages would run in a
	// circle that no join ever leaves.
	inCycle := map[string]bool{}
	for i, f := range d.Fanouts {
		seen := []string{f.Phase}
		for cur := joinOf[f.Phase]; cur != "" && !inCycle[f.Phase]; cur = joinOf[cur] {
			if cur == f.Phase && len(seen) > 1 {
				add(i, "", "join", "the fan-outs join in a cycle (%s → %s): the last join must lead out of the fan-outs", strings.Join(seen, " → "), f.Phase)
				for _, p := range seen {
					inCycle[p] = true // reported once, at its first fan-out
				}
				break
			}
			if slices.Contains(seen, cur) {
				break
			}
			seen = append(seen, cur)
		}
	}
	return ps
}

func stageIDs(stages []Stage) []string {
	ids := make([]string, len(stages))
	for i, s := range stages {
		ids[i] = s.ID
	}
	return ids
}

// stage decides CompleteStage and FailStage.
func (d decider) stage(cmd Command) ([]NewEvent, *Rejection) {
	var id string
	switch c := cmd.(type) {
	case CompleteStage:
		id = c.Stage
	case FailStage:
		id = c.Stage
	}
	f, ok := d.def.FanoutOf(d.s.Phase)
	if !ok {
		where := ""
		for _, g := range d.def.Fanouts {
			if slices.Contains(g.Stages, id) {
				where = fmt.Sprintf(": stage %s runs in phase %s", id, g.Phase)
			}
		}
		return nil, d.withTargets(reject(CodeWrongPhase, "%s is in phase %s, which runs no stages%s", d.s.Feature, d.s.Phase, where))
	}
	if !slices.Contains(f.Stages, id) {
		return nil, d.withTargets(reject(CodeBadInput, "phase %s of %s runs the stages %s, not %q%s", f.Phase, d.s.Feature, strings.Join(f.Stages, ", "), id, DidYouMean(f.Stages, id)))
	}
	sts := d.s.StageStatuses(d.def)
	cur := sts[slices.IndexFunc(sts, func(st NamedStageStatus) bool { return st.Stage == id })]
	leave := fmt.Sprintf("leave %s another way (git exarchos transitions %s) to run its stages again on re-entry, or git exarchos cancel %s", f.Phase, d.s.Feature, d.s.Feature)
	switch cur.Status {
	case StageCancelled:
		return nil, d.withTargets(reject(CodeStageCancelled, "stage %s of %s was cancelled when stage %s failed (%s): a fan-out stops at its first failure, so nothing %s hands in counts; %s", id, d.s.Feature, cur.Cause, cur.Reason, id, leave))
	case StageCompleted, StageFailed:
		if c, ok := cmd.(CompleteStage); ok && cur.Status == StageCompleted && c.SHA256 == cur.SHA256 {
			// A retry (its answer lost) of the completion recorded: the same answer, nothing
			// recorded, as a transition retried into the phase it reached.
			return nil, nil
		}
		return nil, d.withTargets(reject(CodeStageClosed, "stage %s of %s already %s in this visit of %s", id, d.s.Feature, cur.Status, f.Phase))
	}
	stage, _ := d.def.Stage(id)
	caller := d.env.Caller
	switch c := cmd.(type) {
	case CompleteStage:
		schema := len(stage.Tools.Completion) > 0
		if schema && len(c.Payload) == 0 {
			return nil, reject(CodeBadInput, "stage %s has a completion schema: hand in its completion (git exarchos stage done %s %s --file <payload.json>)", id, d.s.Feature, id)
		}
		if !schema && len(c.Payload) > 0 {
			return nil, reject(CodeBadInput, "stage %s has no completion schema: there is nothing to hand in (git exarchos stage done %s %s)", id, d.s.Feature, id)
		}
		evs := one(EventStageCompleted, StageData{Phase: f.Phase, Stage: id, SHA256: c.SHA256, Actor: d.env.Actor, Session: caller.Session, Agent: caller.Agent})
		if schema {
			evs = append(evs, NewEvent{Type: EventArtifactRecorded, Data: ArtifactData{Name: StageArtifact(id), Text: string(c.Payload), Inline: true}})
		}
		return evs, nil
	case FailStage:
		if strings.TrimSpace(c.Reason) == "" {
			return nil, reject(CodeBadInput, "a stage fails with --reason: it is recorded, and its running siblings are cancelled with it")
		}
		evs := one(EventStageFailed, StageData{Phase: f.Phase, Stage: id, Reason: c.Reason, Actor: d.env.Actor, Session: caller.Session, Agent: caller.Agent})
		for _, st := range sts {
			if st.Stage != id && st.Status == StageRunning {
				evs = append(evs, NewEvent{Type: EventStageCancelled, Data: StageData{Phase: f.Phase, Stage: st.Stage, Cause: id, Reason: c.Reason, Actor: d.env.Actor}})
			}
		}
		return evs, nil
	}
	return nil, reject(CodeBadInput, "unknown command %T", cmd)
}

// applyStage folds a stage event into the current run; one that does not fit it (another phase,
// a stage no longer running, a completion after a failure) is a conflict.
func (s *State) applyStage(def *Definition, e Event) error {
	var d StageData
	if err := decode(e, &d); err != nil {
		return err
	}
	if d.Phase != s.Phase {
		return fmt.Errorf("stage %s of phase %s, but the workflow is in %s", d.Stage, d.Phase, s.Phase)
	}
	if s.Fanout == nil || s.Fanout.Phase != s.Phase {
		s.Fanout = def.startStages(s.Phase) // a run of a visit entered before this version
	}
	if s.Fanout == nil {
		return fmt.Errorf("stage %s: phase %s runs no stages", d.Stage, d.Phase)
	}
	cur, ok := s.Fanout.Stages[d.Stage]
	if !ok {
		return fmt.Errorf("phase %s runs no stage %s", d.Phase, d.Stage)
	}
	if cur.Status != StageRunning {
		return fmt.Errorf("stage %s is %s: %s is not applied", d.Stage, cur.Status, e.Type)
	}
	next := StageStatus{Actor: actorOf(d.Actor, e)}
	switch e.Type {
	case EventStageCompleted:
		if f, failed := failedStage(s.StageStatuses(def)); failed {
			return fmt.Errorf("stage %s completed after stage %s failed: the fan-out had stopped", d.Stage, f.Stage)
		}
		next.Status, next.SHA256 = StageCompleted, d.SHA256
	case EventStageFailed:
		next.Status, next.Reason = StageFailed, d.Reason
	case EventStageCancelled:
		next.Status, next.Reason, next.Cause = StageCancelled, d.Reason, d.Cause
	}
	s.Fanout.Stages[d.Stage] = next
	return nil
}

func (r *StageRun) clone() *StageRun {
	if r == nil {
		return nil
	}
	c := *r
	c.Stages = make(map[string]StageStatus, len(r.Stages))
	for k, v := range r.Stages {
		c.Stages[k] = v
	}
	return &c
}
