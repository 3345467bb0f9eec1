package workflowdef

import (
	"strings"
	"testing"

	"github.com/exarchos/git-exarchos/workflow"
)

// staged is a fan-out: checks runs test and lint in parallel and joins into review (the join
// transition left to Parse).
const staged = `type: staged
initial: build
phases:
  - id: build
  - id: checks
  - id: fix
  - id: review
  - id: done
    kind: final
stages:
  - id: test
    allowedTools: [Read, "Bash(go test:*)"]
    completion: {type: object, required: [passed]}
  - id: lint
    allowedTools: []
fanouts:
  - {phase: checks, stages: [test, lint], join: review}
transitions:
  - {from: build, to: checks}
  - {from: checks, to: fix}
  - {from: fix, to: checks}
  - {from: review, to: done}
`

func TestFanoutParsed(t *testing.T) {
	def, ps := Parse("staged.yaml", []byte(staged))
	if ps != nil {
		t.Fatal(ps)
	}
	st, ok := def.Stage("lint")
	if !ok || !st.Tools.NoTools {
		t.Fatalf("lint: %+v", st)
	}
	if st, _ := def.Stage("test"); len(st.Tools.Completion) == 0 || len(st.Tools.AllowedTools) != 2 {
		t.Fatalf("test: %+v", st)
	}
	var join *workflow.Transition
	for _, tr := range def.Outgoing("checks") {
		if tr.To == "review" {
			join = &tr
		}
	}
	if join == nil || len(join.Guards) != 1 || join.Guards[0] != workflow.GuardStagesCompleted {
		t.Fatalf("join transition: %+v", join)
	}
	// Declared by the file with guards of its own: kept once, stages-completed added.
	src := strings.Replace(staged, "  - {from: checks, to: fix}\n", "  - {from: checks, to: fix}\n  - {from: checks, to: review, guards: [shell:ok]}\n", 1) + "guards:\n  ok: {run: 'true'}\n"
	def, ps = Parse("staged.yaml", []byte(src))
	if ps != nil {
		t.Fatal(ps)
	}
	if g := joinGuards(t, def, "checks", "review"); g != "stages-completed,shell:ok" {
		t.Fatalf("guards %v", g)
	}
}

// Each bad fan-out is refused at its line with what to do.
func TestLintFanouts(t *testing.T) {
	for _, tc := range []struct {
		name, old, new string
		line           int
		want           string
	}{
		{"unknown stage", "stages: [test, lint], join", "stages: [test, lnt], join", 17, `fan-out checks runs stage "lnt", which is not declared under stages: (did you mean lint?)`},
		{"empty parallel set", "stages: [test, lint], join", "stages: [], join", 17, "fan-out checks runs no stages"},
		{"join names an unknown phase", "join: review}", "join: reveiw}", 17, `joins into unknown phase "reveiw" (did you mean review?)`},
		{"join is a stage", "join: review}", "join: lint}", 17, "joins into lint, which is a stage: join into a phase"},
		{"join into itself", "join: review}", "join: checks}", 17, "joins into itself"},
		{"stage in two fan-outs", "  - {phase: checks, stages: [test, lint], join: review}\n", "  - {phase: checks, stages: [test, lint], join: review}\n  - {phase: fix, stages: [lint], join: checks}\n", 18, "stage lint is in two fan-outs (checks and fix)"},
		{"joins in a cycle", "  - {phase: checks, stages: [test, lint], join: review}\n", "  - {phase: checks, stages: [test], join: fix}\n  - {phase: fix, stages: [lint], join: checks}\n", 17, "the fan-outs join in a cycle (checks → fix → checks)"},
		{"final fan-out phase", "{phase: checks,", "{phase: done,", 17, "fan-out phase done is a final phase"},
		{"stage with a turn cap", "    allowedTools: []\n", "    allowedTools: []\n    turnCap: 3\n", 16, "stage lint: a stage has no turn cap of its own"},
		{"stage with a bad rule", `"Bash(go test:*)"]`, `"Bash(go test:*"]`, 12, `stage test: tool rule "Bash(go test:*"`},
		{"stage with a bad schema", "{type: object, required: [passed]}", "{type: obj}", 13, "stage test: the completion schema does not compile"},
		{"stage in no fan-out", "  - id: lint\n", "  - id: vet\n  - id: lint\n", 14, "stage vet is in no fan-out"},
		{"stage with a phase's id", "  - id: lint\n", "  - id: fix\n  - id: lint\n", 14, "stage fix has the id of a phase"},
		{"unknown key in a fan-out", "join: review}", "join: review, parallel: true}", 17, "field parallel not found"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := strings.Replace(staged, tc.old, tc.new, 1)
			if src == staged {
				t.Fatal("the edit changed nothing")
			}
			def, ps := Parse("staged.yaml", []byte(src))
			if def != nil {
				t.Fatal("a bad fan-out parsed")
			}
			for _, p := range ps {
				if strings.Contains(p.Message, tc.want) {
					if p.Line != tc.line {
						t.Fatalf("%q at line %d, want %d", p.Message, p.Line, tc.line)
					}
					return
				}
			}
			t.Fatalf("problems %v lack %q", ps, tc.want)
		})
	}
}

// An extension of a built-in can fan a phase of the base out: review runs a spec and a quality
// stage, and its transition into synthesize keeps its guards with stages-completed added.
func TestFanoutInAnExtension(t *testing.T) {
	src := `type: staged-feature
extends: feature
stages:
  - id: spec-check
    allowedTools: [Read, Grep]
  - id: quality-check
    allowedTools: [Read, "Bash(go vet:*)"]
fanouts:
  - {phase: review, stages: [spec-check, quality-check], join: synthesize}
`
	def, ps := Parse("staged-feature.yaml", []byte(src))
	if ps != nil {
		t.Fatal(ps)
	}
	if g := joinGuards(t, def, "review", "synthesize"); g != "stages-completed,reviews-passed" {
		t.Fatalf("guards %v", g)
	}
	if !strings.Contains(def.Mermaid(), "review_fork --> spec_check") {
		t.Fatalf("mermaid:\n%s", def.Mermaid())
	}
}

// joinGuards are the guards of the one transition from → to, which must be there exactly once.
func joinGuards(t *testing.T, def *workflow.Definition, from, to string) string {
	t.Helper()
	var found []string
	for _, tr := range def.Outgoing(from) {
		if tr.To == to {
			found = append(found, strings.Join(tr.Guards, ","))
		}
	}
	if len(found) != 1 {
		t.Fatalf("%d transitions %s → %s", len(found), from, to)
	}
	return found[0]
}
