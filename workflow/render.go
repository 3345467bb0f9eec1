package workflow

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// mermaidID makes a phase id safe as a Mermaid state id (no '-').
func mermaidID(id string) string { return strings.ReplaceAll(id, "-", "_") }

// label describes a transition on a diagram edge or a text line.
func (t Transition) label(d *Definition) string {
	var parts []string
	for _, tr := range t.On {
		if tr != OnTransition {
			parts = append(parts, string(tr))
		}
	}
	if len(t.Guards) > 0 {
		parts = append(parts, "["+strings.Join(t.Guards, ", ")+"]")
	}
	if t.Counts != "" {
		if n := d.counterLimit(t); n > 0 {
			parts = append(parts, fmt.Sprintf("counts %s (max %d)", t.Counts, n))
		} else {
			parts = append(parts, "counts "+string(t.Counts))
		}
	}
	if t.WhenExhausted != "" {
		parts = append(parts, "when "+string(t.WhenExhausted)+" exhausted")
	}
	if t.Note != "" {
		parts = append(parts, t.Note)
	}
	return strings.Join(parts, ", ")
}

func (d *Definition) counterLimit(t Transition) int {
	if t.Counts == FixCycles {
		p, _ := d.Phase(d.compoundOf(t.From))
		return p.MaxFixCycles
	}
	return d.limit(t.Counts)
}

// Mermaid renders the definition as a stateDiagram-v2; compound phases are nested states and the
// universal transitions are a note.
func (d *Definition) Mermaid() string {
	var b strings.Builder
	b.WriteString("stateDiagram-v2\n")
	for _, p := range d.Phases {
		if strings.Contains(p.ID, "-") && p.Kind != Compound {
			fmt.Fprintf(&b, "    state \"%s\" as %s\n", p.ID, mermaidID(p.ID))
		}
	}
	fmt.Fprintf(&b, "    [*] --> %s\n", mermaidID(d.Initial))
	edge := func(indent string, t Transition) {
		fmt.Fprintf(&b, "%s%s --> %s", indent, mermaidID(t.From), mermaidID(t.To))
		if l := t.label(d); l != "" {
			fmt.Fprintf(&b, " : %s", strings.ReplaceAll(l, ":", " "))
		}
		b.WriteByte('\n')
	}
	for _, p := range d.Phases {
		if p.Kind != Compound {
			continue
		}
		fmt.Fprintf(&b, "    state %s {\n", mermaidID(p.ID))
		fmt.Fprintf(&b, "        [*] --> %s\n", mermaidID(p.Initial))
		for _, t := range d.Transitions {
			if !t.Universal() && d.compoundOf(t.From) == p.ID && d.compoundOf(t.To) == p.ID {
				edge("        ", t)
			}
		}
		b.WriteString("    }\n")
		fmt.Fprintf(&b, "    note right of %s : max %d fix cycles\n", mermaidID(p.ID), p.MaxFixCycles)
	}
	for _, t := range d.Transitions {
		if t.Universal() || d.isJoin(t) {
			continue // a fan-out's join is drawn through its fork and join (mermaidFanouts)
		}
		if c := d.compoundOf(t.From); c != "" && c == d.compoundOf(t.To) {
			continue
		}
		edge("    ", t)
	}
	d.mermaidFanouts(&b)
	for _, p := range d.Phases {
		if p.Kind == Final {
			fmt.Fprintf(&b, "    %s --> [*]\n", mermaidID(p.ID))
		}
	}
	for _, t := range d.Transitions {
		if t.Universal() {
			fmt.Fprintf(&b, "    note left of %s : from any non-final phase, %s\n", mermaidID(t.To), strings.ReplaceAll(t.label(d), ":", " "))
		}
	}
	return b.String()
}

