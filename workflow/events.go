package workflow

import (
	"encoding/json"
	"strings"
)

// Engine event types. The fold understands these; every other type is a custom event, kept in the
// log, counted and otherwise ignored.
const (
	EventStarted            = "workflow.started"
	EventTransitioned       = "workflow.transitioned"
	EventCancelled          = "workflow.cancelled"
	EventUnblocked          = "workflow.unblocked"
	EventGuardOverridden    = "guard.overridden"
	EventArtifactRecorded   = "artifact.recorded"
	EventFieldSet           = "field.set"
	EventTaskAdded          = "task.added"
	EventTaskStarted        = "task.started"
	EventTaskCompleted      = "task.completed"
	EventTaskFailed         = "task.failed"
	EventReviewRecorded     = "review.recorded"
	EventValidationRecorded = "validation.recorded"
	EventPlanApproved       = "plan.approved"
	EventPlanRejected       = "plan.rejected"
	EventCircuitOpened      = "circuit.opened"
	EventLoopSignalled      = "loop.signalled"
	EventSynthesisRequested = "synthesize.requested"
	EventPRLinked           = "pr.linked"
	EventPRObserved         = "pr.observed"
	EventMergeVerified      = "merge.verified"
	// EventKeyCollided is written by a merge, never by a command: two clones stored different
	// events under one idempotency key. The log keeps one under the key (the first in canonical
	// order) and this event carries the other whole; the fold records it as a conflict.
	EventKeyCollided = "workflow.key-collided"
)

// KeyCollidedData is the payload of workflow.key-collided.
type KeyCollidedData struct {
	Key   string          `json:"key"`
	Event json.RawMessage `json:"event"` // the event that was not kept under the key, as stored
}

// ReservedPrefix is owned by the engine: no custom event type may start with it.
const ReservedPrefix = "workflow."

var engineEventTypes = map[string]bool{
	EventKeyCollided: true, EventCheckpointRecorded: true, EventHookCheckpoint: true,
	EventStarted: true, EventTransitioned: true, EventCancelled: true, EventUnblocked: true,
	EventGuardOverridden: true, EventArtifactRecorded: true, EventFieldSet: true,
	EventTaskAdded: true, EventTaskStarted: true, EventTaskCompleted: true, EventTaskFailed: true,
	EventReviewRecorded: true, EventValidationRecorded: true, EventPlanApproved: true,
	EventPlanRejected: true, EventCircuitOpened: true, EventLoopSignalled: true,
	EventSynthesisRequested: true, EventPRLinked: true, EventPRObserved: true, EventMergeVerified: true,
	EventWorktreeCreated: true, EventCancelRequested: true, EventCompensationStep: true,
	EventDecisionAcknowledged: true, EventFindingResolved: true, EventFindingsImported: true,
	EventPRMergeDecided: true,
}

// IsReservedEventType reports whether t belongs to the engine (the `workflow.` prefix or one of
// its event types). `git exarchos event` must refuse these: they would bypass Decide.
// synthesize.requested is the one exception: issue 3 defines the oneshot on-request policy as
// "a synthesize.requested event exists", so users may append it with `git exarchos event`; it
// carries no invariant (the synthesis guards still read the policy fixed at init).
func IsReservedEventType(t string) bool {
	if t == EventSynthesisRequested {
		return false
	}
	return strings.HasPrefix(t, ReservedPrefix) || engineEventTypes[t] || t == EventToolDenied || t == EventGuardFailed || t == EventHookJournalFlushed
}

// EventTypes lists the engine's event types.
func EventTypes() []string {
	return []string{
		EventStarted, EventTransitioned, EventCancelled, EventUnblocked, EventGuardOverridden,
		EventArtifactRecorded, EventFieldSet, EventTaskAdded, EventTaskStarted, EventTaskCompleted,
		EventTaskFailed, EventReviewRecorded, EventValidationRecorded, EventPlanApproved,
		EventPlanRejected, EventCircuitOpened, EventLoopSignalled, EventSynthesisRequested,
		EventPRLinked, EventPRObserved, EventMergeVerified,
		EventWorktreeCreated, EventCancelRequested, EventCompensationStep,
		EventToolCalled, EventGrantIssued, EventGrantConsumed, EventBudgetExtended, EventCompletionSubmitted,
		EventKeyCollided, EventDecisionAcknowledged, EventCheckpointRecorded, EventHookCheckpoint,
		EventFindingResolved, EventFindingsImported, EventPRMergeDecided,
	}
}

