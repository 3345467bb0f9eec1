// Package workflowdef reads workflow definitions written in YAML (.exarchos/workflows/<name>.yaml)
// into workflow.Definition values, and lints them with line numbers. It does no I/O: the caller
// reads the files from the tip of the protected base branch (never from fetched workflow refs) and
// passes the result to workflow.NewDefinitions.
//
// A file defines a new type, or extends a built-in under a new name (its phases, transitions and
// guards are kept; the file adds phases, transitions, shell guards, and on existing phases sets
// envelopes, gates, allowedPaths, validation and maxFixCycles):
//
//	type: docs-feature
//	extends: feature            # optional
//	description: a feature whose research phase is read-only
//	initial: research           # default: the base's initial phase
//	phases:
//	  - id: research
//	    description: read the code, hand in findings
//	    allowedTools: [Read, Grep, "Bash(go test:*)"]
//	    turnCap: 40
//	    completion:             # JSON Schema (as YAML) of what `git exarchos submit` hands in
//	      type: object
//	      required: [summary]
//	  - id: done
//	    kind: final
//	transitions:
//	  - {from: research, to: done, guards: [shell:tests]}
//	guards:
//	  tests: {run: "go test ./...", timeout: 2m}
//
// Completion schemas are compiled here, for lint and for the payloads `submit` and `stage done`
// hand in (ValidateAgainst, schema.go).
//
// It may import workflow, guards (lint names the built-in guards), yaml.v3, kaptinlin/jsonschema and
// internal/jsonstr; like workflow it does no I/O and reads no clock.
package workflowdef

import (
	"bytes"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/exarchos/git-exarchos/guards"
	"github.com/exarchos/git-exarchos/workflow"
)

// File is the YAML shape of a definition file.
type File struct {
	Type        string               `yaml:"type"`
	Extends     string               `yaml:"extends"`
	Description string               `yaml:"description"`
	Initial     string               `yaml:"initial"`
	Phases      []PhaseSpec          `yaml:"phases"`
	Transitions []TransitionSpec     `yaml:"transitions"`
	Guards      map[string]GuardSpec `yaml:"guards"`
	Reviews     []string             `yaml:"reviews"`
	Tracks      []string             `yaml:"tracks"`
	Limits      workflow.Limits      `yaml:"limits"`
	// Runbooks: see workflow.Definition.
	Runbooks map[string][]string `yaml:"runbooks"`
	// TaskGates and GateTimeout: see workflow.Definition (gates.go reads them).
	TaskGates   []string `yaml:"taskGates"`
	GateTimeout string   `yaml:"gateTimeout"`
	// ReviewBy, FindingsBlockAt, ArtifactPaths and InlineArtifacts: see workflow.Definition.
	ReviewBy        string              `yaml:"reviewBy"`
	FindingsBlockAt string              `yaml:"findingsBlockAt"`
	ArtifactPaths   map[string][]string `yaml:"artifactPaths"`
	InlineArtifacts []string            `yaml:"inlineArtifacts"`
	// Stages and Fanouts: see workflow.Definition (fanout.go).
	Stages  []StageSpec  `yaml:"stages"`
	Fanouts []FanoutSpec `yaml:"fanouts"`
}

// PhaseSpec is one phase in YAML.
type PhaseSpec struct {
	ID           string    `yaml:"id"`
	Kind         string    `yaml:"kind"`
	Parent       string    `yaml:"parent"`
	Initial      string    `yaml:"initial"`
	MaxFixCycles int       `yaml:"maxFixCycles"`
	Description  string    `yaml:"description"`
	AllowedTools []string  `yaml:"allowedTools"`
	Deny         []string  `yaml:"deny"`
	Except       []string  `yaml:"exceptArtifacts"`
	TurnCap      int       `yaml:"turnCap"`
	Completion   yaml.Node `yaml:"completion"`
	// AllowedPaths and Validation: see workflow.Phase.
	AllowedPaths []string `yaml:"allowedPaths"`
	Validation   []string `yaml:"validation"`
	// Gates: see workflow.Phase.
	Gates []string `yaml:"gates"`
}