// Text renders the definition for `describe`: phases (children indented under their compound),
// transitions with guards, limits and policies.
func (d *Definition) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s\n", d.Type, d.Description)
	if d.Source != "" {
		fmt.Fprintf(&b, "defined in the repository: %s\n", d.Source)
	}
	for _, name := range slices.Sorted(maps.Keys(d.ShellGuards)) {
		fmt.Fprintf(&b, "guard %s%s: sh -c %q (timeout %dms)\n", ShellGuardPrefix, name, d.ShellGuards[name].Run, d.ShellGuards[name].TimeoutMs)
	}
	b.WriteString(d.taskGatesText())
	b.WriteString("\nphases:\n")
	var phase func(p Phase, indent string)
	phase = func(p Phase, indent string) {
		var tags []string
		if p.ID == d.Initial {
			tags = append(tags, "initial")
		}
		switch p.Kind {
		case Compound:
			tags = append(tags, fmt.Sprintf("compound, enters %s, max %d fix cycles", p.Initial, p.MaxFixCycles))
		case Final:
			tags = append(tags, "final")
		}
		tags = append(tags, envelopeTags(p.Tools, "git exarchos submit")...)
		if f, ok := d.FanoutOf(p.ID); ok {
			tags = append(tags, fmt.Sprintf("runs the stages %s in parallel, joins into %s", strings.Join(f.Stages, ", "), f.Join))
		}
		if len(p.Gates) > 0 {
			tags = append(tags, "gates: "+quotedList(p.Gates))
		}
		fmt.Fprintf(&b, "%s%s", indent, p.ID)
		if len(tags) > 0 {
			fmt.Fprintf(&b, " (%s)", strings.Join(tags, "; "))
		}
		if p.Description != "" {
			fmt.Fprintf(&b, " — %s", p.Description)
		}
		b.WriteByte('\n')
		for _, c := range d.Phases {
			if c.Parent == p.ID && p.Kind == Compound {
				phase(c, indent+"  ")
			}
		}
	}
	for _, p := range d.Phases {
		if p.Parent == "" {
			phase(p, "  ")
		}
	}
	d.textFanouts(&b)
	b.WriteString("\ntransitions:\n")
	for _, t := range d.Transitions {
		from := t.From
		if t.Universal() {
			from = "any non-final phase"
		}
		fmt.Fprintf(&b, "  %s → %s", from, t.To)
		if l := t.label(d); l != "" {
			fmt.Fprintf(&b, "  %s", l)
		}
		b.WriteByte('\n')
	}
	var extra []string
	if len(d.Tracks) > 0 {
		extra = append(extra, "tracks: "+strings.Join(d.Tracks, ", ")+" (git exarchos set <feature> track=<track>)")
	}
	if len(d.Reviews) > 0 {
		extra = append(extra, "required reviews: "+strings.Join(d.Reviews, ", ")+"; review findings of severity "+d.BlockingSeverity()+" or above block")
	}
	if len(d.SynthesisPolicies) > 0 {
		extra = append(extra, "synthesis policies: "+strings.Join(d.SynthesisPolicies, ", ")+" (default "+d.SynthesisPolicies[0]+")")
	}
	if len(d.CompletionPolicies) > 0 {
		extra = append(extra, "completion policies: "+strings.Join(d.CompletionPolicies, ", ")+" (default "+d.CompletionPolicies[0]+")")
	}
	if d.Limits.PlanRevisions > 0 {
		extra = append(extra, fmt.Sprintf("plan revisions: %d", d.Limits.PlanRevisions))
	}
	if d.Limits.SynthesisRetries > 0 {
		extra = append(extra, fmt.Sprintf("synthesis retries: %d", d.Limits.SynthesisRetries))
	}
	if d.Limits.MaxIterations > 0 {
		extra = append(extra, fmt.Sprintf("max iterations: %d by default", d.Limits.MaxIterations))
	}
	if len(extra) > 0 {
		b.WriteString("\n")
		for _, e := range extra {
			fmt.Fprintf(&b, "%s\n", e)
		}
	}
	return b.String()
}

// envelopeTags describe an envelope on a line of describe's text; submit is the command that hands
// in its completion.
func envelopeTags(t Envelope, submit string) []string {
	var tags []string
	if len(t.Deny) > 0 {
		tag := "refuses " + strings.Join(t.Deny, ", ")
		if len(t.ExceptArtifacts) > 0 {
			tag += " except on the " + strings.Join(t.ExceptArtifacts, " and ") + " artifacts"
		}
		tags = append(tags, tag)
	}
	if len(t.AllowedTools) > 0 {
		tags = append(tags, "allows only "+strings.Join(t.AllowedTools, ", "))
	} else if t.NoTools {
		tags = append(tags, "allows no tools")
	}
	if t.TurnCap > 0 {
		tags = append(tags, fmt.Sprintf("turn cap %d", t.TurnCap))
	}
	if len(t.Completion) > 0 {
		tags = append(tags, "completion schema ("+submit+")")
	}
	return tags
}
