package app

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"sort"
	"strings"
	"time"

	"github.com/exarchos/git-exarchos/engine"
	"github.com/exarchos/git-exarchos/gitstore"
	"github.com/exarchos/git-exarchos/hooks"
	"github.com/exarchos/git-exarchos/project"
	"github.com/exarchos/git-exarchos/saga"
	"github.com/exarchos/git-exarchos/trust"
	"github.com/exarchos/git-exarchos/workflow"
)

// InitOptions starts a workflow (`git exarchos init`).
type InitOptions struct {
	Feature       string
	Type          string
	Branch        string // default: the current branch
	Synthesis     string // oneshot: always | never | on-request
	Completion    string // loop: worker-done | reviewer-pass | both
	MaxIterations int    // loop
	// Human is the user's decision to start a workflow on a branch that had one.
	Human bool
}

// Init starts a workflow bound to a branch.
func Init(r *Repo, o InitOptions) (*project.Result, error) {
	if _, ok := r.Rules().Defs.Lookup(o.Type); !ok {
		return nil, project.Usagef("unknown workflow type %q: choose one of %s (see `git exarchos describe`; repository types are read from %s on the base branch %s)", o.Type, strings.Join(r.Rules().Types(), ", "), project.DefinitionsDir, r.Rules().Base.Ref)
	}
	if o.Branch == "" {
		o.Branch = r.CurrentBranch()
		if o.Branch == "" {
			return nil, project.Usagef("HEAD is detached, so there is no current branch to bind %s to: pass --branch <name>", o.Feature)
		}
	}
	if o.MaxIterations < 0 {
		return nil, project.Usagef("--max-iterations must be a positive number")
	}
	all, err := r.Store.List()
	if err != nil {
		return nil, err
	}
	var replaces []string
	for _, s := range all {
		// A second workflow on a branch whose workflow did not complete (active, or cancelled)
		// may trade its process for another's, of any type: cancel, then init --type oneshot,
		// drops the plan review, and a second feature completed beside the first stands in for
		// it. verify derives the same from the events (verify/verify_branch.go).
		if s.Branch == o.Branch && s.Feature != o.Feature && s.Phase != "completed" && s.Phase != "complete" {
			replaces = append(replaces, s.Feature)
		}
	}
	if err := r.refuseWhileWaiting(o, all); err != nil {
		return nil, err
	}
	return r.CreateWorkflow(workflow.Init{Feature: o.Feature, Type: o.Type, Branch: o.Branch, Synthesis: o.Synthesis, Completion: o.Completion, MaxIterations: o.MaxIterations,
		Replaces: replaces, Human: o.Human})
}

// StatusOptions selects what `status` shows.
type StatusOptions struct {
	Feature string
	Fields  []string // top-level fields of the JSON status to keep; empty keeps all
	// Text: the status is shown to a person: a signing-key warning already shown for the same key
	// is marked shown (Trust.KeyWarningShown), and one not shown yet is remembered as shown.
	Text bool
}

// Status is the JSON shape of `status`: the projected state plus the head commit.
type Status struct {
	workflow.State
	Head string `json:"head"`
	// Trust says whether human decisions are protected by signatures (trust/trust.go).
	Trust trust.Trust `json:"trust"`
	// Warnings: what in this clone may not do what someone expects (a git config key of an
	// earlier version, project/legacy_config.go); omitted when none.
	Warnings []string `json:"warnings,omitempty"`
	// Ended: the workflow is in a final phase, so what it created and still holds (its worktrees)
	// was left behind, not in use (the text form says so). Set only when it has resources.
	Ended bool `json:"-"`
}

// MarshalJSON adds head to the state's own JSON (State has a MarshalJSON of its own, which an
// embedding struct would otherwise inherit, dropping Head).
func (s Status) MarshalJSON() ([]byte, error) {
	m, err := s.fields()
	if err != nil {
		return nil, err
	}
	return json.Marshal(m)
}

func (s Status) fields() (map[string]json.RawMessage, error) {
	b, err := json.Marshal(s.State)
	if err != nil {
		return nil, err
	}
	return statusFields(b, s.Head, s.Trust, s.Warnings)
}

