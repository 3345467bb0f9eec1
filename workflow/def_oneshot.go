package workflow

// oneshotDefinition: plan, implement, done — with synthesis only when the policy fixed at init
// asks for it. The two guards are complementary, so exactly one exit of implementing is open.
var oneshotDefinition = Definition{
	Type:        "oneshot",
	Description: "A small change: plan, implement, then complete directly or through a pull request, as the synthesis policy says.",
	Initial:     "plan",
	Phases: []Phase{
		{ID: "plan", Kind: Normal},
		{ID: "implementing", Kind: Normal},
		{ID: "synthesize", Kind: Normal, Description: "open the pull request"},
		{ID: "completed", Kind: Final},
		{ID: "cancelling", Kind: Normal, Description: "cancel in progress: undoing what the workflow created (git exarchos cancel resumes it)"},
		{ID: "cancelled", Kind: Final},
	},
	Transitions: []Transition{
		{From: "plan", To: "implementing", Guards: []string{"artifact-plan"}},
		{From: "implementing", To: "completed", Guards: []string{"synthesis-not-required"}},
		{From: "implementing", To: "synthesize", Guards: []string{"synthesis-required"}},
		{From: "synthesize", To: "completed", Guards: []string{"pr-url-exists"}, OptIn: []string{"checks-passed"}},
		{From: AnyPhase, To: "cancelling", On: []Trigger{OnCancel}, Note: "record the cancel, then compensate"},
		{From: "cancelling", To: "cancelled", On: []Trigger{OnCancel}, Note: "every resource compensated"},
		{From: AnyPhase, To: "completed", On: []Trigger{OnTransition, OnCleanup}, Guards: []string{"merge-verified"}, Note: "cleanup once merged"},
	},
	// on-request: synthesis only if a synthesize.requested event exists.
	SynthesisPolicies: []string{"on-request", "always", "never"},
	// A oneshot's plan is a few lines: it may be inline text, as it guards leaving plan.
	InlineArtifacts: []string{"plan"},
}
