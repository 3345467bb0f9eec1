package workflow

import (
	"encoding/json"
	"maps"
	"slices"
)

// State is the projection of a workflow's events: what `status` shows and what guards read.
// Its JSON is deterministic (maps marshal with sorted keys, no floats), so a snapshot written by
// one fold is byte-identical to the snapshot of any other fold of the same events.
type State struct {
	Feature string `json:"feature"`
	Type    string `json:"type"`
	Phase   string `json:"phase"`
	Branch  string `json:"branch"`
	// ForkPoint is the branch's merge-base with the base branch at init ("" for older workflows).
	ForkPoint string `json:"forkPoint,omitempty"`
	// EnteredAt is the event count when the current phase was entered: approvals and overrides
	// recorded since then belong to this visit of the phase.
	EnteredAt int64 `json:"enteredAt"`
	// EnteredHead is the branch tip the current phase was entered on ("" when not recorded).
	EnteredHead string `json:"enteredHead,omitempty"`
	// Reason says why the workflow ended (cancel reason, loop failure).
	Reason string `json:"reason,omitempty"`

	Track         string `json:"track,omitempty"`
	Synthesis     string `json:"synthesis,omitempty"`  // oneshot policy
	Completion    string `json:"completion,omitempty"` // loop policy
	MaxIterations int    `json:"maxIterations,omitempty"`

	Artifacts   map[string]Artifact `json:"artifacts"`
	Tasks       []Task              `json:"tasks"`
	Reviews     map[string]Review   `json:"reviews"`
	Findings    []Finding           `json:"findings,omitempty"` // open and closed, first reported first (findings.go)
	Validations []Validation        `json:"validations"`
	Approvals   []Approval          `json:"approvals"`
	Overrides   []Override          `json:"overrides"`
	// Fields is the free-form object written by `set` at dot paths.
	Fields json.RawMessage `json:"fields"`

	FixCycles  map[string]int `json:"fixCycles"` // per compound, restarted at each entry
	Circuit    *Circuit       `json:"circuit,omitempty"`
	Revisions  int            `json:"revisions"`
	Retries    int            `json:"retries"`
	Iterations int            `json:"iterations"`
	Loop       LoopSignals    `json:"loop"`

	SynthesisRequested bool `json:"synthesisRequested"`
	PR                 *PR  `json:"pr,omitempty"`
	// Checkpoint is the last checkpoint recorded (checkpoint.go).
	Checkpoint *Checkpoint `json:"checkpoint,omitempty"`
	// Fanout is the current visit's run of a fan-out phase's stages (fanout.go).
	Fanout *StageRun `json:"fanout,omitempty"`

	// Resources are what the workflow created (worktrees, branches, PRs), in creation order;
	// Cancel is set once a cancel was requested (see saga.go).
	Resources []Resource    `json:"resources"`
	Cancel    *Cancellation `json:"cancel,omitempty"`

	// Budget counts the tool calls of the current stay in the phase (envelope turn caps); Grants
	// are the one-shot grants not yet consumed; Submissions the completions submitted, per phase.
	Budget      Budget                `json:"budget,omitzero"`
	Grants      []Grant               `json:"grants,omitempty"`
	Submissions map[string]Submission `json:"submissions,omitempty"`

	Conflicts []Conflict `json:"conflicts"`
	// Refused are human decisions given no effect in signed mode (signature.go).
	Refused   []Refused `json:"refused,omitempty"`
	Events    int64     `json:"events"`  // every event folded, custom ones included
	Ignored   int64     `json:"ignored"` // custom or unknown event types (not the engine's own audit events)
	LastSeq   int64     `json:"lastSeq"`
	LastClock uint64    `json:"lastClock"`
}

// Artifact is a named document: a path to a file on the workflow's branch, or inline text.
type Artifact struct {
	Path   string `json:"path,omitempty"`
	Text   string `json:"text,omitempty"`
	Inline bool   `json:"inline"`
	Commit string `json:"commit,omitempty"`
}

// Task statuses.
const (
	TaskPending    = "pending"
	TaskInProgress = "in_progress"
	TaskCompleted  = "completed"
	TaskFailed     = "failed"
)

// Task is one unit of delegated work.
type Task struct {
	ID      string `json:"id"`
	Title   string `json:"title"`
	Status  string `json:"status"`
	HeadSHA string `json:"headSha,omitempty"`
	Reason  string `json:"reason,omitempty"`
	// Start is where the task's work starts (the branch tip when it was added or started);
	// Session and Agent who completed it, that is who recorded the work (Caller).
	Start   string `json:"start,omitempty"`
	Session string `json:"session,omitempty"`
	Agent   string `json:"agent,omitempty"`
}

// Review is the latest verdict for one review dimension.
type Review struct {
	Verdict string `json:"verdict"` // pass | fail
	Note    string `json:"note,omitempty"`
	Actor   string `json:"actor,omitempty"`
	Commit  string `json:"commit,omitempty"`  // the branch tip judged
	Session string `json:"session,omitempty"` // the agent session, through the hook
	Human   bool   `json:"human,omitempty"`   // a human's decision
	Agent   string `json:"agent,omitempty"`   // the subagent it came through, if any
	At      int64  `json:"at"`                // event count before the verdict: its visit
}