// statusFields is status's JSON object as fields: the state's own JSON with head and trust added.
func statusFields(state json.RawMessage, head string, trust trust.Trust, warnings []string) (map[string]json.RawMessage, error) {
	m := map[string]json.RawMessage{}
	if err := json.Unmarshal(state, &m); err != nil {
		return nil, err
	}
	m["head"], _ = json.Marshal(head)
	m["trust"], _ = json.Marshal(trust)
	if len(warnings) > 0 {
		m["warnings"], _ = json.Marshal(warnings)
	}
	return m, nil
}

// statusFieldNames are the fields `status --fields` accepts: every JSON field of State (whether or
// not this workflow has a value for it) and head.
func statusFieldNames() map[string]bool {
	names := map[string]bool{"head": true, "trust": true, "warnings": true}
	t := reflect.TypeOf(workflow.State{})
	for i := 0; i < t.NumField(); i++ {
		if name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ","); name != "" && name != "-" {
			names[name] = true
		}
	}
	return names
}

// StatusResult carries the status and, with Fields, the selected subset.
type StatusResult struct {
	Status   Status
	Selected map[string]json.RawMessage
}

// MarshalJSON prints the selection when fields were asked for.
func (s StatusResult) MarshalJSON() ([]byte, error) {
	if s.Selected != nil {
		return json.Marshal(s.Selected)
	}
	return json.Marshal(s.Status)
}

// ShowStatus reads a workflow's status from its snapshot: one blob, no fold, no guard evaluation,
// because hooks and prompts call it constantly.
func ShowStatus(r *Repo, o StatusOptions) (*StatusResult, error) {
	_, st, snap, err := r.ResolveState(o.Feature)
	if err != nil {
		return nil, err
	}
	res := &StatusResult{Status: Status{State: st, Head: snap.Commit.String(), Trust: r.TrustInfo(), Warnings: r.LegacyWarnings(st.Type)}}
	if len(st.Resources) > 0 {
		res.Status.Ended = r.IsFinal(st.Type, st.Phase)
	}
	if o.Text {
		r.ShownKeyWarning(&res.Status.Trust)
	}
	if len(o.Fields) == 0 {
		return res, nil
	}
	all, err := res.Status.fields()
	if err != nil {
		return nil, err
	}
	if res.Selected, err = selectStatusFields(all, o.Fields); err != nil {
		return nil, err
	}
	return res, nil
}

// StatusJSON is `status --json`: the bytes json.Marshal gives for ShowStatus's result, built from
// the snapshot's JSON without decoding it into a State. The snapshot is State's own JSON (written
// by this projector version, or folded just now), so it only gains head and trust; decoding it
// and encoding it again cost a quarter of the call, in reflection over State's types.
func StatusJSON(r *Repo, o StatusOptions) (json.RawMessage, error) {
	_, snap, err := r.ResolveSnapshot(o.Feature)
	if err != nil {
		return nil, err
	}
	state := bytes.TrimSpace(snap.State)
	if len(state) == 0 || state[0] != '{' {
		// No object to extend: an empty or null snapshot is the initial state, whose JSON State
		// writes itself.
		st, err := project.DecodeSnapshot(snap)
		if err != nil {
			return nil, err
		}
		if state, err = json.Marshal(st); err != nil {
			return nil, err
		}
	}
	all, err := statusFields(state, snap.Commit.String(), r.TrustInfo(), nil)
	if err != nil {
		return nil, fmt.Errorf("%s at %s: decode state snapshot: %w", snap.Feature, snap.Commit, err)
	}
	var typ string
	_ = json.Unmarshal(all["type"], &typ)
	if w := r.LegacyWarnings(typ); len(w) > 0 {
		all["warnings"], _ = json.Marshal(w)
	}
	if len(o.Fields) > 0 {
		if all, err = selectStatusFields(all, o.Fields); err != nil {
			return nil, err
		}
	}
	return json.Marshal(all)
}

