package workflow

// featureDefinition: design, plan, a human plan review, implementation as a delegate ⇄ review loop,
// then synthesis (the pull request).
var featureDefinition = Definition{
	Type:        "feature",
	Description: "Build a feature: design, plan, human plan review, delegated implementation with reviews, then a pull request.",
	Initial:     "ideate",
	Phases: []Phase{
		{ID: "ideate", Kind: Normal, Description: "explore the problem and write a design", Tools: planningTools("design", "plan")},
		{ID: "plan", Kind: Normal, Description: "write the implementation plan", Tools: planningTools("design", "plan")},
		{ID: "plan-review", Kind: Normal, Description: "a human approves the plan or sends it back with gaps", Tools: planningTools("design", "plan")},
		{ID: "implementation", Kind: Compound, Initial: "delegate", MaxFixCycles: 3, Description: "delegate ⇄ review until the reviews pass"},
		{ID: "delegate", Kind: Normal, Parent: "implementation", Description: "tasks are implemented"},
		{ID: "review", Kind: Normal, Parent: "implementation", Description: "spec and quality reviews"},
		{ID: "blocked", Kind: Normal, Description: "the plan was revised too often; a human must unblock"},
		{ID: "synthesize", Kind: Normal, Description: "open the pull request"},
		{ID: "completed", Kind: Final},
		{ID: "cancelled", Kind: Final},
	},
	Transitions: []Transition{
		{From: "ideate", To: "plan", Guards: []string{"artifact-design"}},
		{From: "plan", To: "plan-review", Guards: []string{"artifact-plan"}},
		{From: "plan-review", To: "delegate", Guards: []string{"plan-approved"}},
		{From: "plan-review", To: "plan", On: []Trigger{OnReject}, Counts: Revisions, Note: "gaps found"},
		{From: "plan-review", To: "blocked", On: []Trigger{OnReject}, WhenExhausted: Revisions, Note: "revised too often"},
		{From: "blocked", To: "delegate", On: []Trigger{OnUnblock}, Note: "a human unblocks"},
		{From: "delegate", To: "review", Guards: []string{"tasks-complete"}},
		{From: "review", To: "delegate", Counts: FixCycles, Note: "fix cycle"},
		{From: "review", To: "synthesize", Guards: []string{"reviews-passed"}},
		{From: "synthesize", To: "completed", Guards: []string{"pr-url-exists"}, OptIn: []string{"checks-passed"}},
		{From: "synthesize", To: "delegate", Counts: Retries, Note: "synthesis failed, retry"},
		{From: AnyPhase, To: "cancelled", On: []Trigger{OnCancel}},
		{From: AnyPhase, To: "completed", On: []Trigger{OnTransition, OnCleanup}, Guards: []string{"merge-verified"}, Note: "cleanup once merged"},
	},
	Reviews: []string{"spec", "quality"},
	Limits:  Limits{PlanRevisions: 3, SynthesisRetries: 3},
}