// TransitionSpec is one transition in YAML.
type TransitionSpec struct {
	From   string   `yaml:"from"`
	To     string   `yaml:"to"`
	Guards []string `yaml:"guards"`
	On     []string `yaml:"on"`
	Note   string   `yaml:"note"`
}

// GuardSpec is a custom guard: a shell command, passing when it exits 0 within its timeout.
type GuardSpec struct {
	Run     string `yaml:"run"`
	Timeout string `yaml:"timeout"`
}

// Problem is one lint finding, at a line of the file (0 when it has no single place).
type Problem struct {
	File    string `json:"file"`
	Line    int    `json:"line"`
	Message string `json:"message"`
}

func (p Problem) String() string {
	if p.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", p.File, p.Line, p.Message)
	}
	return fmt.Sprintf("%s: %s", p.File, p.Message)
}

// Problems is a definition's lint findings as an error.
type Problems []Problem

func (ps Problems) Error() string {
	lines := make([]string, len(ps))
	for i, p := range ps {
		lines[i] = p.String()
	}
	return strings.Join(lines, "\n")
}

// DefaultGuardTimeout and MaxGuardTimeout bound a shell guard's run.
const (
	DefaultGuardTimeout = 60 * time.Second
	MaxGuardTimeout     = 10 * time.Minute
)

// lines maps what the linter talks about to where it is in the file.
type lines struct {
	top         map[string]int
	phases      []int // line of each phase item
	phaseFields []map[string]int
	transitions []int
	transFields []map[string]int
	guards      map[string]int
	stages      []int
	stageFields []map[string]int
	fanouts     []int
	fanFields   []map[string]int
}

func keyLines(n *yaml.Node) map[string]int {
	m := map[string]int{}
	if n != nil && n.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(n.Content); i += 2 {
			m[n.Content[i].Value] = n.Content[i].Line
		}
	}
	return m
}

func valueOf(n *yaml.Node, key string) *yaml.Node {
	if n != nil && n.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == key {
				return n.Content[i+1]
			}
		}
	}
	return nil
}

func locate(doc *yaml.Node) lines {
	l := lines{top: map[string]int{}, guards: map[string]int{}}
	if doc == nil || len(doc.Content) == 0 {
		return l
	}
	root := doc.Content[0]
	l.top = keyLines(root)
	if ps := valueOf(root, "phases"); ps != nil {
		for _, p := range ps.Content {
			l.phases = append(l.phases, p.Line)
			l.phaseFields = append(l.phaseFields, keyLines(p))
		}
	}
	if ts := valueOf(root, "transitions"); ts != nil {
		for _, t := range ts.Content {
			l.transitions = append(l.transitions, t.Line)
			l.transFields = append(l.transFields, keyLines(t))
		}
	}
	l.guards = keyLines(valueOf(root, "guards"))
	if ss := valueOf(root, "stages"); ss != nil {
		for _, s := range ss.Content {
			l.stages = append(l.stages, s.Line)
			l.stageFields = append(l.stageFields, keyLines(s))
		}
	}
	if fs := valueOf(root, "fanouts"); fs != nil {
		for _, f := range fs.Content {
			l.fanouts = append(l.fanouts, f.Line)
			l.fanFields = append(l.fanFields, keyLines(f))
		}
	}
	return l
}

func at(m []map[string]int, i int, key string, fallback []int) int {
	if i < len(m) {
		if n, ok := m[i][key]; ok {
			return n
		}
	}
	if i < len(fallback) {
		return fallback[i]
	}
	return 0
}

// Limits on a definition file, so that checking one (which every command does) takes bounded
// memory and time whatever is committed: a real definition is a few KiB.
const (
	MaxFileBytes   = 256 << 10
	MaxPhases      = 500
	MaxTransitions = 2000
)

// TooLarge is the problem of a file over MaxFileBytes.
func TooLarge(name string, size int64) Problem {
	return Problem{File: name, Message: fmt.Sprintf("%s is %d bytes, over the limit of %d KiB for a workflow definition: split it or trim it", name, size, MaxFileBytes>>10)}
}