// selectStatusFields keeps the named top-level fields (null for a known field the state leaves
// out); an unknown name is a usage error listing the known ones.
func selectStatusFields(all map[string]json.RawMessage, fields []string) (map[string]json.RawMessage, error) {
	known := statusFieldNames()
	selected := map[string]json.RawMessage{}
	for _, f := range fields {
		f = strings.TrimSpace(f)
		if !known[f] {
			names := make([]string, 0, len(known))
			for k := range known {
				names = append(names, k)
			}
			sort.Strings(names)
			return nil, project.Usagef("unknown status field %q: choose from %s", f, strings.Join(names, ", "))
		}
		v, ok := all[f]
		if !ok {
			v = json.RawMessage("null")
		}
		selected[f] = v
	}
	return selected, nil
}

// ListOptions selects workflows for `list`.
type ListOptions struct{ All bool }

// WorkflowSummary is one row of `list`: a workflow's head and phase, read from its head commit's
// trailers (its JSON names are those of the store's row, gitstore.Summary, which it is copied from).
type WorkflowSummary struct {
	Feature string    `json:"feature"`
	Head    string    `json:"head"`
	Phase   string    `json:"phase"`
	Type    string    `json:"type"`
	Branch  string    `json:"branch"`
	Events  int64     `json:"events"`
	Updated time.Time `json:"updated"`
}

// ListResult is `list`'s answer: {"workflows": [...]} in JSON, and for the text, what to say when
// it lists nothing.
type ListResult struct {
	Workflows []WorkflowSummary `json:"workflows"`
	// EmptyHint, set only when Workflows is empty: that ended workflows exist (list --all), or, in
	// a clone with a remote, that workflows arrive with pull; else how to start one.
	EmptyHint string `json:"-"`
}

// WriteJSON writes the result as encoding/json would (TestListJSONIsEncodingJSON), row by row into
// one buffer written as it fills: a thousand rows through reflection, or into one growing buffer,
// was a fifth of list's time.
func (l *ListResult) WriteJSON(w io.Writer) error {
	b := append(make([]byte, 0, 32<<10), `{"workflows":[`...)
	for i, s := range l.Workflows {
		if i > 0 {
			b = append(b, ',')
		}
		b = s.appendJSON(b)
		if len(b) > 28<<10 {
			if _, err := w.Write(b); err != nil {
				return err
			}
			b = b[:0]
		}
	}
	_, err := w.Write(append(b, "]}\n"...))
	return err
}

// appendJSON is the row's JSON object, as encoding/json writes it without HTML escaping.
func (s WorkflowSummary) appendJSON(b []byte) []byte {
	return gitstore.Summary{Feature: s.Feature, Head: s.Head, Phase: s.Phase, Type: s.Type, Branch: s.Branch,
		Events: s.Events, Updated: s.Updated}.AppendJSON(b)
}

// emptyListHint is ListResult.EmptyHint.
func emptyListHint(r *Repo, all bool) string {
	if !all {
		if ended, err := listSummaries(r, true); err == nil && len(ended) > 0 {
			return fmt.Sprintf("no active workflows (%d ended: git exarchos list --all)", len(ended))
		}
	}
	if remotes := r.ConfigRemotes(); len(remotes) > 0 {
		return fmt.Sprintf("no workflows here: fetch your team's with `git exarchos pull %s`, or start one with `git exarchos init <feature> --type feature`", remotes[0])
	}
	return "no workflows (start one with `git exarchos init <feature> --type feature`)"
}

// ListWorkflows lists active workflows (all with All), from commit trailers alone, through the list
// cache: it only shows them.
func ListWorkflows(r *Repo, o ListOptions) (*ListResult, error) {
	rows, err := listSummaries(r, o.All)
	if err != nil {
		return nil, err
	}
	res := &ListResult{Workflows: make([]WorkflowSummary, len(rows))}
	for i, s := range rows {
		res.Workflows[i] = WorkflowSummary{Feature: s.Feature, Head: s.Head, Phase: s.Phase, Type: s.Type, Branch: s.Branch, Events: s.Events, Updated: s.Updated}
	}
	if len(rows) == 0 {
		res.EmptyHint = emptyListHint(r, o.All)
	}
	return res, nil
}