// Hook event types: what the Claude Code hooks record for the audit trail and for the next session
// to rehydrate from. They are custom events (kept, counted, not folded: they describe sessions),
// except hook.checkpoint, which the fold takes as a checkpoint (checkpoint.go) since issue 30.
const (
	EventHookCheckpoint    = "hook.checkpoint"     // before the context is compacted
	EventHookSessionEnded  = "hook.session-ended"  // a Claude Code session ended
	EventHookTaskCompleted = "hook.task-completed" // Claude Code marked one of its own tasks done
	EventHookSessionBound  = "hook.session-bound"  // a Claude Code session took this workflow as the one it works on
	// EventHookJournalFlushed is written with the hook's journaled denials: the range of journal
	// sequence numbers the flush covered and those it did not find (the journal was deleted or
	// edited). Reserved: only the flush writes it.
	EventHookJournalFlushed = "hook.journal-flushed"
)

// JournalFlushedData is the payload of hook.journal-flushed. Journal lines are numbered 1, 2, …
// by a counter next to the journal; each flush covers From..To (From is one past the last seq
// the previous flush covered) and lists the numbers in that range it found no line for. FirstID
// is the event id of the line numbered From: a flush that starts behind what the log covers is a
// flush redone after a crash, or one that lost a race with another, when that line's event is
// already in the log, and a counter that was reset when it is not.
type JournalFlushedData struct {
	From    uint64      `json:"from"`
	To      uint64      `json:"to"`
	Missing [][2]uint64 `json:"missing,omitempty"` // inclusive ranges
	FirstID string      `json:"firstId,omitempty"`
}

// SessionBoundData is the payload of hook.session-bound: from this call on, the session's tool
// calls are judged by this workflow's policy, whatever branch, directory or worktree they report.
type SessionBoundData struct {
	SessionID string `json:"sessionId"`
	Phase     string `json:"phase"`
	Branch    string `json:"branch,omitempty"`
	Cwd       string `json:"cwd,omitempty"`
}

// CheckpointData is the payload of hook.checkpoint: where the workflow stood when the session's
// context was compacted.
type CheckpointData struct {
	Phase     string `json:"phase"`
	OpenTasks []Task `json:"openTasks"` // tasks neither completed nor failed
	SessionID string `json:"sessionId,omitempty"`
	Trigger   string `json:"trigger,omitempty"` // manual | auto (PreCompact), command (git exarchos checkpoint)
	// Note and Context: checkpoint.recorded only — the agent's note and the rehydrate document.
	Note    string `json:"note,omitempty"`
	Context string `json:"context,omitempty"`
}

// SessionEndedData is the payload of hook.session-ended.
type SessionEndedData struct {
	Phase     string `json:"phase"`
	SessionID string `json:"sessionId,omitempty"`
	Reason    string `json:"reason,omitempty"`
}

// HookTaskData is the payload of hook.task-completed.
type HookTaskData struct {
	Phase       string `json:"phase"`
	SessionID   string `json:"sessionId,omitempty"`
	TaskID      string `json:"taskId,omitempty"`
	Subject     string `json:"subject,omitempty"`
	Description string `json:"description,omitempty"`
	Teammate    string `json:"teammate,omitempty"`
}

// Payloads of the engine events (the Data of NewEvent and Event).

// StartedData is the payload of workflow.started: the workflow's identity and its fixed policies.
type StartedData struct {
	Feature       string `json:"feature"`
	Type          string `json:"type"`
	Branch        string `json:"branch"`
	Phase         string `json:"phase"`
	Synthesis     string `json:"synthesis,omitempty"`
	Completion    string `json:"completion,omitempty"`
	MaxIterations int    `json:"maxIterations,omitempty"`
	// ForkPoint is the branch's merge-base with the base branch when the workflow started: the
	// commits after it are the workflow's own.
	ForkPoint string `json:"forkPoint,omitempty"`
	// Replaces are the workflows the branch had before; Human marks starting this one on it as a
	// human's decision.
	Replaces   []string `json:"replaces,omitempty"`
	Human      bool     `json:"human,omitempty"`
	Definition string   `json:"definition,omitempty"` // Definition.ID the workflow was started under
}

// TransitionedData is the payload of workflow.transitioned.
type TransitionedData struct {
	From       string   `json:"from"`
	To         string   `json:"to"`
	Trigger    Trigger  `json:"trigger,omitempty"`
	Guards     []string `json:"guards,omitempty"`     // guards that passed at decision time
	Overridden []string `json:"overridden,omitempty"` // guards that passed by a human override
	Reason     string   `json:"reason,omitempty"`
	// Definition is the ID of the definition the transition was decided under, and Limits the
	// limits in force then (the rules read from the base branch).
	Definition string           `json:"definition,omitempty"`
	Limits     *EffectiveLimits `json:"limits,omitempty"`
	// Head is the branch tip the transition was decided on: the phase entered starts there, so
	// what it changed is measured from it (the delegate phase's work, verify's paths per phase).
	Head string `json:"head,omitempty"`
}