// Parse reads a definition file and returns the definition with every problem found; the
// definition is nil when there is any. Its cost is linear in the file's size, which is bounded
// by MaxFileBytes.
func Parse(name string, src []byte) (*workflow.Definition, Problems) {
	if len(src) > MaxFileBytes {
		return nil, Problems{TooLarge(name, int64(len(src)))}
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(src, &doc); err != nil {
		return nil, Problems{{File: name, Line: yamlLine(err), Message: err.Error()}}
	}
	var f File
	dec := yaml.NewDecoder(bytes.NewReader(src))
	dec.KnownFields(true)
	if err := dec.Decode(&f); err != nil {
		return nil, Problems{{File: name, Line: yamlLine(err), Message: err.Error()}}
	}
	if len(f.Phases) > MaxPhases || len(f.Transitions) > MaxTransitions {
		return nil, Problems{{File: name, Message: fmt.Sprintf("%d phases and %d transitions: a definition has at most %d phases and %d transitions", len(f.Phases), len(f.Transitions), MaxPhases, MaxTransitions)}}
	}
	l := locate(&doc)
	var ps Problems
	add := func(line int, format string, args ...any) {
		ps = append(ps, Problem{File: name, Line: line, Message: fmt.Sprintf(format, args...)})
	}
	def := &workflow.Definition{Type: f.Type, Description: f.Description, Initial: f.Initial, Reviews: f.Reviews, Tracks: f.Tracks, Limits: f.Limits,
		ReviewBy: f.ReviewBy, FindingsBlockAt: f.FindingsBlockAt, ArtifactPaths: f.ArtifactPaths, InlineArtifacts: f.InlineArtifacts, Runbooks: f.Runbooks}
	parseGates(f, def, l, add)
	for rb, steps := range f.Runbooks {
		if !workflow.ValidFeature(rb) || len(steps) == 0 || slices.ContainsFunc(steps, func(s string) bool { return strings.TrimSpace(s) == "" }) {
			add(l.top["runbooks"], "runbook %q: a name like release (lower case, digits, . _ -) and a list of non-empty steps", rb)
		}
	}
	switch f.ReviewBy {
	case "", "agent", "human", "github":
	default:
		add(0, "reviewBy %q: use agent, human or github", f.ReviewBy)
	}
	if f.FindingsBlockAt != "" && !slices.Contains(workflow.Severities, f.FindingsBlockAt) {
		add(l.top["findingsBlockAt"], "findingsBlockAt %q: the least severe review finding that blocks, one of %s", f.FindingsBlockAt, strings.Join(workflow.Severities, ", "))
	}
	if f.Type == "" || !workflow.ValidFeature(f.Type) {
		add(l.top["type"], "type %q: name the workflow type with lowercase letters, digits, '.', '_' and '-'", f.Type)
	} else if workflow.IsBuiltin(f.Type) {
		add(l.top["type"], "type %q is built in: give the extension its own name (extends: %s keeps the built-in's phases)", f.Type, f.Type)
	}
	if f.Extends != "" {
		base, ok := workflow.Builtin(f.Extends)
		if !ok {
			add(l.top["extends"], "extends %q: only built-in types can be extended (%s)", f.Extends, strings.Join(workflow.BuiltinTypes(), ", "))
		} else {
			def.Phases = slices.Clone(base.Phases)
			def.Transitions = slices.Clone(base.Transitions)
			def.Reviews = cmpOr(def.Reviews, base.Reviews)
			def.Tracks = cmpOr(def.Tracks, base.Tracks)
			def.SynthesisPolicies, def.CompletionPolicies = base.SynthesisPolicies, base.CompletionPolicies
			if def.Limits == (workflow.Limits{}) {
				def.Limits = base.Limits
			}
			if def.Initial == "" {
				def.Initial = base.Initial
			}
			if def.Description == "" {
				def.Description = base.Description + " (extended by the repository)"
			}
		}
	}
	index := map[string]int{} // phase id → position in def.Phases: lookups stay linear overall
	for j, p := range def.Phases {
		index[p.ID] = j
	}
	for i, p := range f.Phases {
		line := at(l.phaseFields, i, "id", l.phases)
		env := envelopeOf("phase "+p.ID, p.AllowedTools, p.Deny, p.Except, p.TurnCap, p.Completion,
			func(key string) int { return at(l.phaseFields, i, key, l.phases) }, add)
		if slices.ContainsFunc(p.Gates, func(g string) bool { return strings.TrimSpace(g) == "" }) {
			add(at(l.phaseFields, i, "gates", l.phases), "phase %s: an empty gate command", p.ID)
		}
		j, dup := index[p.ID]
		if !dup {
			j = -1
		}
		if j >= 0 && f.Extends != "" {
			// An extension sets an existing phase's settings (issue 40: gates, allowedPaths and
			// validation were dropped here, so a gate lint accepted never ran); its shape stays.
			if p.Kind != "" || p.Parent != "" || p.Initial != "" {
				add(line, "phase %s is the base's: an extension may set its description, envelope, gates, allowedPaths, validation and maxFixCycles only", p.ID)
			}
			extendPhase(&def.Phases[j], p, env)
			settingsFitKind(p, def.Phases[j].Kind, func(key string) int { return at(l.phaseFields, i, key, l.phases) }, add)
			continue
		} else if j >= 0 {
			add(line, "phase %q is defined twice", p.ID)
			continue
		}
		kind := workflow.PhaseKind(cmpOrString(p.Kind, string(workflow.Normal)))
		switch kind {
		case workflow.Normal, workflow.Final, workflow.Compound:
		default:
			add(at(l.phaseFields, i, "kind", l.phases), "phase %s: kind %q: use normal, final or compound", p.ID, p.Kind)
		}
		if p.ID == "" {
			add(line, "a phase without an id")
			continue
		}
		index[p.ID] = len(def.Phases)
		def.Phases = append(def.Phases, workflow.Phase{ID: p.ID, Kind: kind, Parent: p.Parent, Initial: p.Initial, MaxFixCycles: p.MaxFixCycles, Description: p.Description, Tools: env,
			AllowedPaths: p.AllowedPaths, Validation: p.Validation, Gates: p.Gates})
		settingsFitKind(p, kind, func(key string) int { return at(l.phaseFields, i, key, l.phases) }, add)
	}
	known := func(id string) bool { _, ok := index[id]; return ok }
	if def.Initial == "" {
		add(l.top["type"], "no initial phase: set initial: <phase>")
	} else if !known(def.Initial) {
		add(l.top["initial"], "initial phase %q is not defined", def.Initial)
	}
	shell := map[string]workflow.ShellGuard{}
	for name, g := range f.Guards {
		line := l.guards[name]
		if strings.TrimSpace(g.Run) == "" {
			add(line, "guard %s: give the shell command to run (run: …)", name)
		}
		timeout := DefaultGuardTimeout
		if g.Timeout != "" {
			d, err := time.ParseDuration(g.Timeout)
			if err != nil || d <= 0 || d > MaxGuardTimeout {
				add(line, "guard %s: timeout %q: a duration up to %s, e.g. 90s", name, g.Timeout, MaxGuardTimeout)
			} else {
				timeout = d
			}
		}
		shell[name] = workflow.ShellGuard{Run: g.Run, TimeoutMs: timeout.Milliseconds()}
	}
	if len(shell) > 0 {
		def.ShellGuards = shell
	}
	for i, t := range f.Transitions {
		line := at(l.transFields, i, "from", l.transitions)
		if t.From != workflow.AnyPhase && !known(t.From) {
			add(line, "transition %s → %s leaves unknown phase %q", t.From, t.To, t.From)
		}
		if !known(t.To) {
			add(at(l.transFields, i, "to", l.transitions), "transition %s → %s goes to unknown phase %q", t.From, t.To, t.To)
		}
		for _, g := range t.Guards {
			if !guardExists(g, shell) {
				add(at(l.transFields, i, "guards", l.transitions), "transition %s → %s: guard %q does not exist (built in: %s; or define it under guards: and name it shell:<name>)", t.From, t.To, g, strings.Join(append(guards.IDs(), "artifact-<name>", workflow.GuardCompletionSubmitted), ", "))
			}
		}
		var on []workflow.Trigger
		for _, o := range t.On {
			on = append(on, workflow.Trigger(o))
		}
		def.Transitions = append(def.Transitions, workflow.Transition{From: t.From, To: t.To, Guards: t.Guards, On: on, Note: t.Note})
	}
	parseFanouts(f, l, def, add)
	if !slices.ContainsFunc(def.Phases, func(p workflow.Phase) bool { return p.Kind == workflow.Final }) {
		add(l.top["phases"], "no final phase: add one (kind: final) so the workflow can end")
	}
	if len(ps) == 0 {
		lost := unreachable(def)
		for _, id := range lost {
			add(phaseLine(f, l, id), "phase %s is unreachable from the initial phase %s", id, def.Initial)
		}
		for _, id := range deadEnds(def) {
			if slices.Contains(lost, id) {
				continue // one problem per phase
			}
			add(phaseLine(f, l, id), "phase %s is a dead end: no transition of its own leaves it (only the universal ones, such as cancel); add one, or make it kind: final", id)
		}
		if to := cancelStraightToFinal(def); to != "" {
			add(l.top["transitions"], "cancel goes straight to the final phase %s: add a normal phase (e.g. cancelling) that the universal cancel enters and whose own cancel transition reaches %s, so the cancel saga can undo what the workflow created (worktrees, branches, pull requests) there", to, to)
		}
	}
	if len(ps) == 0 {
		if err := def.Validate(); err != nil {
			add(0, "%v", err)
		}
	}
	if len(ps) > 0 {
		sort.SliceStable(ps, func(i, j int) bool { return ps[i].Line < ps[j].Line })
		return nil, ps
	}
	return def, nil
}

func phaseLine(f File, l lines, id string) int {
	for i, p := range f.Phases {
		if p.ID == id {
			return at(l.phaseFields, i, "id", l.phases)
		}
	}
	return l.top["extends"]
}

func guardExists(id string, shell map[string]workflow.ShellGuard) bool {
	if name, ok := strings.CutPrefix(id, workflow.ShellGuardPrefix); ok {
		_, ok := shell[name]
		return ok
	}
	if id == workflow.GuardCompletionSubmitted {
		return true
	}
	_, ok := guards.Lookup(id)
	return ok
}

// unreachable lists the phases no chain of transitions reaches from the initial phase (a compound
// is reached when one of its children is; universal transitions reach their target from anywhere).
func unreachable(def *workflow.Definition) []string {
	// One pass over the transitions builds the graph (def.Outgoing per phase would scan them all
	// for every phase): a phase's own transitions, and the universal ones, which leave every
	// phase but a final one and the cancelling phase.
	next := map[string][]string{}
	var universal []string
	for _, t := range def.Transitions {
		if t.Universal() {
			universal = append(universal, t.To)
		} else {
			next[t.From] = append(next[t.From], t.To)
		}
	}
	final := map[string]bool{}
	for _, p := range def.Phases {
		final[p.ID] = p.Kind == workflow.Final
	}
	cancelling := def.CancellingPhase()
	seen := map[string]bool{def.Initial: true}
	queue := []string{def.Initial}
	universalDone := false
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		if isFinal, ok := final[cur]; !ok || isFinal {
			continue
		}
		tos := next[cur]
		if cur != cancelling && !universalDone {
			universalDone = true // they reach the same phases from anywhere: follow them once
			tos = append(slices.Clone(tos), universal...)
		}
		for _, to := range tos {
			if !seen[to] {
				seen[to] = true
				queue = append(queue, to)
			}
		}
	}
	var out []string
	for _, p := range def.Phases {
		if p.Kind == workflow.Compound {
			continue
		}
		if !seen[p.ID] {
			out = append(out, p.ID)
		}
	}
	sort.Strings(out)
	return out
}

