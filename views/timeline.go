package views

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/exarchos/git-exarchos/gitstore"
	"github.com/exarchos/git-exarchos/workflow"
)

// The delegation timeline and review convergence: two views over one workflow's events, each
// folded once in order (workflow.Replay) so every entry knows the phase and fix cycle it met.

// TimelineOptions are `git exarchos view timeline [<feature>]`.
type TimelineOptions struct{ Feature string }

// TimelineEntry is one thing someone did: a phase change, a task's step, a review, a validation.
type TimelineEntry struct {
	Seq   int64     `json:"seq"`
	Time  time.Time `json:"time"`
	Actor string    `json:"actor"`
	// Who is the agent that did it as the client reported it: a subagent's type and id, or
	// "main" for the session's own agent, or "human" for a human decision.
	Who     string `json:"who"`
	Session string `json:"session,omitempty"`
	Phase   string `json:"phase"` // the phase the event met
	Task    string `json:"task,omitempty"`
	Kind    string `json:"kind"` // the event type
	Summary string `json:"summary"`
}

// TimelineTask is one task's life: when it was added, started and finished, and by whom.
type TimelineTask struct {
	ID       string    `json:"id"`
	Title    string    `json:"title,omitempty"`
	Status   string    `json:"status"`
	Added    time.Time `json:"added"`
	Started  time.Time `json:"started,omitzero"`
	Finished time.Time `json:"finished,omitzero"`
	// Seconds is from start (else added) to finish, or to the last event while it runs.
	Seconds int64  `json:"seconds"`
	Who     string `json:"who,omitempty"` // who finished it
}

// Timeline is `view timeline`: every step in order, each task's span, and counts per agent.
type Timeline struct {
	Feature string          `json:"feature"`
	Type    string          `json:"type"`
	Phase   string          `json:"phase"`
	Entries []TimelineEntry `json:"entries"`
	Tasks   []TimelineTask  `json:"tasks"`
	// ByWho counts the entries per agent (Who).
	ByWho map[string]int `json:"byWho"`
}

// timelineTypes are the events the timeline shows: the work and its checks, not the hook's
// bookkeeping (tool calls, journal flushes), which the audit shows.
var timelineTypes = []string{
	workflow.EventStarted, workflow.EventTransitioned, workflow.EventCancelled, workflow.EventPlanApproved,
	workflow.EventPlanRejected, workflow.EventTaskAdded, workflow.EventTaskStarted, workflow.EventTaskCompleted,
	workflow.EventTaskFailed, workflow.EventReviewRecorded, workflow.EventFindingResolved, workflow.EventValidationRecorded,
	workflow.EventArtifactRecorded, workflow.EventWorktreeCreated, workflow.EventPRLinked, workflow.EventMergeVerified,
	workflow.EventStageCompleted, workflow.EventStageFailed, workflow.EventGuardOverridden, workflow.EventUnblocked,
}

// replayed reads a workflow's events (with trust's verdicts) and its definition.
func replayed(r *Repo, given string) (string, workflow.State, []workflow.Event, *workflow.Definition, error) {
	feature, err := r.ResolveFeature(given)
	if err != nil {
		return "", workflow.State{}, nil, nil, err
	}
	events, snap, err := r.Store.Events(feature, gitstore.EventFilter{})
	if err != nil {
		return "", workflow.State{}, nil, nil, err
	}
	st, err := workflow.DecodeState(snap.State)
	if err != nil {
		return "", workflow.State{}, nil, nil, fmt.Errorf("read the state of %s: %w", feature, err)
	}
	if r.Signed() {
		events = r.WithVerdicts(feature, events)
	}
	def, err := r.Definition(st.Type)
	if err != nil {
		return "", workflow.State{}, nil, nil, err
	}
	return feature, st, events, def, nil
}