// CancelledData is the payload of workflow.cancelled.
type CancelledData struct {
	From   string `json:"from"`
	To     string `json:"to"`
	Reason string `json:"reason,omitempty"`
	Actor  string `json:"actor,omitempty"`
	// Definition is the ID of the definition the cancel was decided under.
	Definition string `json:"definition,omitempty"`
}

// UnblockedData is the payload of workflow.unblocked; it resets the circuit breaker.
type UnblockedData struct {
	Reason   string `json:"reason"`
	Actor    string `json:"actor"`
	Phase    string `json:"phase"`
	Compound string `json:"compound,omitempty"`
}

// OverrideData is the payload of guard.overridden.
type OverrideData struct {
	Guard  string `json:"guard"`
	Reason string `json:"reason"`
	Actor  string `json:"actor"`
	Phase  string `json:"phase"`
}

// ArtifactData is the payload of artifact.recorded.
type ArtifactData struct {
	Name   string `json:"name"`
	Path   string `json:"path,omitempty"`
	Text   string `json:"text,omitempty"`
	Inline bool   `json:"inline,omitempty"`
	Commit string `json:"commit,omitempty"` // branch tip when recorded, if the caller knows it
}

// FieldSetData is the payload of field.set.
type FieldSetData struct {
	Path  string          `json:"path"`
	Value json.RawMessage `json:"value"`
	// Prev is the value the writer saw at Path when it decided (nil in events written before it
	// existed). After two logs merge, a set whose Prev no longer matches was concurrent with another
	// set of the same path: the fold keeps the first and records the second as a conflict.
	Prev *FieldPrev `json:"prev,omitempty"`
}

// FieldPrev is what a field.set's writer saw at the path: a value, or nothing (Set false).
type FieldPrev struct {
	Set   bool            `json:"set"`
	Value json.RawMessage `json:"value,omitempty"`
}

// TaskData is the payload of task.added, task.started, task.completed and task.failed.
type TaskData struct {
	ID      string `json:"id"`
	Title   string `json:"title,omitempty"`
	HeadSHA string `json:"headSha,omitempty"`
	Reason  string `json:"reason,omitempty"`
	// Was is the task's status as the writer saw it (task.completed and task.failed). After a
	// merge, a completion and a failure decided concurrently from the same status conflict: the
	// first in canonical order wins and the other is recorded.
	Was string `json:"was,omitempty"`
	// Start is the branch tip when the task was added or started: without a worktree, its work
	// is the commits after it.
	Start string `json:"start,omitempty"`
	// Gates are the definition's task gates a task.completed was decided under: each had a
	// passing run recorded on HeadSHA (verify checks the claim against the runs).
	Gates []string `json:"gates,omitempty"`
	// Session and Agent are who recorded the event, as the client reports it (Caller).
	Session   string `json:"session,omitempty"`
	Agent     string `json:"agent,omitempty"`
	AgentType string `json:"agentType,omitempty"`
}

// ReviewData is the payload of review.recorded.
type ReviewData struct {
	Dimension string `json:"dimension"`
	Verdict   string `json:"verdict"` // pass | fail
	Note      string `json:"note,omitempty"`
	Actor     string `json:"actor,omitempty"`
	// Commit is the branch tip the verdict judged; Session the agent session it came through (the
	// hook); Human marks a human's decision (review --human), which the sign path signs.
	Commit  string `json:"commit,omitempty"`
	Session string `json:"session,omitempty"`
	Human   bool   `json:"human,omitempty"`
	// Agent is the subagent the verdict came through, when the client reports one (Caller).
	Agent     string `json:"agent,omitempty"`
	AgentType string `json:"agentType,omitempty"`
	// Findings are what the review found (findings.go), each with its id.
	Findings []FindingData `json:"findings,omitempty"`
}

// ValidationData is the payload of validation.recorded.
type ValidationData struct {
	Command    string `json:"command"`
	ExitCode   int    `json:"exitCode"`
	DurationMs int64  `json:"durationMs"`
	Commit     string `json:"commit"`
	// AdHoc marks a command the definition does not declare: recorded, never satisfying a guard.
	AdHoc bool `json:"adHoc,omitempty"`
	// Gate marks a quality gate's run in a clean checkout of Commit; `validate` (which runs in
	// the worktree, untracked and ignored files included) never writes it.
	Gate bool `json:"gate,omitempty"`
}