// Validation is one recorded run of a validation command.
type Validation struct {
	Command    string `json:"command"`
	ExitCode   int    `json:"exitCode"`
	DurationMs int64  `json:"durationMs"`
	Commit     string `json:"commit"`
	AdHoc      bool   `json:"adHoc,omitempty"`
	Gate       bool   `json:"gate,omitempty"` // run by the gates' runner in a clean checkout
}

// Approval is a human decision on a plan: approved (Note) or rejected (Gaps).
type Approval struct {
	Phase    string `json:"phase"`
	Decision string `json:"decision"` // approved | rejected
	Note     string `json:"note,omitempty"`
	Gaps     string `json:"gaps,omitempty"`
	Actor    string `json:"actor"`
	At       int64  `json:"at"` // event count before this event
}

// OpenGaps returns the latest plan decision when it sent the plan back: the gaps the plan still
// has to answer until a later approval.
func (s State) OpenGaps() (Approval, bool) {
	if n := len(s.Approvals); n > 0 && s.Approvals[n-1].Decision == "rejected" {
		return s.Approvals[n-1], true
	}
	return Approval{}, false
}

// Override is a human decision that a guard passes in one visit of one phase.
type Override struct {
	Guard  string `json:"guard"`
	Reason string `json:"reason"`
	Actor  string `json:"actor"`
	Phase  string `json:"phase"`
	At     int64  `json:"at"`
}

// Circuit is the fix-cycle circuit breaker of the compound the workflow is in, once tripped.
type Circuit struct {
	Compound  string `json:"compound"`
	Open      bool   `json:"open"`
	FixCycles int    `json:"fixCycles"`
	Limit     int    `json:"limit"`
}

// LoopSignals are the loop's signals in the current iteration, and how many were given in all.
type LoopSignals struct {
	WorkerDone   bool `json:"workerDone"`
	ReviewerPass bool `json:"reviewerPass"`
	Signals      int  `json:"signals"`
}

// PR is what is known about the workflow's pull request: linked by URL, observed on GitHub,
// merge verified.
type PR struct {
	PRObservation
	// Confirmed: GitHub was asked and said this pull request exists (pr link, pr find).
	Confirmed     bool   `json:"confirmed,omitempty"`
	Observed      bool   `json:"observed"`
	MergeVerified bool   `json:"mergeVerified"`
	VerifiedBy    string `json:"verifiedBy,omitempty"` // github | ancestry
	// Verification is the evidence of the last merge.verified event.
	Verification *MergeVerifiedData `json:"verification,omitempty"`
	// MergeDecision is the user's decision to merge it (pr merge), when one is in effect.
	MergeDecision *MergeDecision `json:"mergeDecision,omitempty"`
}

// Conflict is an event the fold could not apply where it stands in the log (e.g. a transition
// whose `from` is no longer the current phase after two logs merged). It stays in the log.
type Conflict struct {
	Seq    int64  `json:"seq"`
	ID     string `json:"id"`
	Type   string `json:"type"`
	Reason string `json:"reason"`
}

// Started reports whether a workflow.started event has been folded.
func (s State) Started() bool { return s.Type != "" }

// Task returns the task with the given id.
func (s State) Task(id string) (Task, bool) {
	for _, t := range s.Tasks {
		if t.ID == id {
			return t, true
		}
	}
	return Task{}, false
}

// Clone returns a deep copy: Apply works on the copy so callers may fold the same state twice.
func (s State) Clone() State {
	c := s
	c.Artifacts = maps.Clone(s.Artifacts)
	c.Tasks = slices.Clone(s.Tasks)
	c.Reviews = maps.Clone(s.Reviews)
	c.Findings = slices.Clone(s.Findings) // Closed is replaced, never written through
	c.Validations = slices.Clone(s.Validations)
	c.Approvals = slices.Clone(s.Approvals)
	c.Overrides = slices.Clone(s.Overrides)
	c.Fields = slices.Clone(s.Fields)
	c.FixCycles = maps.Clone(s.FixCycles)
	c.Conflicts = slices.Clone(s.Conflicts)
	c.Refused = slices.Clone(s.Refused)
	c.Grants = slices.Clone(s.Grants)
	c.Submissions = maps.Clone(s.Submissions)
	c.Resources = cloneResources(s.Resources)
	if s.Cancel != nil {
		cc := *s.Cancel
		c.Cancel = &cc
	}
	if s.Circuit != nil {
		cc := *s.Circuit
		c.Circuit = &cc
	}
	if s.Checkpoint != nil {
		cp := *s.Checkpoint
		c.Checkpoint = &cp
	}
	c.Fanout = s.Fanout.clone()
	if s.PR != nil {
		pr := *s.PR
		pr.Failing = slices.Clone(pr.Failing)
		if pr.Verification != nil {
			v := *pr.Verification
			pr.Verification = &v
		}
		c.PR = &pr
	}
	return c
}