// ShowTimeline is who did what, when: per task and per agent.
func ShowTimeline(r *Repo, o TimelineOptions) (*Timeline, error) {
	feature, st, events, def, err := replayed(r, o.Feature)
	if err != nil {
		return nil, err
	}
	tl := &Timeline{Feature: feature, Type: st.Type, Phase: st.Phase, Entries: []TimelineEntry{}, Tasks: []TimelineTask{}, ByWho: map[string]int{}}
	tasks := map[string]*TimelineTask{}
	var order []string
	var last time.Time
	workflow.Replay(def, events, func(s *workflow.State, e workflow.Event) {
		last = e.Time
		if !slices.Contains(timelineTypes, e.Type) {
			return
		}
		entry := TimelineEntry{Seq: e.Seq, Time: e.Time, Actor: e.Actor, Phase: s.Phase, Kind: e.Type, Summary: summarize(e)}
		// The fields the timeline reads, of whichever event this is (task, review, validation,
		// artifact, start, merge): one decode.
		var who struct {
			ID        string `json:"id"`
			Title     string `json:"title"`
			Session   string `json:"session"`
			Agent     string `json:"agent"`
			AgentType string `json:"agentType"`
			Human     bool   `json:"human"`
			Dimension string `json:"dimension"`
			Verdict   string `json:"verdict"`
			Command   string `json:"command"`
			ExitCode  int    `json:"exitCode"`
			Gate      bool   `json:"gate"`
			Name      string `json:"name"`
			Path      string `json:"path"`
			Phase     string `json:"phase"`
			Method    string `json:"method"`
			Commit    string `json:"commit"`
		}
		_ = e.DecodeData(&who)
		entry.Session, entry.Who = who.Session, whoDid(e, who.Agent, who.AgentType, who.Human)
		if e.Verdict != nil && e.Verdict.OK && e.Verdict.Principal != "" {
			entry.Actor = e.Verdict.Principal
		}
		switch e.Type {
		case workflow.EventTaskAdded, workflow.EventTaskStarted, workflow.EventTaskCompleted, workflow.EventTaskFailed:
			entry.Task = who.ID
			t := tasks[who.ID]
			if t == nil {
				t = &TimelineTask{ID: who.ID, Title: who.Title, Added: e.Time}
				tasks[who.ID] = t
				order = append(order, who.ID)
			}
			switch e.Type {
			case workflow.EventTaskAdded:
				entry.Summary = "task " + who.ID + " added: " + who.Title
			case workflow.EventTaskStarted:
				t.Started = e.Time
				entry.Summary = "task " + who.ID + " started"
			default:
				t.Finished, t.Who = e.Time, entry.Who
				entry.Summary = "task " + who.ID + " " + strings.TrimPrefix(e.Type, "task.")
			}
		case workflow.EventReviewRecorded:
			entry.Summary = fmt.Sprintf("review %s: %s", who.Dimension, who.Verdict)
		case workflow.EventStarted:
			entry.Phase = who.Phase
		case workflow.EventArtifactRecorded:
			entry.Summary = "artifact " + who.Name + " recorded"
			if who.Path != "" {
				entry.Summary += ": " + who.Path
			}
		case workflow.EventValidationRecorded:
			kind := "validation"
			if who.Gate {
				kind = "gate"
			}
			entry.Summary = fmt.Sprintf("%s `%s` exited %d", kind, who.Command, who.ExitCode)
		case workflow.EventMergeVerified:
			entry.Summary = fmt.Sprintf("merge verified (%s) at %.12s", who.Method, who.Commit)
		}
		tl.Entries = append(tl.Entries, entry)
		tl.ByWho[entry.Who]++
	}, nil)
	for _, id := range order {
		t := tasks[id]
		for _, cur := range st.Tasks {
			if cur.ID == id {
				t.Status = cur.Status
				if t.Title == "" {
					t.Title = cur.Title
				}
			}
		}
		from, to := t.Added, t.Finished
		if !t.Started.IsZero() {
			from = t.Started
		}
		if to.IsZero() || to.Before(from) {
			to = last
		}
		t.Seconds = int64(to.Sub(from) / time.Second)
		tl.Tasks = append(tl.Tasks, *t)
	}
	return tl, nil
}

// whoDid names who an event came from: a human decision, a subagent the client reported, or the
// session's own agent.
func whoDid(e workflow.Event, agent, agentType string, human bool) string {
	switch {
	case human || workflow.DecisionKind(e) != "" && e.Type != workflow.EventStarted:
		return "human"
	case agentType != "" && agent != "":
		return agentType + " (" + agent + ")"
	case agentType != "":
		return agentType
	case agent != "":
		return agent
	}
	return "main"
}

// Markdown is the timeline as the pull request's description shows it: each task's span, then
// every step.
func (tl *Timeline) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "### Timeline of %s (%s, now %s)\n\n", tl.Feature, tl.Type, tl.Phase)
	if len(tl.Tasks) > 0 {
		b.WriteString("| task | status | started | took | by |\n|---|---|---|---|---|\n")
		for _, t := range tl.Tasks {
			start := t.Started
			if start.IsZero() {
				start = t.Added
			}
			fmt.Fprintf(&b, "| %s %s | %s | %s | %s | %s |\n", mdCell(t.ID), mdCell(t.Title), t.Status, start.UTC().Format(time.RFC3339), time.Duration(t.Seconds)*time.Second, mdCell(t.Who))
		}
		b.WriteString("\n")
	}
	b.WriteString("| when | who | phase | what |\n|---|---|---|---|\n")
	for _, e := range tl.Entries {
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", e.Time.UTC().Format(time.RFC3339), mdCell(e.Who), e.Phase, mdCell(e.Summary))
	}
	return b.String()
}

