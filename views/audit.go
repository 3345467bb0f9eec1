// Package views is the read side's views and diagnostics: the pipeline of every workflow, the
// task board and the status diagram (pipeline.go, with `list` and `transitions` given by the
// commands as Workflows), a workflow's audit timeline, with what trust made of each decision and
// the denials the journal lost (audit.go), its events (log.go), the check of every workflow ref
// and log (fsck.go), and the context document a new session is given (rehydrate.go). Nothing
// here decides; the audit flushes the hook's journal first, so it shows every denial.
//
// It may import hookrun (the journal, the refs the hooks' controls hold, the hook's view of a
// workflow), project, hooks, gitstore, workflow and the internal helpers; never app or cmd. internal/archtest holds the rule.
package views

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/exarchos/git-exarchos/gitstore"
	"github.com/exarchos/git-exarchos/hookrun"
	"github.com/exarchos/git-exarchos/workflow"
)

// Repo is what the views read: an opened repository as the hook runtime sees it (with trust).
type Repo = hookrun.Repo

// boundaryTypes are the events the audit shows: every place the workflow crossed, or was refused
// at, a boundary. tool.called is counted, not listed.
var boundaryTypes = []string{
	workflow.EventStarted, workflow.EventTransitioned, workflow.EventCancelled, workflow.EventUnblocked,
	workflow.EventGuardOverridden, workflow.EventGuardFailed, workflow.EventPlanApproved, workflow.EventPlanRejected,
	workflow.EventCircuitOpened, workflow.EventToolDenied, workflow.EventGrantIssued, workflow.EventGrantConsumed,
	workflow.EventBudgetExtended, workflow.EventCompletionSubmitted, workflow.EventCancelRequested,
	workflow.EventCompensationStep, workflow.EventMergeVerified,
}

// AuditEntry is one boundary in the timeline.
type AuditEntry struct {
	Seq     int64           `json:"seq"`
	Time    time.Time       `json:"time"`
	Actor   string          `json:"actor"`
	Type    string          `json:"type"`
	Commit  string          `json:"commit"` // the workflow ref's commit that recorded the event
	Summary string          `json:"summary"`
	Data    json.RawMessage `json:"data,omitempty"`
	// Refused says why a human decision had no effect (signed mode: unsigned, bad signature, …).
	Refused string `json:"refused,omitempty"`
}

// Audit is a workflow's timeline of boundaries.
type Audit struct {
	Feature   string       `json:"feature"`
	Type      string       `json:"type"`
	Phase     string       `json:"phase"`
	Head      string       `json:"head"`
	Entries   []AuditEntry `json:"entries"`
	ToolCalls int          `json:"toolCalls"` // tool.called events (turns counted by the hook)
	Path      []string     `json:"path"`      // the phases the workflow went through, in order
	// DenialsLost: stretches of the hook's journal of denials that never reached the log (the
	// journal or its counter was deleted or edited between flushes).
	DenialsLost []hookrun.JournalLoss `json:"denialsLost"`
	mermaid     string
}

// AuditOptions are `git exarchos audit <feature> [--format text|json|mermaid]`.
type AuditOptions struct{ Feature string }

// ShowAudit reads every event and the ref's history once (for the commit of each event).
func ShowAudit(r *Repo, o AuditOptions) (*Audit, error) {
	feature, err := r.ResolveFeature(o.Feature)
	if err != nil {
		return nil, err
	}
	r.FlushJournal(feature)
	events, snap, err := r.Store.Events(feature, gitstore.EventFilter{})
	if err != nil {
		return nil, err
	}
	st, err := workflow.DecodeState(snap.State)
	if err != nil {
		return nil, err
	}
	commits, err := r.Store.EventCommits(feature)
	if err != nil {
		return nil, err
	}
	// Decisions are shown with their verified signer, and refused ones with why (trust/trust.go).
	refused := map[string]string{}
	if r.Signed() {
		events = r.WithVerdicts(feature, events)
		if cur, _, err := r.State(feature); err == nil {
			for _, f := range cur.Refused {
				refused[f.ID] = f.Reason
			}
		}
	}
	a := &Audit{Feature: feature, Type: st.Type, Phase: st.Phase, Head: snap.Commit.String(), Entries: []AuditEntry{}}
	def, _ := r.Rules().Defs.Lookup(st.Type) // nil: the path is drawn without the definition
	for _, e := range events {
		switch {
		case e.Type == workflow.EventToolCalled:
			a.ToolCalls++
			continue
		case !slices.Contains(boundaryTypes, e.Type):
			continue
		}
		entry := AuditEntry{Seq: e.Seq, Time: e.Time, Actor: e.Actor, Type: e.Type, Commit: commits[e.Seq], Summary: summarize(e), Data: e.Data, Refused: refused[e.ID]}
		if e.Verdict != nil && e.Verdict.OK && e.Verdict.Principal != "" {
			entry.Actor = e.Verdict.Principal
		}
		if entry.Refused != "" {
			entry.Summary = "REFUSED (" + entry.Refused + "): " + entry.Summary
			a.Entries = append(a.Entries, entry)
			continue
		}
		a.Entries = append(a.Entries, entry)
		switch e.Type {
		case workflow.EventStarted:
			var d workflow.StartedData
			if e.DecodeData(&d) == nil {
				a.Path = append(a.Path, d.Phase)
			}
		case workflow.EventTransitioned, workflow.EventCancelled:
			var d workflow.TransitionedData
			if e.DecodeData(&d) == nil {
				a.Path = append(a.Path, d.To)
			}
		case workflow.EventCancelRequested:
			if def != nil && def.CancellingPhase() != "" {
				a.Path = append(a.Path, def.CancellingPhase())
			}
		}
	}
	a.DenialsLost = hookrun.JournalLosses(events)
	if a.DenialsLost == nil {
		a.DenialsLost = []hookrun.JournalLoss{}
	}
	a.mermaid = a.pathMermaid(def)
	return a, nil
}

