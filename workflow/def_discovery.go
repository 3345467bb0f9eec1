package workflow

// discoveryDefinition: research that ends in a report rather than code.
var discoveryDefinition = Definition{
	Type:        "discovery",
	Description: "Research: gather sources (set sources=[…]), then synthesise a report artifact.",
	Initial:     "gathering",
	Phases: []Phase{
		{ID: "gathering", Kind: Normal, Description: "collect sources"},
		{ID: "synthesizing", Kind: Normal, Description: "write the report"},
		{ID: "completed", Kind: Final},
		{ID: "cancelling", Kind: Normal, Description: "cancel in progress: undoing what the workflow created (git exarchos cancel resumes it)"},
		{ID: "cancelled", Kind: Final},
	},
	Transitions: []Transition{
		{From: "gathering", To: "synthesizing", Guards: []string{"sources-collected"}},
		{From: "synthesizing", To: "completed", Guards: []string{"artifact-report"}},
		{From: AnyPhase, To: "cancelling", On: []Trigger{OnCancel}, Note: "record the cancel, then compensate"},
		{From: "cancelling", To: "cancelled", On: []Trigger{OnCancel}, Note: "every resource compensated"},
		{From: AnyPhase, To: "completed", On: []Trigger{OnTransition, OnCleanup}, Guards: []string{"merge-verified"}, Note: "cleanup once merged"},
	},
}