// DecisionData is the payload of plan.approved (Note) and plan.rejected (Gaps).
type DecisionData struct {
	Phase string `json:"phase"`
	Note  string `json:"note,omitempty"`
	Gaps  string `json:"gaps,omitempty"`
	Actor string `json:"actor"`
}

// CircuitData is the payload of circuit.opened.
type CircuitData struct {
	Compound  string `json:"compound"`
	FixCycles int    `json:"fixCycles"`
	Limit     int    `json:"limit"`
	// Definition is the ID of the definition whose limit tripped the breaker.
	Definition string `json:"definition,omitempty"`
}

// SignalData is the payload of loop.signalled.
type SignalData struct {
	Signal    string `json:"signal"` // done | pass | fail | fail-now | error
	Iteration int    `json:"iteration"`
	Actor     string `json:"actor,omitempty"`
	Reason    string `json:"reason,omitempty"`
}

// SynthesisRequestData is the payload of synthesize.requested.
type SynthesisRequestData struct {
	Reason string `json:"reason,omitempty"`
	Actor  string `json:"actor,omitempty"`
}

// PRLinkData is the payload of pr.linked.
// Head, Base and HeadSHA are what GitHub said when the link was made; Confirmed is set only by a
// command that read the pull request from GitHub (pr link, pr find), never by `set pr.url=`.
type PRLinkData struct {
	URL       string `json:"url"`
	Number    int    `json:"number,omitempty"`
	Head      string `json:"head,omitempty"`
	Base      string `json:"base,omitempty"`
	HeadSHA   string `json:"headSha,omitempty"`
	Confirmed bool   `json:"confirmed,omitempty"`
}

// PRObservation is the payload of pr.observed: what GitHub said about the pull request, and when
// (ObservedAt is the caller's clock, RFC 3339).
type PRObservation struct {
	Number         int      `json:"number"`
	URL            string   `json:"url"`
	Head           string   `json:"head,omitempty"`
	Base           string   `json:"base,omitempty"`
	HeadSHA        string   `json:"headSha,omitempty"`
	State          string   `json:"state,omitempty"` // open | closed
	Merged         bool     `json:"merged"`
	MergedAt       string   `json:"mergedAt,omitempty"`
	MergeCommitSHA string   `json:"mergeCommitSha,omitempty"`
	Checks         string   `json:"checks,omitempty"`         // success | failure | pending | none
	Failing        []string `json:"failing,omitempty"`        // names of failing checks and statuses
	ReviewDecision string   `json:"reviewDecision,omitempty"` // APPROVED | CHANGES_REQUESTED | REVIEW_REQUIRED | ""
	// Author is the login that opened the pull request; Reviews its verdicts (APPROVED,
	// CHANGES_REQUESTED, DISMISSED; comments left out) in the order GitHub lists them, oldest first.
	Author     string     `json:"author,omitempty"`
	Reviews    []PRReview `json:"reviews,omitempty"`
	UpdatedAt  string     `json:"updatedAt,omitempty"` // GitHub's updated_at of the pull request
	ObservedAt string     `json:"observedAt,omitempty"`
}

// PRReview is one pull request review as GitHub lists it: who gave it, its state, and the commit
// the pull request's head was when it was submitted.
type PRReview struct {
	Reviewer    string `json:"reviewer"`
	State       string `json:"state"` // APPROVED | CHANGES_REQUESTED | DISMISSED
	Commit      string `json:"commit,omitempty"`
	SubmittedAt string `json:"submittedAt,omitempty"`
}

// SameAs reports whether two observations say the same thing, ignoring when they were made.
func (o PRObservation) SameAs(p PRObservation) bool {
	o.ObservedAt, p.ObservedAt = "", ""
	a, errA := json.Marshal(o)
	b, errB := json.Marshal(p)
	return errA == nil && errB == nil && string(a) == string(b)
}

// MergeVerifiedData is the payload of merge.verified.
// HeadSHA is the branch content that was found merged: the merge-verified guard passes only while
// the branch tip is that commit or an ancestor of it (no local change after the evidence).
type MergeVerifiedData struct {
	Method     string `json:"method"`           // github | ancestry
	Commit     string `json:"commit,omitempty"` // github: the merge commit; ancestry: the base tip that contains the head
	Base       string `json:"base,omitempty"`   // github: the base branch; ancestry: <remote>/<base>
	HeadSHA    string `json:"headSha,omitempty"`
	ObservedAt string `json:"observedAt,omitempty"` // github: the observation's time
	Note       string `json:"note,omitempty"`
	APIHost    string `json:"apiHost,omitempty"` // github: the API host that answered
}