// deadEnds lists the normal phases no transition of their own leaves: the workflow could sit there
// for ever unless cancelled.
func deadEnds(def *workflow.Definition) []string {
	var out []string
	for _, p := range def.Phases {
		if p.Kind != workflow.Normal {
			continue
		}
		if !slices.ContainsFunc(def.Transitions, func(t workflow.Transition) bool { return t.From == p.ID }) {
			out = append(out, p.ID)
		}
	}
	return out
}

// cancelStraightToFinal returns the final phase the universal cancel enters directly, if it does.
func cancelStraightToFinal(def *workflow.Definition) string {
	for _, t := range def.Transitions {
		if t.Universal() && t.TakenBy(workflow.OnCancel) && def.IsFinal(t.To) {
			return t.To
		}
	}
	return ""
}

// settingsFitKind refuses the phase settings its kind never reads, rather than accept what would
// silently do nothing: a workflow never sits in a compound (it enters the compound's initial child),
// so gates and validation there never run; a final phase is never left; only a compound counts fix
// cycles. (allowedPaths on a compound is its children's default, see workflow.AllowedPathsOf.)
func settingsFitKind(p PhaseSpec, kind workflow.PhaseKind, line func(key string) int, add func(int, string, ...any)) {
	switch kind {
	case workflow.Compound:
		const never = "phase %s: %s on a compound phase never run (the workflow sits in one of its children): put them on the child phases"
		if len(p.Gates) > 0 {
			add(line("gates"), never, p.ID, "gates")
		}
		if len(p.Validation) > 0 {
			add(line("validation"), never, p.ID, "validation")
		}
	case workflow.Final:
		if len(p.Gates) > 0 || len(p.Validation) > 0 || len(p.AllowedPaths) > 0 {
			add(line("id"), "phase %s is final: gates, validation and allowedPaths apply to leaving a phase, and a final phase is never left", p.ID)
		}
	}
	if p.MaxFixCycles > 0 && kind != workflow.Compound {
		add(line("maxFixCycles"), "phase %s: maxFixCycles counts a compound phase's fix cycles; %s is %s", p.ID, p.ID, kind)
	}
}

