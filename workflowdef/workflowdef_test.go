package workflowdef

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/exarchos/git-exarchos/workflow"
)

const broken = `type: broken
initial: start
phases:
  - id: start
    allowedTools: ["Edit(docs/**", Read]
  - id: middle
  - id: orphan
transitions:
  - from: start
    to: middle
    guards: [no-such-guard, "shell:undefined"]
  - from: middle
    to: nowhere
  - from: ghost
    to: start
`

func TestLintReportsEveryProblemWithItsLine(t *testing.T) {
	def, ps := Parse("broken.yaml", []byte(broken))
	if def != nil {
		t.Fatal("a broken definition parsed")
	}
	got := ps.Error()
	for _, want := range []string{
		`broken.yaml:5: phase start: tool rule "Edit(docs/**"`,
		`broken.yaml:11: transition start → middle: guard "no-such-guard" does not exist`,
		`broken.yaml:11: transition start → middle: guard "shell:undefined" does not exist`,
		`broken.yaml:13: transition middle → nowhere goes to unknown phase "nowhere"`,
		`broken.yaml:14: transition ghost → start leaves unknown phase "ghost"`,
		`broken.yaml:3: no final phase`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("lint output does not say %q:\n%s", want, got)
		}
	}
}

func TestLintUnreachable(t *testing.T) {
	src := "type: u\ninitial: a\nphases:\n  - id: a\n  - id: lost\n  - id: end\n    kind: final\ntransitions:\n  - {from: a, to: end}\n"
	_, ps := Parse("u.yaml", []byte(src))
	if len(ps) != 1 || ps[0].Line != 5 || !strings.Contains(ps[0].Message, "phase lost is unreachable") {
		t.Fatalf("problems: %v", ps)
	}
	_, ps = Parse("y.yaml", []byte("type: y\nphases: [\n"))
	if len(ps) != 1 || ps[0].Line == 0 {
		t.Fatalf("YAML syntax error: %v", ps)
	}
	_, ps = Parse("k.yaml", []byte("type: k\ninitial: a\nphasez: []\n"))
	if len(ps) != 1 || ps[0].Line != 3 {
		t.Fatalf("unknown key: %v", ps)
	}
}

func TestExtendBuiltin(t *testing.T) {
	src := `type: feature-gated
extends: feature
phases:
  - id: ideate
    turnCap: 50
  - id: security-review
    description: a security pass before the PR
    allowedTools: [Read, Grep]
transitions:
  - {from: review, to: security-review, guards: [reviews-passed]}
  - {from: security-review, to: synthesize, guards: ["shell:audit"]}
guards:
  audit: {run: "true"}
`
	def, ps := Parse("fg.yaml", []byte(src))
	if len(ps) > 0 {
		t.Fatal(ps)
	}
	base, _ := workflow.Builtin("feature")
	if len(def.Phases) != len(base.Phases)+1 || def.Initial != "ideate" || def.Limits != base.Limits {
		t.Fatalf("extension: %d phases, initial %s", len(def.Phases), def.Initial)
	}
	p, _ := def.Phase("ideate")
	if p.Tools.TurnCap != 50 || !p.Tools.Denies("Write") {
		t.Errorf("ideate's envelope: %+v (the built-in denials must stay)", p.Tools)
	}
	if bp, _ := base.Phase("ideate"); bp.Tools.TurnCap != 0 {
		t.Error("extending changed the built-in")
	}
	if def.ShellGuards["audit"].TimeoutMs != DefaultGuardTimeout.Milliseconds() {
		t.Errorf("shell guards: %+v", def.ShellGuards)
	}
	if _, ps := Parse("f.yaml", []byte("type: feature\nextends: feature\n")); len(ps) == 0 || ps[0].Line != 1 {
		t.Errorf("replacing a built-in: %v", ps)
	}
}