// Mermaid is the tasks as a Gantt chart, one bar a task from its start to its finish.
func (tl *Timeline) Mermaid() string {
	var b strings.Builder
	fmt.Fprintf(&b, "gantt\n    title %s\n    dateFormat YYYY-MM-DDTHH:mm:ss\n    axisFormat %%H:%%M\n    section tasks\n", mermaidText(tl.Feature))
	for _, t := range tl.Tasks {
		start := t.Started
		if start.IsZero() {
			start = t.Added
		}
		secs := max(t.Seconds, 1)
		state := ""
		switch t.Status {
		case workflow.TaskCompleted:
			state = "done, "
		case workflow.TaskFailed:
			state = "crit, "
		case workflow.TaskInProgress:
			state = "active, "
		}
		fmt.Fprintf(&b, "    %s :%s%s, %ds\n", mermaidText(t.ID+" "+t.Title), state, start.UTC().Format("2006-01-02T15:04:05"), secs)
	}
	return b.String()
}

// ConvergenceOptions are `git exarchos view convergence [<feature>]`.
type ConvergenceOptions struct{ Feature string }

// ConvergenceRound is one review of a dimension: what it found, what was new, what it closed.
type ConvergenceRound struct {
	Seq      int64          `json:"seq"`
	Time     time.Time      `json:"time"`
	FixCycle int            `json:"fixCycle"` // the fix cycles behind the workflow when it was recorded
	Commit   string         `json:"commit,omitempty"`
	Verdict  string         `json:"verdict"`
	Found    map[string]int `json:"found"` // per severity
	New      int            `json:"new"`   // findings no earlier round of the dimension reported
	Repeated int            `json:"repeated"`
	Closed   int            `json:"closed"` // open findings of the dimension that this round did not repeat
	Open     int            `json:"open"`   // the dimension's findings open after it
}

// ConvergenceDimension is one review dimension's rounds.
type ConvergenceDimension struct {
	Dimension string             `json:"dimension"`
	Rounds    []ConvergenceRound `json:"rounds"`
	// Converging says the open findings went down from the first round to the last, or none are
	// left; a dimension still failing with as many open findings as it started with is not.
	Converging bool `json:"converging"`
}

// Convergence is `view convergence`: per review dimension, findings per fix cycle.
type Convergence struct {
	Feature    string                 `json:"feature"`
	Phase      string                 `json:"phase"`
	FixCycles  int                    `json:"fixCycles"`
	Dimensions []ConvergenceDimension `json:"dimensions"`
	// Hotspots are the files that findings named most, over every round: where review keeps
	// finding things is where the code needs attention.
	Hotspots []Hotspot `json:"hotspots"`
}

// Hotspot is a file findings named, and how often.
type Hotspot struct {
	File     string `json:"file"`
	Findings int    `json:"findings"`
}

