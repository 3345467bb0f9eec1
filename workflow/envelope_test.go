package workflow_test

import (
	"testing"

	"github.com/exarchos/git-exarchos/workflow"
)

// An envelope that allows no tools is not the empty envelope, and cannot also name allowed tools.
func TestNoToolsEnvelope(t *testing.T) {
	def := func(env workflow.Envelope) *workflow.Definition {
		return &workflow.Definition{Type: "t", Initial: "a", Phases: []workflow.Phase{{ID: "a", Kind: workflow.Normal, Tools: env}, {ID: "z", Kind: workflow.Final}},
			Transitions: []workflow.Transition{{From: "a", To: "z"}}}
	}
	for _, c := range []struct {
		name  string
		env   workflow.Envelope
		valid bool
	}{
		{"no tools", workflow.Envelope{NoTools: true}, true},
		{"no tools and denials", workflow.Envelope{NoTools: true, Deny: []string{"Bash"}}, true},
		{"no tools with artifact exceptions", workflow.Envelope{NoTools: true, ExceptArtifacts: []string{"design"}}, true},
		{"no tools and a list", workflow.Envelope{NoTools: true, AllowedTools: []string{"Read"}}, false},
		{"exceptions alone", workflow.Envelope{ExceptArtifacts: []string{"design"}}, false},
	} {
		if err := def(c.env).Validate(); (err == nil) != c.valid {
			t.Errorf("%s: Validate() = %v", c.name, err)
		}
	}
	if (workflow.Envelope{NoTools: true}).Empty() || !(workflow.Envelope{NoTools: true}).Restricts() {
		t.Error("an envelope allowing no tools counts as empty")
	}
	d := def(workflow.Envelope{NoTools: true})
	if !d.PhaseEnvelope("a").NoTools {
		t.Error("PhaseEnvelope dropped NoTools")
	}
}