// Issue 16 item 7: lint catches dead-end phases, a cancel that enters a final phase directly
// (no phase to compensate in), and completion schemas that do not compile.
func TestLintDeadEndsCancelAndSchemas(t *testing.T) {
	src := `type: d
initial: a
phases:
  - id: a
  - id: stuck
  - id: done
    kind: final
  - id: cancelled
    kind: final
transitions:
  - {from: a, to: stuck}
  - {from: a, to: done}
  - {from: "*", to: cancelled, on: [cancel]}
`
	_, ps := Parse("d.yaml", []byte(src))
	got := ps.Error()
	for _, want := range []string{"d.yaml:5: phase stuck is a dead end", "cancel goes straight to the final phase cancelled"} {
		if !strings.Contains(got, want) {
			t.Errorf("lint does not say %q:\n%s", want, got)
		}
	}
	for schema, want := range map[string]string{
		`{required: 5}`:      "/required",
		`{type: nosuchtype}`: "nosuchtype is not a JSON type",
		`{type: object, properties: {n: {type: [string, nope]}}}`: "/properties/n/type: nope",
	} {
		src := "type: s\ninitial: a\nphases:\n  - id: a\n    completion: " + schema + "\n  - id: done\n    kind: final\ntransitions:\n  - {from: a, to: done}\n"
		_, ps := Parse("s.yaml", []byte(src))
		if len(ps) != 1 || ps[0].Line != 5 || !strings.Contains(ps[0].Message, "does not compile") || !strings.Contains(ps[0].Message, want) {
			t.Errorf("%s: %v", schema, ps)
		}
	}
	// A property named type, and data keywords, are not schema types.
	ok := "type: s\ninitial: a\nphases:\n  - id: a\n    completion: {type: object, properties: {type: {type: string, enum: [{type: x}]}}}\n  - id: done\n    kind: final\ntransitions:\n  - {from: a, to: done}\n"
	if _, ps := Parse("ok.yaml", []byte(ok)); len(ps) > 0 {
		t.Fatalf("a valid schema refused: %v", ps)
	}
}

// TestGuardFactsFields: a repository type declares the paths a phase may change, its validation,
// where artifacts live, and whose reviews count.
func TestGuardFactsFields(t *testing.T) {
	src := "type: docs\ninitial: write\nreviewBy: human\nreviews: [quality]\ninlineArtifacts: [note]\nartifactPaths:\n  design: [\"design/**\"]\n" +
		"phases:\n  - {id: write, allowedPaths: [\"design/**\"], validation: [\"make lint\"]}\n  - {id: done, kind: final}\ntransitions:\n  - {from: write, to: done}\n"
	def, ps := Parse("docs.yaml", []byte(src))
	if len(ps) > 0 {
		t.Fatalf("problems: %v", ps)
	}
	p, _ := def.Phase("write")
	if def.ReviewBy != "human" || !def.InlineAllowed("note") || def.ArtifactPatterns("design")[0] != "design/**" ||
		len(p.AllowedPaths) != 1 || p.Validation[0] != "make lint" {
		t.Fatalf("definition %+v, phase %+v", def, p)
	}
	if _, ps := Parse("bad.yaml", []byte(strings.Replace(src, "reviewBy: human", "reviewBy: anyone", 1))); len(ps) == 0 {
		t.Fatal("an unknown reviewBy is a problem")
	}
}

// TestFindingsBlockAt: a repository type names the least severe review finding that blocks;
// a severity that does not exist is a problem on its line.
func TestFindingsBlockAt(t *testing.T) {
	src := "type: docs\nextends: feature\nfindingsBlockAt: medium\n"
	def, ps := Parse("docs.yaml", []byte(src))
	if len(ps) > 0 {
		t.Fatalf("problems: %v", ps)
	}
	if def.BlockingSeverity() != "medium" || !def.Blocks("medium") || def.Blocks("low") {
		t.Fatalf("blocking at %q", def.BlockingSeverity())
	}
	_, ps = Parse("bad.yaml", []byte(strings.Replace(src, "medium", "severe", 1)))
	if len(ps) != 1 || ps[0].Line != 3 || !strings.Contains(ps[0].Message, `findingsBlockAt "severe": the least severe review finding that blocks, one of critical, high, medium, low, info`) {
		t.Fatalf("problems %v", ps)
	}
}

