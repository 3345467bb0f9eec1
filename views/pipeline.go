package views

import (
	"slices"
	"strings"
	"time"

	"github.com/exarchos/git-exarchos/gitstore"
	"github.com/exarchos/git-exarchos/hooks"
	"github.com/exarchos/git-exarchos/workflow"
)

// The pipeline, the task board and the status diagram: views over every workflow's snapshot. What
// they take from the commands (the workflows `list` shows, the ways out of a phase as
// `transitions` evaluates them) comes in as Workflows, which app supplies.

// Workflows is what the pipeline and the task board take from the commands that own it (app).
type Workflows struct {
	// List returns the workflows `list` shows: the active ones, or all of them.
	List func(all bool) ([]gitstore.Summary, error)
	// Transitions evaluates the ways out of a workflow's phase, as `transitions` does. App gives
	// one whose calls share one gathering of git facts, so a view of many workflows asks each
	// git question once per branch tip, not once per workflow.
	Transitions func(feature string) ([]workflow.TransitionOption, error)
}

// PipelineOptions are `git exarchos view pipeline [--all]`.
type PipelineOptions struct {
	All bool      // finished workflows too
	Now time.Time // for ages; zero: the wall clock
}

// PipelineRow is one workflow of the pipeline view.
type PipelineRow struct {
	Feature string    `json:"feature"`
	Type    string    `json:"type"`
	Phase   string    `json:"phase"`
	Branch  string    `json:"branch"`
	Started time.Time `json:"started"`
	Updated time.Time `json:"updated"`
	// AgeSeconds is the time since the workflow started; IdleSeconds since its last event.
	AgeSeconds  int64 `json:"ageSeconds"`
	IdleSeconds int64 `json:"idleSeconds"`
	// Blocked says what stops every way out of the phase (a failing guard, a limit, an open
	// circuit); Human is set when what it waits for is a human decision.
	Blocked string `json:"blocked,omitempty"`
	Human   bool   `json:"human,omitempty"`
	// Next is the command that moves it on (an open transition, or the first fix).
	Next  string         `json:"next,omitempty"`
	Tasks map[string]int `json:"tasks"`
	PR    *PipelinePR    `json:"pr,omitempty"`
}

// PipelinePR is the pull request as last observed.
type PipelinePR struct {
	Number         int    `json:"number"`
	URL            string `json:"url"`
	State          string `json:"state,omitempty"`
	Merged         bool   `json:"merged"`
	Checks         string `json:"checks,omitempty"`
	ReviewDecision string `json:"reviewDecision,omitempty"`
}

// Pipeline is the view of every workflow.
type Pipeline struct {
	Workflows []PipelineRow `json:"workflows"`
}

// ShowPipeline reads every workflow's state and evaluates the way out of its phase (the same
// evaluation as `transitions`).
func ShowPipeline(r *Repo, o PipelineOptions, w Workflows) (*Pipeline, error) {
	if o.Now.IsZero() {
		o.Now = time.Now()
	}
	list, err := w.List(o.All)
	if err != nil {
		return nil, err
	}
	p := &Pipeline{Workflows: []PipelineRow{}}
	for _, sum := range list {
		row, err := pipelineRow(r, w, sum, o.Now)
		if err != nil {
			return nil, err
		}
		p.Workflows = append(p.Workflows, row)
	}
	return p, nil
}

func pipelineRow(r *Repo, w Workflows, sum gitstore.Summary, now time.Time) (PipelineRow, error) {
	first, snap, err := r.Store.Events(sum.Feature, gitstore.EventFilter{Limit: 1})
	if err != nil {
		return PipelineRow{}, err
	}
	st, err := workflow.DecodeState(snap.State)
	if err != nil {
		return PipelineRow{}, err
	}
	row := PipelineRow{Feature: sum.Feature, Type: st.Type, Phase: st.Phase, Branch: st.Branch, Updated: sum.Updated,
		IdleSeconds: secondsSince(now, sum.Updated), Tasks: map[string]int{}}
	if len(first) > 0 {
		row.Started = first[0].Time
		row.AgeSeconds = secondsSince(now, first[0].Time)
	}
	for _, t := range st.Tasks {
		row.Tasks[t.Status]++
	}
	if pr := st.PR; pr != nil && (pr.Number > 0 || pr.URL != "") { // an offline merge verification knows no pull request
		row.PR = &PipelinePR{Number: pr.Number, URL: pr.URL, State: pr.State, Merged: pr.Merged, Checks: pr.Checks, ReviewDecision: pr.ReviewDecision}
	}
	if r.IsFinal(st.Type, st.Phase) {
		return row, nil
	}
	ways, err := w.Transitions(sum.Feature)
	if err != nil {
		return PipelineRow{}, err
	}
	row.Next, row.Blocked, row.Human = wayOut(ways, st)
	return row, nil
}