// extendPhase applies what an extending file sets on one of its base's phases: each setting the file
// gives replaces the base's (as the envelope's fields do), each it leaves out keeps the base's.
func extendPhase(base *workflow.Phase, p PhaseSpec, env workflow.Envelope) {
	base.Description = cmpOrString(p.Description, base.Description)
	base.Tools = mergeEnvelope(base.Tools, env)
	base.AllowedPaths = cmpOr(p.AllowedPaths, base.AllowedPaths)
	base.Validation = cmpOr(p.Validation, base.Validation)
	base.Gates = cmpOr(p.Gates, base.Gates)
	if p.MaxFixCycles > 0 {
		base.MaxFixCycles = p.MaxFixCycles
	}
}

func mergeEnvelope(base, add workflow.Envelope) workflow.Envelope {
	if len(add.AllowedTools) > 0 || add.NoTools {
		base.AllowedTools, base.NoTools = add.AllowedTools, add.NoTools
	}
	if len(add.Deny) > 0 {
		base.Deny = add.Deny
	}
	if len(add.ExceptArtifacts) > 0 {
		base.ExceptArtifacts = add.ExceptArtifacts
	}
	if add.TurnCap > 0 {
		base.TurnCap = add.TurnCap
	}
	if len(add.Completion) > 0 {
		base.Completion = add.Completion
	}
	return base
}