// listSummaries is the store's rows ListWorkflows shows, which the views take as they are.
func listSummaries(r *Repo, all bool) ([]gitstore.Summary, error) {
	rows, err := r.Store.ListCached()
	if err != nil {
		return nil, err
	}
	out := []gitstore.Summary{}
	for _, s := range rows {
		if all || r.IsActive(s) {
			out = append(out, s)
		}
	}
	return out, nil
}

// SetOptions writes fields (`git exarchos set <feature> path=value…`).
type SetOptions struct {
	Feature     string
	Assignments []string
	Inline      bool
}

// Set parses every assignment before writing any, so one bad argument writes nothing.
func Set(r *Repo, o SetOptions) (*project.Result, error) {
	example := "git exarchos set " + strings.TrimSpace(o.Feature+" artifacts.design=docs/design.md")
	if len(o.Assignments) == 0 && (o.Feature == "" || !strings.Contains(o.Feature, ".")) {
		return nil, project.Usagef("nothing to set: pass path=value arguments, e.g. `%s`", example)
	}
	feature, err := r.ResolveFeature(o.Feature)
	if err != nil {
		return nil, err
	}
	cmd := workflow.Set{Inline: o.Inline}
	for _, a := range o.Assignments {
		as, err := workflow.ParseAssignment(a)
		if err != nil {
			return nil, project.Usagef("set: %v", err)
		}
		cmd.Assignments = append(cmd.Assignments, as)
	}
	st, _, err := r.State(feature)
	if err != nil {
		if strings.Contains(o.Feature, ".") && errors.Is(err, gitstore.ErrNotFound) {
			// The first argument without "=" was taken for the feature: it was more likely a path.
			return nil, project.Usagef("%s has no value: an assignment is path=value, e.g. `git exarchos set %s=<value>`", o.Feature, o.Feature)
		}
		return nil, err
	}
	if tip, err := r.Facts().BranchTip(st.Branch); err == nil {
		cmd.Commit = tip
	}
	return r.Execute(feature, cmd)
}

// bindReview binds a verdict to the branch tip it judges, so that new commits or a new visit of
// review outdate it (who records it is the environment's Caller, hookrun/caller.go).
func (r *Repo) bindReview(feature string, rv workflow.RecordReview) (workflow.RecordReview, error) {
	st, _, err := r.State(feature)
	if err != nil {
		return rv, err
	}
	tip, err := r.Facts().BranchTip(st.Branch)
	if err != nil {
		return rv, fmt.Errorf("a review is bound to the commit it judged: %w", err)
	}
	rv.Commit = tip
	return rv, nil
}

// TransitionsResult lists the ways out of the current phase with each guard's verdict.
type TransitionsResult struct {
	Feature     string                      `json:"feature"`
	Phase       string                      `json:"phase"`
	Transitions []workflow.TransitionOption `json:"transitions"`
}

// TransitionsOptions selects the workflow `transitions` shows (empty: the one bound to the branch).
type TransitionsOptions struct{ Feature string }

// ListTransitions evaluates every outgoing transition's guards now.
func ListTransitions(r *Repo, o TransitionsOptions) (*TransitionsResult, error) {
	return r.transitions(o.Feature, r.Env)
}

// transitions is ListTransitions with the environment the guards run in given: a view of many
// workflows passes one shared by all (viewWorkflows, views_cmds.go).
func (r *Repo) transitions(feature string, envOf func() (workflow.Env, error)) (*TransitionsResult, error) {
	feature, st, _, err := r.ResolveState(feature)
	if err != nil {
		return nil, err
	}
	def, err := r.Definition(st.Type)
	if err != nil {
		return nil, err
	}
	env, err := envOf()
	if err != nil {
		return nil, err
	}
	opts := workflow.Transitions(def, st, env)
	if opts == nil {
		opts = []workflow.TransitionOption{}
	}
	return &TransitionsResult{Feature: feature, Phase: st.Phase, Transitions: opts}, nil
}