// ShowConvergence folds the workflow once and reads each review against the findings open
// before it.
func ShowConvergence(r *Repo, o ConvergenceOptions) (*Convergence, error) {
	feature, st, events, def, err := replayed(r, o.Feature)
	if err != nil {
		return nil, err
	}
	c := &Convergence{Feature: feature, Phase: st.Phase, Dimensions: []ConvergenceDimension{}, Hotspots: []Hotspot{}}
	dims := map[string]*ConvergenceDimension{}
	var dimOrder []string
	seen := map[string]bool{} // finding ids ever reported
	files := map[string]int{}
	cycles := 0 // fix cycles entered so far: every compound's count, added up as they grow
	prev := map[string]int{}
	openOf := func(s *workflow.State, dim string) map[string]bool {
		out := map[string]bool{}
		for _, f := range s.Findings {
			if f.Dimension == dim && f.Closed == nil {
				out[f.ID] = true
			}
		}
		return out
	}
	var before map[string]bool
	workflow.Replay(def, events, func(s *workflow.State, e workflow.Event) {
		if e.Type != workflow.EventReviewRecorded {
			return
		}
		var d workflow.ReviewData
		if e.DecodeData(&d) == nil {
			before = openOf(s, d.Dimension)
		}
	}, func(s *workflow.State, e workflow.Event) {
		for comp, n := range s.FixCycles {
			if n > prev[comp] {
				cycles += n - prev[comp]
			}
			prev[comp] = n
		}
		if e.Type != workflow.EventReviewRecorded {
			return
		}
		var d workflow.ReviewData
		if e.DecodeData(&d) != nil {
			return
		}
		dim := dims[d.Dimension]
		if dim == nil {
			dim = &ConvergenceDimension{Dimension: d.Dimension}
			dims[d.Dimension] = dim
			dimOrder = append(dimOrder, d.Dimension)
		}
		round := ConvergenceRound{Seq: e.Seq, Time: e.Time, FixCycle: cycles, Commit: d.Commit, Verdict: d.Verdict, Found: map[string]int{}}
		reported := map[string]bool{}
		for _, f := range d.Findings {
			round.Found[f.Severity]++
			reported[f.ID] = true
			files[f.File]++
			if seen[f.ID] {
				round.Repeated++
			} else {
				round.New++
				seen[f.ID] = true
			}
		}
		for id := range before {
			if !reported[id] {
				round.Closed++
			}
		}
		round.Open = len(openOf(s, d.Dimension))
		dim.Rounds = append(dim.Rounds, round)
	})
	c.FixCycles = cycles
	for _, name := range dimOrder {
		d := dims[name]
		first, last := d.Rounds[0], d.Rounds[len(d.Rounds)-1]
		d.Converging = last.Open == 0 || (len(d.Rounds) > 1 && last.Open < first.Open)
		c.Dimensions = append(c.Dimensions, *d)
	}
	for f, n := range files {
		c.Hotspots = append(c.Hotspots, Hotspot{File: f, Findings: n})
	}
	slices.SortFunc(c.Hotspots, func(a, b Hotspot) int {
		if a.Findings != b.Findings {
			return b.Findings - a.Findings
		}
		return strings.Compare(a.File, b.File)
	})
	if len(c.Hotspots) > 10 {
		c.Hotspots = c.Hotspots[:10]
	}
	return c, nil
}

// Markdown is the convergence as a table per dimension, for the pull request.
func (c *Convergence) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "### Review convergence of %s (%d fix cycle(s))\n\n", c.Feature, c.FixCycles)
	if len(c.Dimensions) == 0 {
		b.WriteString("No reviews recorded.\n")
	}
	for _, d := range c.Dimensions {
		state := "not converging"
		if d.Converging {
			state = "converging"
		}
		fmt.Fprintf(&b, "**%s** (%s)\n\n| round | fix cycle | verdict | found | new | repeated | closed | open after |\n|---|---|---|---|---|---|---|---|\n", mdCell(d.Dimension), state)
		for i, r := range d.Rounds {
			fmt.Fprintf(&b, "| %d | %d | %s | %s | %d | %d | %d | %d |\n", i+1, r.FixCycle, r.Verdict, r.FoundText(), r.New, r.Repeated, r.Closed, r.Open)
		}
		b.WriteString("\n")
	}
	if len(c.Hotspots) > 0 {
		b.WriteString("Files findings named most: ")
		for i, h := range c.Hotspots {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "`%s` (%d)", h.File, h.Findings)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// Mermaid is the open findings after each round, one line per dimension (an xychart).
func (c *Convergence) Mermaid() string {
	var b strings.Builder
	rounds := 0
	for _, d := range c.Dimensions {
		rounds = max(rounds, len(d.Rounds))
	}
	fmt.Fprintf(&b, "xychart-beta\n    title \"Open findings after each review of %s\"\n    x-axis \"round\" [", mermaidText(c.Feature))
	for i := range rounds {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%d", i+1)
	}
	b.WriteString("]\n    y-axis \"open findings\"\n")
	for _, d := range c.Dimensions {
		b.WriteString("    line [")
		for i, r := range d.Rounds {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "%d", r.Open)
		}
		b.WriteString("]\n")
	}
	return b.String()
}

// FoundText is what a round found as "2 high, 1 low", most severe first (workflow.Severities:
// review's input is checked against them, so no other name is found).
func (r ConvergenceRound) FoundText() string {
	var parts []string
	for _, s := range workflow.Severities {
		if r.Found[s] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", r.Found[s], s))
		}
	}
	if len(parts) == 0 {
		return "nothing"
	}
	return strings.Join(parts, ", ")
}

// mdCell makes text safe in a Markdown table cell.
func mdCell(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ", "\r", " ").Replace(s)
}

// mermaidText keeps a label from breaking Mermaid's syntax.
func mermaidText(s string) string {
	return strings.NewReplacer(":", " ", "\n", " ", "#", " ", ";", " ", `"`, "'").Replace(s)
}