// wayOut is the next step out of a phase: the first open transition forward (taken by
// `transition` or a loop signal); else what blocks the first closed one, with its fix; else an
// open transition only a human takes (reject, unblock). Universal ones (cancel, cleanup) are
// always there and say nothing about progress.
func wayOut(opts []workflow.TransitionOption, st workflow.State) (next, blocked string, human bool) {
	var firstFix, firstBlock, humanOpen, retry string
	// What blocks the way forward comes before what blocks a loop back (a fix cycle, a retry): in
	// review, the reviews to pass, not the failed review a fix cycle would need.
	opts = slices.Clone(opts)
	loopsBack := func(o workflow.TransitionOption) int {
		if o.Counts != "" {
			return 1
		}
		return 0
	}
	slices.SortStableFunc(opts, func(a, b workflow.TransitionOption) int { return loopsBack(a) - loopsBack(b) })
	for _, o := range opts {
		if o.Universal || o.Trigger == workflow.OnCancel {
			continue
		}
		if o.Allowed && o.Retry() {
			// Spending a retry (synthesis failed) is no next step while another way forward is open.
			if retry == "" {
				retry = o.Command
			}
			continue
		}
		if o.Allowed {
			if !humanCommand(o.Command) {
				return o.Command, "", false
			}
			if humanOpen == "" {
				humanOpen = o.Command
			}
			continue
		}
		if firstBlock != "" {
			continue
		}
		if o.Blocked != "" {
			firstBlock, firstFix = o.To+": "+o.Blocked, ""
			continue
		}
		for _, g := range o.Guards {
			if f := g.Failure; f != nil && !g.Passed && !g.Overridden {
				firstBlock, firstFix = o.To+": "+f.Reason, f.Fix
				break
			}
		}
	}
	if st.Circuit != nil && st.Circuit.Open {
		firstBlock = "circuit open in " + st.Circuit.Compound
		firstFix = workflow.AskUser("git exarchos unblock " + st.Feature + " --reason \"…\"")
	}
	if firstFix == "" && firstBlock == "" {
		firstFix = humanOpen
	}
	if firstFix == "" && firstBlock == "" {
		firstFix = retry
	}
	human = humanCommand(firstFix)
	if human && !strings.HasPrefix(firstFix, "ask the user") {
		firstFix = workflow.AskUser(firstFix) // a human's step is said as one, as everywhere else
	}
	return firstFix, firstBlock, human
}

// humanCommand reports whether a command is a human decision (`git exarchos approve …`, or
// already said as the user's step).
func humanCommand(cmd string) bool {
	if rest, ok := strings.CutPrefix(cmd, "ask the user to run"); ok {
		cmd = strings.TrimPrefix(rest, ":")
	}
	f := strings.Fields(cmd)
	return len(f) > 2 && f[0] == "git" && f[1] == "exarchos" && hooks.HumanDecision(f[2])
}

func secondsSince(now, t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return int64(now.Sub(t) / time.Second)
}

// TasksOptions are `git exarchos view tasks [<feature>]`: one workflow, or every active one.
type TasksOptions struct {
	Feature string
	All     bool // with no feature: finished workflows too
}

// TaskBoard is the tasks of one or more workflows, grouped by status.
type TaskBoard struct {
	Workflows []WorkflowTasks `json:"workflows"`
}

// WorkflowTasks is one workflow's board.
type WorkflowTasks struct {
	Feature string          `json:"feature"`
	Phase   string          `json:"phase"`
	Tasks   []workflow.Task `json:"tasks"`
	Counts  map[string]int  `json:"counts"`
	// Findings are the open review findings that block: the fix cycle's work (app's
	// review_findings.go records them).
	Findings []workflow.Finding `json:"findings,omitempty"`
}

// ShowTasks reads the task boards from the snapshots.
func ShowTasks(r *Repo, o TasksOptions, wf Workflows) (*TaskBoard, error) {
	var features []string
	if o.Feature != "" {
		features = []string{o.Feature}
	} else {
		list, err := wf.List(o.All)
		if err != nil {
			return nil, err
		}
		for _, s := range list {
			features = append(features, s.Feature)
		}
	}
	b := &TaskBoard{Workflows: []WorkflowTasks{}}
	for _, f := range features {
		st, _, err := r.State(f)
		if err != nil {
			return nil, err
		}
		w := WorkflowTasks{Feature: f, Phase: st.Phase, Tasks: st.Tasks, Counts: map[string]int{}, Findings: boardFindings(r, st)}
		if w.Tasks == nil {
			w.Tasks = []workflow.Task{}
		}
		for _, t := range st.Tasks {
			w.Counts[t.Status]++
		}
		b.Workflows = append(b.Workflows, w)
	}
	return b, nil
}

// boardFindings are the open blocking findings a task board shows: the fix cycle's work. A type
// this repository does not define shows none rather than failing the board.
func boardFindings(r *Repo, st workflow.State) []workflow.Finding {
	def, err := r.Definition(st.Type)
	if err != nil {
		return nil
	}
	blocking, _ := st.OpenFindings(def)
	return blocking
}

// StatusDiagram is `status --format mermaid`: the type's diagram, the path taken and the current
// phase marked.
type StatusDiagram struct {
	Feature string   `json:"feature"`
	Type    string   `json:"type"`
	Phase   string   `json:"phase"`
	Path    []string `json:"path"`
	Mermaid string   `json:"mermaid"`
}

// StatusDiagramOptions selects the workflow whose diagram `status --format mermaid` draws (empty:
// the one bound to the branch).
type StatusDiagramOptions struct{ Feature string }

// ShowStatusDiagram reads the path from the events (as `audit` does) and marks it on the diagram.
func ShowStatusDiagram(r *Repo, o StatusDiagramOptions) (*StatusDiagram, error) {
	a, err := ShowAudit(r, AuditOptions(o))
	if err != nil {
		return nil, err
	}
	def, err := r.Definition(a.Type)
	if err != nil {
		return nil, err
	}
	return &StatusDiagram{Feature: a.Feature, Type: a.Type, Phase: a.Phase, Path: a.Path, Mermaid: def.MermaidMarked(a.Path, a.Phase)}, nil
}