// summarize says what one boundary event was, in a line.
func summarize(e workflow.Event) string {
	var d map[string]any
	_ = json.Unmarshal(e.Data, &d)
	str := func(k string) string {
		if v, ok := d[k]; ok && v != nil {
			return fmt.Sprint(v)
		}
		return ""
	}
	with := func(s, label, k string) string {
		if v := str(k); v != "" {
			return s + " " + label + v
		}
		return s
	}
	switch e.Type {
	case workflow.EventStarted:
		return fmt.Sprintf("started as %s on branch %s", str("type"), str("branch"))
	case workflow.EventTransitioned:
		s := fmt.Sprintf("%s → %s", str("from"), str("to"))
		if g := str("overridden"); g != "" {
			s += " (guards overridden: " + strings.Trim(g, "[]") + ")"
		}
		return with(s, "— ", "reason")
	case workflow.EventCancelled:
		return with(fmt.Sprintf("cancelled: %s → %s", str("from"), str("to")), "— ", "reason")
	case workflow.EventGuardFailed:
		var g workflow.GuardFailedData
		_ = e.DecodeData(&g)
		var ids []string
		for _, f := range g.Failures {
			ids = append(ids, f.Guard+" ("+f.Reason+")")
		}
		if g.Code == workflow.CodeLimitReached && g.Limits != nil {
			ids = append(ids, fmt.Sprintf("limit reached (%+v)", *g.Limits))
		}
		return fmt.Sprintf("%s → %s refused: %s", g.From, g.To, strings.Join(ids, "; "))
	case workflow.EventGuardOverridden:
		return with(fmt.Sprintf("guard %s overridden in %s", str("guard"), str("phase")), "— ", "reason")
	case workflow.EventToolDenied:
		return with(fmt.Sprintf("%s denied in %s (%s)", str("tool"), str("phase"), str("kind")), "on ", "subject")
	case workflow.EventGrantIssued:
		return with(with(fmt.Sprintf("grant: one %s call", str("tool")), "matching ", "match"), "— ", "reason")
	case workflow.EventGrantConsumed:
		return with(fmt.Sprintf("grant %s used by %s", str("grant"), str("tool")), "on ", "subject")
	case workflow.EventBudgetExtended:
		return with(fmt.Sprintf("budget of %s extended by %s tool calls", str("phase"), str("turns")), "— ", "reason")
	case workflow.EventCompletionSubmitted:
		return fmt.Sprintf("completion of %s submitted (sha256 %.12s)", str("phase"), str("sha256"))
	case workflow.EventCompensationStep:
		return with(fmt.Sprintf("compensation: %s %s → %s", str("action"), str("resource"), str("outcome")), "— ", "detail")
	case workflow.EventCancelRequested:
		return with(fmt.Sprintf("cancel requested in %s", str("from")), "— ", "reason")
	case workflow.EventPlanApproved, workflow.EventPlanRejected, workflow.EventUnblocked:
		return with(with(e.Type+" in "+str("phase"), "— ", "note"), "— ", "reason")
	}
	b, _ := json.Marshal(d)
	return e.Type + " " + string(b)
}

// pathMermaid draws the definition's phases with the path the workflow took: each transition taken
// is an edge numbered in the order it happened; visited phases are highlighted.
func (a *Audit) pathMermaid(def *workflow.Definition) string {
	ok := def != nil
	var b strings.Builder
	b.WriteString("stateDiagram-v2\n")
	id := func(s string) string { return strings.ReplaceAll(s, "-", "_") }
	visited := map[string]bool{}
	for _, p := range a.Path {
		visited[p] = true
	}
	if ok {
		for _, p := range def.Phases {
			if p.Kind == workflow.Compound {
				continue
			}
			fmt.Fprintf(&b, "    state \"%s\" as %s\n", p.ID, id(p.ID))
		}
	}
	if len(a.Path) > 0 {
		fmt.Fprintf(&b, "    [*] --> %s\n", id(a.Path[0]))
	}
	for i := 1; i < len(a.Path); i++ {
		fmt.Fprintf(&b, "    %s --> %s : %d\n", id(a.Path[i-1]), id(a.Path[i]), i)
	}
	if ok && def.IsFinal(a.Phase) {
		fmt.Fprintf(&b, "    %s --> [*]\n", id(a.Phase))
	}
	b.WriteString("    classDef visited fill:#cde8c9,stroke:#2d6a2d\n")
	var names []string
	for _, p := range a.Path {
		if !slices.Contains(names, id(p)) {
			names = append(names, id(p))
		}
	}
	if len(names) > 0 {
		fmt.Fprintf(&b, "    class %s visited\n", strings.Join(names, ","))
	}
	return b.String()
}

// Mermaid is the path diagram.
func (a *Audit) Mermaid() string { return a.mermaid }
