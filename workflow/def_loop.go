package workflow

// loopDefinition: a worker and a reviewer alternate until the completion policy is met or the
// iteration limit is reached. Signals are explicit commands (git exarchos loop done|pass|fail).
// Each entry into working starts an iteration; when the reviewer sends the work back after the
// last allowed iteration, the loop fails instead.
var loopDefinition = Definition{
	Type:        "loop",
	Description: "A worker and a reviewer iterate until the completion policy is met (reviewer-pass, worker-done, both or any) or the iteration limit, a fail-now signal or an agent error fails the loop.",
	Initial:     "init",
	Phases: []Phase{
		{ID: "init", Kind: Normal},
		{ID: "working", Kind: Normal, Description: "the worker iterates; `loop done` hands over"},
		{ID: "reviewing", Kind: Normal, Description: "the reviewer signals `loop pass` or `loop fail`"},
		{ID: "complete", Kind: Final},
		{ID: "failed", Kind: Final},
		{ID: "cancelling", Kind: Normal, Description: "cancel in progress: undoing what the workflow created (git exarchos cancel resumes it)"},
		{ID: "cancelled", Kind: Final},
	},
	Transitions: []Transition{
		{From: "init", To: "working", Counts: Iterations},
		{From: "init", To: "failed", On: []Trigger{OnLoopError}, Note: "the agents failed to start"},
		{From: "working", To: "failed", On: []Trigger{OnLoopError}, Note: "an agent failed"},
		{From: "working", To: "failed", On: []Trigger{OnLoopFailNow}, Note: "failed now"},
		{From: "reviewing", To: "failed", On: []Trigger{OnLoopFailNow}, Note: "failed now"},
		{From: "working", To: "complete", On: []Trigger{OnLoopDone}, Guards: []string{"loop-policy-satisfied"}, Note: "worker-done policy"},
		{From: "working", To: "reviewing", On: []Trigger{OnTransition, OnLoopDone}},
		{From: "reviewing", To: "complete", On: []Trigger{OnLoopPass}, Guards: []string{"loop-policy-satisfied"}},
		{From: "reviewing", To: "working", On: []Trigger{OnLoopFail, OnLoopPass}, Counts: Iterations, Note: "next iteration"},
		{From: "reviewing", To: "failed", On: []Trigger{OnLoopFail, OnLoopPass}, WhenExhausted: Iterations, Note: "iteration limit reached"},
		{From: AnyPhase, To: "cancelling", On: []Trigger{OnCancel}, Note: "record the cancel, then compensate"},
		{From: "cancelling", To: "cancelled", On: []Trigger{OnCancel}, Note: "every resource compensated"},
		{From: AnyPhase, To: "complete", On: []Trigger{OnTransition, OnCleanup}, Guards: []string{"merge-verified"}, Note: "cleanup once merged"},
	},
	// any: the worker's done or the reviewer's pass completes (agentpair's default).
	CompletionPolicies: []string{"reviewer-pass", "worker-done", "both", "any"},
	Limits:             Limits{MaxIterations: 20},
}
