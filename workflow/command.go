package workflow

// Command is what a CLI call asks of a workflow. Decide turns it into events or a rejection.
// The concrete types below are the whole set.
type Command interface{ command() }

// Init starts a workflow. Synthesis (oneshot), Completion and MaxIterations (loop) are fixed for
// the workflow's life; empty or zero takes the definition's default.
type Init struct {
	Feature       string
	Type          string
	Branch        string
	Synthesis     string
	Completion    string
	MaxIterations int
	ForkPoint     string // the branch's merge-base with the base branch, computed by the caller
	// Replaces names the workflows the branch had before (the caller finds them); starting another
	// on it is a human's decision (Human), as it may drop the process the old one was in.
	Replaces []string
	Human    bool
}

// TransitionTo asks for a phase change (`git exarchos transition <feature> <phase>`). A compound
// phase as target means its initial child.
type TransitionTo struct{ Phase string }

// Set writes fields at dot paths. Two prefixes are not free-form: `artifacts.<name>` records an
// artifact (a path on the branch, or inline text when Inline is set) and `pr.url` links the pull
// request. `track` must be one of the definition's tracks.
type Set struct {
	Assignments []Assignment
	Inline      bool
	Commit      string // branch tip, stored with artifacts when known
}

// AddTask, StartTask, CompleteTask and FailTask manage the task board.
type (
	AddTask struct{ ID, Title string }
	// StartTask marks a task in progress.
	StartTask struct{ ID string }
	// CompleteTask marks a task completed at HeadSHA: the tip of its task branch, or of the
	// workflow's branch. Since is where the task's work starts when the caller knows better than
	// the task's recorded start (its worktree's base); the head must differ from it.
	CompleteTask struct{ ID, HeadSHA, Since string }
	// FailTask marks a task failed.
	FailTask struct{ ID, Reason string }
)

// RecordReview records a review verdict for one dimension (spec, quality, review, …).
type RecordReview struct {
	Dimension string
	Pass      bool
	Note      string
	// Commit is the branch tip judged (required); Session the hook's session id; Human a human's
	// decision (routed like approve).
	Commit  string
	Session string
	Human   bool
	// Findings are what the review found (findings.go). With Triage the verdict is not given but
	// follows from them: fail when one blocks under the definition, else pass.
	Findings []FindingInput
	Triage   bool
}

// RecordValidation records a validation command that was run on Commit.
type RecordValidation struct {
	Command    string
	ExitCode   int
	DurationMs int64
	Commit     string
	AdHoc      bool
	// Gate marks a run by the gates' runner, in a clean checkout of Commit (app/gate_runner.go):
	// the only run a quality gate counts. No command sets it from what a caller says.
	Gate bool
}

// Approve approves the plan in a plan-review phase (human only).
type Approve struct{ Note string }

// Reject sends the plan back with gaps and counts a revision (human only).
type Reject struct{ Gaps string }

// Unblock resets the circuit breaker, or leaves the blocked phase (human only).
type Unblock struct{ Reason string }

// Signal is a loop signal: done (worker), pass or fail (reviewer).
type Signal struct {
	Signal string
	Reason string // fail-now and error: why the loop fails
}

// RequestSynthesis asks a oneshot with the on-request policy to end with a pull request.
type RequestSynthesis struct{ Reason string }

// Cancel ends the workflow from any non-final phase.
type Cancel struct {
	Reason string
	// Human marks the cancel as a human's decision: required once the workflow is past its
	// planning phases (less process is the user's choice, never the agent's).
	Human bool
}

// Cleanup completes the workflow once the merge is verified (from any non-final phase).
type Cleanup struct{}

// RecordArtifact records a named artifact: a file path on the branch or inline text.
type RecordArtifact struct {
	Name   string
	Path   string
	Text   string
	Inline bool
	Commit string
}

// OverrideGuard makes a guard pass for the current visit of the current phase (human only).
type OverrideGuard struct{ Guard, Reason string }

// LinkPR records the pull request's URL, and what GitHub said about it when Confirmed.
type LinkPR = PRLinkData

// ObservePR records what GitHub said about the pull request.
type ObservePR struct{ PRObservation }

// VerifyMerge records that the work was merged (Method github or ancestry).
type VerifyMerge struct{ MergeVerifiedData }

func (Init) command()             {}
func (TransitionTo) command()     {}
func (Set) command()              {}
func (AddTask) command()          {}
func (StartTask) command()        {}
func (CompleteTask) command()     {}
func (FailTask) command()         {}
func (RecordReview) command()     {}
func (RecordValidation) command() {}
func (Approve) command()          {}
func (Reject) command()           {}
func (Unblock) command()          {}
func (Signal) command()           {}
func (RequestSynthesis) command() {}
func (Cancel) command()           {}
func (Cleanup) command()          {}
func (RecordArtifact) command()   {}
func (OverrideGuard) command()    {}
func (LinkPR) command()           {}
func (ObservePR) command()        {}
func (VerifyMerge) command()      {}