// Run executes one workflow command against a feature that may be left out: the one function of
// the commands that are a workflow.Command (transition, approve, reject, grant, extend, override,
// the task and loop steps, …, about twenty). It stays one function, not one per command, because for those the
// workflow.Command is the options struct (each its own type in the pure core, built by
// cmd/git-exarchos's workflowCommand) and they all take one road: resolve the feature, bind a
// review or a task to its commit, run the gates a transition or a task completion has, Execute,
// then the cancel saga after a transition into a cancelling phase. A wrapper per command would
// add twenty one-line functions and a second place to forget a step. Commands with more to do
// than that road have their own function (Init, Set, AppendEvent, Submit, StageDone, …).
func Run(r *Repo, feature string, cmd workflow.Command) (*project.Result, error) {
	feature, err := r.ResolveFeature(feature)
	if err != nil {
		return nil, err
	}
	switch c := cmd.(type) {
	case workflow.RecordReview:
		if cmd, err = r.bindReview(feature, c); err != nil {
			return nil, err
		}
	case workflow.CompleteTask:
		if c.HeadSHA == "" {
			if c, err = r.Saga().BindTask(feature, c); err != nil {
				return nil, err
			}
			cmd = c
		}
	}
	gateOutput := ""
	if c, ok := cmd.(workflow.CompleteTask); ok {
		// Completing a task runs the definition's task gates on its commit first (task_gates.go).
		if gateOutput, err = r.runTaskGates(feature, c); err != nil {
			return nil, err
		}
	}
	if t, ok := cmd.(workflow.TransitionTo); ok {
		// Leaving a phase with quality gates runs them first (gates.go).
		if gateOutput, err = r.runGates(feature, t.Phase); err != nil {
			return nil, err
		}
	}
	res, err := r.Execute(feature, cmd)
	if err != nil {
		return res, withGateOutput(err, gateOutput) // a refusal may have recorded events (a circuit opened): res says so
	}
	if _, ok := cmd.(workflow.TransitionTo); ok {
		// A transition that ends the workflow the way cancel does (debug's escalation) entered the
		// cancelling phase: run the saga now, so nothing the workflow created is left behind.
		def, err := r.Definition(res.State.Type)
		if err != nil {
			return nil, err
		}
		if c := def.CancellingPhase(); c != "" && res.State.Phase == c {
			if _, err := saga.Cancel(r.Saga(), saga.CancelOptions{Feature: feature}); err != nil {
				return nil, err
			}
			st, snap, err := r.State(feature)
			if err != nil {
				return nil, err
			}
			res.State, res.Head = st, snap.Commit.String()
		}
	}
	return res, nil
}

// EventOptions appends a custom event (`git exarchos event`).
type EventOptions struct {
	Feature        string
	Type           string
	Data           string // JSON; empty for none
	IdempotencyKey string
}

// AppendEvent appends a custom event. The engine's own types are refused: they change state and
// must go through their commands, where guards apply.
func AppendEvent(r *Repo, o EventOptions) (*project.Result, error) {
	if why := workflow.EventTypeProblem(o.Type); why != "" {
		return nil, project.Usagef("event type %q is not a valid name: %s; give dot-separated words, e.g. note.added or ci.run", workflow.Clip(o.Type), why)
	}
	if workflow.IsReservedEventType(o.Type) {
		return nil, project.Usagef("event type %q is reserved for the engine (workflow.* and the engine's own types): use its command, or a custom type such as team.%s", o.Type, strings.ReplaceAll(o.Type, "workflow.", ""))
	}
	var data json.RawMessage
	if o.Data != "" {
		if err := workflow.CheckJSON("--data", []byte(o.Data)); err != nil {
			return nil, &project.UsageError{Msg: err.Error()}
		}
		if !json.Valid([]byte(o.Data)) {
			return nil, project.Usagef("--data is not valid JSON: %s (quote strings: --data '\"text\"')", o.Data)
		}
		data = json.RawMessage(o.Data)
	}
	feature, err := r.ResolveFeature(o.Feature)
	if err != nil {
		return nil, err
	}
	res, err := r.Append(feature, workflow.NewEvent{Type: o.Type, Data: data, ID: o.IdempotencyKey})
	if err != nil {
		return nil, err
	}
	for _, d := range res.Duplicates {
		if d.Type != o.Type || !sameJSON(d.Data, data) {
			return nil, &IdempotencyConflict{Feature: feature, Key: o.IdempotencyKey,
				Recorded: EventPayload{Type: d.Type, Data: d.Data}, Asked: EventPayload{Type: o.Type, Data: data}}
		}
	}
	return engine.Result(feature, res)
}

