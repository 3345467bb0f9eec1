package workflowdef

import (
	"encoding/json"
	"slices"

	"gopkg.in/yaml.v3"

	"github.com/exarchos/git-exarchos/workflow"
)

// StageSpec is one parallel stage in YAML: an id and an envelope, as a phase has (no turnCap:
// lint refuses one, see workflow.Stage).
//
//	stages:
//	  - id: test
//	    allowedTools: [Read, "Bash(go test:*)"]
//	    completion: {type: object, required: [passed]}
//	  - id: lint
//	    allowedTools: [Read, "Bash(golangci-lint:*)"]
//	fanouts:
//	  - {phase: checks, stages: [test, lint], join: review}
type StageSpec struct {
	ID           string    `yaml:"id"`
	Description  string    `yaml:"description"`
	AllowedTools []string  `yaml:"allowedTools"`
	Deny         []string  `yaml:"deny"`
	Except       []string  `yaml:"exceptArtifacts"`
	TurnCap      int       `yaml:"turnCap"`
	Completion   yaml.Node `yaml:"completion"`
}

// FanoutSpec is one fan-out in YAML: the phase whose stay runs the stages in parallel, and the
// phase they join into. The transition phase → join is added when the file does not declare it;
// either way it requires stages-completed.
type FanoutSpec struct {
	Phase  string   `yaml:"phase"`
	Stages []string `yaml:"stages"`
	Join   string   `yaml:"join"`
}

// envelopeOf reads a phase's or a stage's envelope, reporting bad rules and schemas at line(key).
// yaml.v3 reads `allowedTools: []` as an empty list and leaves an absent key nil: the first allows
// no tools, the second sets no allow-list.
func envelopeOf(what string, allowed, deny, except []string, turnCap int, completion yaml.Node, line func(key string) int, add func(int, string, ...any)) workflow.Envelope {
	env := workflow.Envelope{AllowedTools: allowed, NoTools: allowed != nil && len(allowed) == 0, Deny: deny, ExceptArtifacts: except, TurnCap: turnCap}
	for _, r := range append(slices.Clone(allowed), deny...) {
		if _, _, err := workflow.ParseToolRule(r); err != nil {
			add(line("allowedTools"), "%s: %v", what, err)
		}
	}
	if turnCap < 0 {
		add(line("turnCap"), "%s: turnCap must be positive", what)
	}
	if !completion.IsZero() {
		var v any
		if err := completion.Decode(&v); err != nil {
			add(completion.Line, "%s: completion: %v", what, err)
		} else if b, err := json.Marshal(normalize(v)); err != nil {
			add(completion.Line, "%s: completion is not a JSON Schema: %v", what, err)
		} else if _, err := CompileSchema(b); err != nil {
			add(completion.Line, "%s: %v (it could never be completed)", what, err)
		} else {
			env.Completion = b
		}
	}
	return env
}

// parseFanouts adds the file's stages and fan-outs to def, with the join transitions the file
// leaves out, and reports every fan-out problem at its line.
func parseFanouts(f File, l lines, def *workflow.Definition, add func(int, string, ...any)) {
	for i, s := range f.Stages {
		env := envelopeOf("stage "+s.ID, s.AllowedTools, s.Deny, s.Except, s.TurnCap, s.Completion,
			func(key string) int { return at(l.stageFields, i, key, l.stages) }, add)
		def.Stages = append(def.Stages, workflow.Stage{ID: s.ID, Description: s.Description, Tools: env})
	}
	for _, fo := range f.Fanouts {
		fan := workflow.Fanout{Phase: fo.Phase, Stages: fo.Stages, Join: fo.Join}
		def.Fanouts = append(def.Fanouts, fan)
		declared := slices.ContainsFunc(def.Transitions, func(t workflow.Transition) bool {
			return t.From == fo.Phase && t.To == fo.Join && t.TakenBy(workflow.OnTransition)
		})
		if fo.Phase != "" && fo.Join != "" && !declared {
			def.Transitions = append(def.Transitions, fan.JoinTransition())
		}
	}
	for _, p := range def.FanoutProblems() {
		line := l.top["fanouts"]
		if p.Fanout >= 0 {
			line = at(l.fanFields, p.Fanout, p.Field, l.fanouts)
		} else if i := slices.IndexFunc(f.Stages, func(s StageSpec) bool { return s.ID == p.Stage }); i >= 0 {
			line = at(l.stageFields, i, p.Field, l.stages)
		}
		add(line, "%s", p.Message)
	}
}