// chain is a definition of n normal phases in a chain, then a final one.
func chain(n int) []byte {
	var b strings.Builder
	b.WriteString("type: chain\ninitial: p0\nphases:\n")
	for i := range n {
		fmt.Fprintf(&b, "  - id: p%d\n    description: phase number %d of the chain\n", i, i)
	}
	b.WriteString("  - id: end\n    kind: final\ntransitions:\n")
	for i := range n {
		to := fmt.Sprintf("p%d", i+1)
		if i == n-1 {
			to = "end"
		}
		fmt.Fprintf(&b, "  - {from: p%d, to: %s}\n", i, to)
	}
	return []byte(b.String())
}

func TestDefinitionBounds(t *testing.T) {
	if def, ps := Parse("ok.yaml", chain(400)); len(ps) != 0 || len(def.Phases) != 401 {
		t.Fatalf("%v", ps)
	}
	big := append(chain(400), strings.Repeat("# padding\n", 220_000)...) // 2.1 MB
	if _, ps := Parse("big.yaml", big); len(ps) != 1 || !strings.Contains(ps[0].Message, "over the limit of 256 KiB") {
		t.Fatalf("%v", ps)
	}
	src := chain(MaxPhases + 1)
	if len(src) <= MaxFileBytes {
		if _, ps := Parse("many.yaml", src); len(ps) != 1 || !strings.Contains(ps[0].Message, "at most 500 phases") {
			t.Fatalf("%v", ps)
		}
	}
}

// BenchmarkParse parses chains of 50 and 400 phases (about 5 and 40 KiB): linear checking makes
// the second cost about 8 times the first, not 64.
func BenchmarkParse(b *testing.B) {
	for _, n := range []int{50, 400} {
		src := chain(n)
		b.Run(fmt.Sprintf("phases=%d/bytes=%d", n, len(src)), func(b *testing.B) {
			for b.Loop() {
				if _, ps := Parse("bench.yaml", src); len(ps) != 0 {
					b.Fatal(ps)
				}
			}
		})
	}
}

// allowedTools absent, empty and listed are three different policies (issue 30): no allow-list,
// no tools at all, and only those tools; an extension's empty list takes the base's tools away.
func TestAllowedToolsAbsentEmptyListed(t *testing.T) {
	src := "type: s\ninitial: a\nphases:\n  - id: a\n  - id: none\n    allowedTools: []\n  - id: some\n    allowedTools: [Read]\n  - id: end\n    kind: final\n" +
		"transitions:\n  - {from: a, to: none}\n  - {from: none, to: some}\n  - {from: some, to: end}\n"
	def, ps := Parse("s.yaml", []byte(src))
	if len(ps) > 0 {
		t.Fatal(ps)
	}
	for _, c := range []struct {
		phase     string
		noTools   bool
		allowed   int
		restricts bool
	}{
		{"a", false, 0, false},
		{"none", true, 0, true},
		{"some", false, 1, true},
	} {
		env := def.PhaseEnvelope(c.phase)
		if env.NoTools != c.noTools || len(env.AllowedTools) != c.allowed || env.Restricts() != c.restricts || env.Empty() == c.restricts {
			t.Errorf("phase %s: envelope %+v", c.phase, env)
		}
	}
	notes := Notes(def)
	if len(notes) != 1 || !strings.HasPrefix(notes[0], "phase none: allowedTools: [] allows no tools") {
		t.Errorf("notes: %q", notes)
	}
	ext, ps := Parse("x.yaml", []byte("type: x\nextends: feature\nphases:\n  - id: ideate\n    allowedTools: []\n"))
	if len(ps) > 0 {
		t.Fatal(ps)
	}
	if env := ext.PhaseEnvelope("ideate"); !env.NoTools || len(env.AllowedTools) != 0 {
		t.Errorf("extension: ideate's envelope %+v still allows the base's tools", env)
	}
}