// normalize turns YAML's map[string]any (and nested values) into what encoding/json marshals.
func normalize(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = normalize(e)
		}
	case map[any]any:
		m := map[string]any{}
		for k, e := range x {
			m[fmt.Sprint(k)] = normalize(e)
		}
		return m
	case []any:
		for i, e := range x {
			x[i] = normalize(e)
		}
	}
	return v
}

func cmpOr[T any](a, b []T) []T {
	if len(a) > 0 {
		return a
	}
	return b
}

func cmpOrString(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// yamlLine digs the line out of a yaml.v3 error ("yaml: line 7: …").
func yamlLine(err error) int {
	var n int
	msg := err.Error()
	if i := strings.Index(msg, "line "); i >= 0 {
		fmt.Sscanf(msg[i+5:], "%d", &n)
	}
	return n
}

// Notes are what lint says about a definition that is valid but may not mean what it seems to:
// today, a phase whose `allowedTools: []` allows no tool call at all (not every tool).
func Notes(def *workflow.Definition) []string {
	var notes []string
	for _, p := range def.Phases {
		if p.Tools.NoTools {
			notes = append(notes, fmt.Sprintf("phase %s: allowedTools: [] allows no tools there (the hook refuses every tool call but the Bash commands git exarchos status, transitions, transition, submit, stage and checkpoint, each on its own, which move the phase on); leave allowedTools out to allow every tool", p.ID))
		}
	}
	return notes
}