// EventPayload is what an event says: its type and data.
type EventPayload struct {
	Type string          `json:"type"`
	Data json.RawMessage `json:"data,omitempty"`
}

func (p EventPayload) String() string {
	if len(p.Data) == 0 {
		return p.Type + " (no data)"
	}
	return p.Type + " " + string(p.Data)
}

// IdempotencyConflict is an event asked for under an idempotency key the log already holds for a
// different payload. Answering "already recorded" would tell the caller its event is in the log
// when another one is; nothing is written.
type IdempotencyConflict struct {
	Feature, Key    string
	Recorded, Asked EventPayload
}

func (e *IdempotencyConflict) Error() string {
	fix := "git exarchos event " + e.Feature + " " + hooks.ShellQuote(e.Asked.Type)
	if len(e.Asked.Data) > 0 {
		fix += " --data " + hooks.ShellQuote(string(e.Asked.Data))
	}
	return fmt.Sprintf("idempotency key %q of workflow %s already holds another event: recorded %s, asked %s; nothing was written. "+
		"Send the recorded payload to repeat that call, or choose a new key for a new event: %s --idempotency-key <new-key>",
		e.Key, e.Feature, e.Recorded, e.Asked, fix)
}

// sameJSON reports whether two payloads hold the same JSON value (key order and spacing aside).
func sameJSON(a, b json.RawMessage) bool {
	if len(a) == 0 || len(b) == 0 {
		return len(a) == len(b)
	}
	var va, vb any
	if json.Unmarshal(a, &va) != nil || json.Unmarshal(b, &vb) != nil {
		return bytes.Equal(a, b)
	}
	return reflect.DeepEqual(va, vb)
}

// DescribeOptions selects a definition and a format.
type DescribeOptions struct {
	Type   string // empty: all types
	Format string // text | json | mermaid
}

// DescribeResult is `describe`'s answer: the definitions ({"definitions": [...]} in JSON) and, for
// the text and mermaid formats, what is printed.
type DescribeResult struct {
	Definitions []*workflow.Definition `json:"definitions"`
	Text        string                 `json:"-"`
}

// Describe renders workflow definitions as the repository's rules hold them (the base branch's
// types and limits); r may be nil outside a repository (the built-ins).
func Describe(r *Repo, o DescribeOptions) (*DescribeResult, error) {
	var ds workflow.Definitions
	if r != nil {
		ds = r.Rules().Defs
	}
	types := ds.Types()
	if o.Type != "" {
		if _, ok := ds.Lookup(o.Type); !ok {
			return nil, project.Usagef("unknown workflow type %q: choose one of %s", o.Type, strings.Join(types, ", "))
		}
		types = []string{o.Type}
	}
	res := &DescribeResult{}
	var b strings.Builder
	for i, t := range types {
		def, _ := ds.Lookup(t)
		res.Definitions = append(res.Definitions, def)
		if i > 0 {
			b.WriteString("\n")
		}
		switch o.Format {
		case "", "text":
			b.WriteString(def.Text())
		case "mermaid":
			if len(types) > 1 {
				fmt.Fprintf(&b, "%%%% %s\n", t)
			}
			b.WriteString(def.Mermaid())
		case "json":
		default:
			return nil, project.Usagef("unknown format %q: use text, json or mermaid", o.Format)
		}
	}
	res.Text = b.String()
	return res, nil
}

// TaskDoneOptions completes a task (`git exarchos task done`).
type TaskDoneOptions struct {
	Feature string
	Task    string
}

// CompleteTask marks a task completed (saga.Repo.BindTask gives it its head).
func CompleteTask(r *Repo, o TaskDoneOptions) (*project.Result, error) {
	return Run(r, o.Feature, workflow.CompleteTask{ID: o.Task})
}