// Issue 40 item 6: the settings an extending file puts on one of its base's phases reach that
// phase, each of them (they were dropped, so a gate lint accepted never ran); a setting the phase's
// kind never reads is refused with its line rather than accepted and ignored.
func TestExtendSetsInheritedPhaseSettings(t *testing.T) {
	src := `type: feature-checked
extends: feature
phases:
  - id: review
    gates: ["make check"]
    validation: ["go vet ./..."]
  - id: delegate
    allowedPaths: ["src/**"]
  - id: implementation
    maxFixCycles: 7
`
	def, ps := Parse("fc.yaml", []byte(src))
	if len(ps) > 0 {
		t.Fatal(ps)
	}
	guardsTo := func(from, to string) []string {
		for _, tr := range def.Outgoing(from) {
			if tr.To == to {
				return tr.Guards
			}
		}
		t.Fatalf("no transition %s → %s", from, to)
		return nil
	}
	review, _ := def.Phase("review")
	if !slices.Equal(review.Gates, []string{"make check"}) || !slices.Contains(guardsTo("review", "synthesize"), workflow.GuardGatesPassed) {
		t.Errorf("gates on the inherited review: %v, review → synthesize guards %v", review.Gates, guardsTo("review", "synthesize"))
	}
	if !slices.Equal(review.Validation, []string{"go vet ./..."}) {
		t.Errorf("validation on the inherited review: %v", review.Validation)
	}
	if got := def.AllowedPathsOf("delegate"); !slices.Equal(got, []string{"src/**"}) || !slices.Contains(guardsTo("delegate", "review"), workflow.GuardPathsAllowed) {
		t.Errorf("allowedPaths on the inherited delegate: %v, delegate → review guards %v", got, guardsTo("delegate", "review"))
	}
	if impl, _ := def.Phase("implementation"); impl.MaxFixCycles != 7 {
		t.Errorf("maxFixCycles on the inherited implementation: %d", impl.MaxFixCycles)
	}
	// What the file leaves out keeps the base's; the built-in itself is untouched.
	base, _ := workflow.Builtin("feature")
	ideate, _ := def.Phase("ideate")
	baseIdeate, _ := base.Phase("ideate")
	if !slices.Equal(ideate.AllowedPaths, baseIdeate.AllowedPaths) || len(baseIdeate.AllowedPaths) == 0 {
		t.Errorf("ideate's allowedPaths: %v, want the base's %v", ideate.AllowedPaths, baseIdeate.AllowedPaths)
	}
	if bp, _ := base.Phase("review"); len(bp.Gates)+len(bp.Validation) > 0 {
		t.Error("extending changed the built-in's review")
	}
	if bp, _ := base.Phase("delegate"); len(bp.AllowedPaths) > 0 {
		t.Error("extending changed the built-in's delegate")
	}

	// Settings a phase's kind never reads: refused at their line, inherited or new.
	for _, c := range []struct{ name, phases, want string }{
		{"gates on an inherited compound", "  - id: implementation\n    gates: [\"make check\"]\n", "fc.yaml:5: phase implementation: gates on a compound phase never run"},
		{"validation on an inherited compound", "  - id: implementation\n    validation: [\"true\"]\n", "fc.yaml:5: phase implementation: validation on a compound phase never run"},
		{"gates on an inherited final phase", "  - id: completed\n    gates: [\"true\"]\n", "fc.yaml:4: phase completed is final"},
		{"maxFixCycles on an inherited normal phase", "  - id: review\n    maxFixCycles: 2\n", "fc.yaml:5: phase review: maxFixCycles counts a compound phase's fix cycles"},
		{"gates on a new compound", "  - id: extra\n    kind: compound\n    initial: extra-a\n    gates: [\"true\"]\n  - id: extra-a\n    parent: extra\ntransitions:\n  - {from: review, to: extra}\n  - {from: extra-a, to: synthesize}\n", "fc.yaml:7: phase extra: gates on a compound phase never run"},
	} {
		_, ps := Parse("fc.yaml", []byte("type: feature-checked\nextends: feature\nphases:\n"+c.phases))
		if !strings.Contains(ps.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", c.name, ps, c.want)
		}
	}
}
