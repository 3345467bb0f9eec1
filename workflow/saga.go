package workflow

import (
	"fmt"
	"slices"
)

// Resources and the cancel saga. What a workflow creates in the world (a task worktree, its
// branch, a linked pull request) is recorded as a resource when it is created. `cancel` records
// its request (the workflow enters the cancelling phase), then compensates every resource in
// reverse creation order, one compensation.step event per action, and only then reaches the
// final cancelled phase. The engine decides the plan; the app performs each step on git.

// Saga event types.
const (
	EventWorktreeCreated  = "worktree.created"
	EventCancelRequested  = "cancel.requested"
	EventCompensationStep = "compensation.step"
)

// Resource kinds.
const (
	ResourceWorktree = "worktree"
	ResourceBranch   = "branch"
	ResourcePR       = "pr"
)

// Compensation actions, in the order they run for a resource of each kind.
const (
	ActionPreserve = "preserve" // keep the work under refs/exarchos-rescue/<feature>/<task>
	ActionRemove   = "remove"   // git worktree remove, then git worktree prune
	ActionDelete   = "delete"   // delete the branch (only once merged or preserved)
	ActionClose    = "close"    // close the pull request with a comment
)

// Step outcomes. Done and skipped finish a step; failed leaves it to the next cancel.
const (
	OutcomeDone    = "done"
	OutcomeSkipped = "skipped"
	OutcomeFailed  = "failed"
)

// CodeCompensationPending refuses to finish a cancel while steps remain.
const CodeCompensationPending = "COMPENSATION_PENDING"

// CodeCancelling refuses commands other than cancel while a cancel is in progress.
const CodeCancelling = "CANCELLING"

// CompensationActions lists the actions that compensate a resource of kind, in order.
func CompensationActions(kind string) []string {
	switch kind {
	case ResourceWorktree:
		return []string{ActionPreserve, ActionRemove}
	case ResourceBranch:
		return []string{ActionPreserve, ActionDelete}
	case ResourcePR:
		return []string{ActionClose}
	}
	return nil
}

// WorktreeData is the payload of worktree.created: a linked worktree for a task, on a task
// branch started at Base. BranchCreated says the branch was made for it (and so is a resource
// the cancel may delete once its work is safe).
type WorktreeData struct {
	Task          string `json:"task"`
	Path          string `json:"path"`
	Branch        string `json:"branch"`
	Base          string `json:"base"`
	BaseRev       string `json:"baseRev,omitempty"` // what the caller asked for, e.g. main~2
	BranchCreated bool   `json:"branchCreated"`
}

// CancelRequestedData is the payload of cancel.requested.
type CancelRequestedData struct {
	From   string `json:"from"`
	Reason string `json:"reason,omitempty"`
	Actor  string `json:"actor,omitempty"`
	Human  bool   `json:"human,omitempty"` // a human's decision (required past the planning phases)
}

// CompensationData is the payload of compensation.step: one action on one resource.
type CompensationData struct {
	Resource string `json:"resource"`
	Action   string `json:"action"`
	Outcome  string `json:"outcome"`
	Detail   string `json:"detail,omitempty"`
	Fix      string `json:"fix,omitempty"`    // failed steps: what to do before the next cancel
	Ref      string `json:"ref,omitempty"`    // the rescue ref written, if any
	Commit   string `json:"commit,omitempty"` // the commit it points at
}

// Resource is something the workflow created that a cancel must compensate.
type Resource struct {
	ID     string `json:"id"` // worktree:<task>, branch:<name>, pr:<url>
	Kind   string `json:"kind"`
	Task   string `json:"task,omitempty"`
	Path   string `json:"path,omitempty"`
	Branch string `json:"branch,omitempty"`
	Base   string `json:"base,omitempty"`
	Head   string `json:"head,omitempty"` // task branch head recorded by `task done`
	URL    string `json:"url,omitempty"`
	// Done lists the compensation actions finished (done or skipped).
	Done    []string     `json:"done,omitempty"`
	Rescue  string       `json:"rescue,omitempty"` // ref holding the preserved work
	Failure *StepFailure `json:"failure,omitempty"`
}

// StepFailure is the last failed compensation action of a resource, and how to unblock it.
type StepFailure struct {
	Action string `json:"action"`
	Detail string `json:"detail"`
	Fix    string `json:"fix,omitempty"`
}

// Compensated reports whether every action of the resource has finished.
func (r Resource) Compensated() bool { return len(r.Done) >= len(CompensationActions(r.Kind)) }

// Cancellation records the cancel request.
type Cancellation struct {
	From   string `json:"from"`
	Reason string `json:"reason,omitempty"`
	Actor  string `json:"actor,omitempty"`
	At     int64  `json:"at"`
}

// Step is one compensation action still to run.
type Step struct {
	Resource Resource `json:"resource"`
	Action   string   `json:"action"`
}

// CompensationPlan lists the steps a cancel still has to run: resources in reverse creation
// order, each resource's remaining actions in order.
func CompensationPlan(s State) []Step {
	var out []Step
	for i := len(s.Resources) - 1; i >= 0; i-- {
		r := s.Resources[i]
		for _, a := range CompensationActions(r.Kind) {
			if !slices.Contains(r.Done, a) {
				out = append(out, Step{Resource: r, Action: a})
			}
		}
	}
	return out
}

// Resource returns the resource with the given id.
func (s State) Resource(id string) (Resource, bool) {
	for _, r := range s.Resources {
		if r.ID == id {
			return r, true
		}
	}
	return Resource{}, false
}

// TaskWorktree returns the worktree resource of a task.
func (s State) TaskWorktree(task string) (Resource, bool) {
	return s.Resource(WorktreeResourceID(task))
}

// WorktreeResourceID, BranchResourceID and PRResourceID name resources.
func WorktreeResourceID(task string) string { return ResourceWorktree + ":" + task }
func BranchResourceID(branch string) string { return ResourceBranch + ":" + branch }
func PRResourceID(url string) string        { return ResourcePR + ":" + url }

// StartTaskWorktree starts a task in a linked worktree the caller has just created (or found
// already there): it records worktree.created, then task.started if the task was not started.
type StartTaskWorktree struct {
	ID       string
	Worktree WorktreeData
}

// RecordCompensation records one performed compensation step during a cancel.
type RecordCompensation struct{ CompensationData }

func (StartTaskWorktree) command()  {}
func (RecordCompensation) command() {}

var sha1Hex = lazyRegexp(`^[0-9a-f]{40}([0-9a-f]{24})?$`)

// allowedWhenCancelling lists what a cancel in progress accepts: the cancel itself, its steps,
// and the facts that are accepted after the end too.
func allowedWhenCancelling(cmd Command) bool {
	switch cmd.(type) {
	case Cancel, RecordCompensation:
		return true
	}
	return allowedWhenFinal(cmd)
}

func (d decider) startTaskWorktree(c StartTaskWorktree) ([]NewEvent, *Rejection) {
	w := c.Worktree
	w.Task = c.ID
	if w.Path == "" || w.Branch == "" || !sha1Hex().MatchString(w.Base) {
		return nil, reject(CodeBadInput, "a task worktree needs a path, a branch and the base commit")
	}
	if !ValidTaskID(c.ID) {
		return nil, invalidTaskID(c.ID)
	}
	var out []NewEvent
	if old, ok := d.s.TaskWorktree(c.ID); ok {
		if old.Path != w.Path || old.Branch != w.Branch {
			return nil, reject(CodeBadInput, "task %s already has a worktree at %s on %s", c.ID, old.Path, old.Branch)
		}
	} else {
		out = one(EventWorktreeCreated, w)
	}
	evs, r := d.task(StartTask{ID: c.ID})
	if r != nil {
		return nil, r
	}
	return append(out, evs...), nil
}

func (d decider) recordCompensation(c RecordCompensation) ([]NewEvent, *Rejection) {
	// A definition without a cancelling phase (lint refuses new ones) compensates in the phase the
	// cancel was asked in: the saga must still be able to undo what the workflow created.
	if c := d.def.CancellingPhase(); c != "" && d.s.Phase != c && !EndedByCancel(d.def, d.s) {
		return nil, reject(CodeWrongPhase, "compensation steps are recorded while cancelling, and %s is in %s", d.s.Feature, d.s.Phase)
	}
	switch c.Outcome {
	case OutcomeDone, OutcomeSkipped, OutcomeFailed:
	default:
		return nil, reject(CodeBadInput, "compensation outcome %q: done, skipped or failed", c.Outcome)
	}
	res, ok := d.s.Resource(c.Resource)
	if !ok {
		return nil, reject(CodeBadInput, "no resource %s in %s", c.Resource, d.s.Feature)
	}
	if slices.Contains(res.Done, c.Action) {
		return nil, nil // already recorded: a rerun after a crash
	}
	for _, a := range CompensationActions(res.Kind) {
		if !slices.Contains(res.Done, a) {
			if a != c.Action {
				return nil, reject(CodeBadInput, "%s: the next action is %s, not %s", c.Resource, a, c.Action)
			}
			return one(EventCompensationStep, c.CompensationData), nil
		}
	}
	return nil, reject(CodeBadInput, "%s has no action %s", c.Resource, c.Action)
}

// waitsForUser is WaitsForUser of the decider's workflow.
func (d decider) waitsForUser() string { return WaitsForUser(d.def, d.s) }

// WaitsForUser says how the workflow waits for the user ("" when it does not): its plan is at
// the user's review (a checkpoint phase, not yet approved in this visit), or the user sent it back
// with gaps to answer. Neither is the agent's to cancel or to go around (issue 38 item 2).
func WaitsForUser(def *Definition, s State) string {
	if def.Checkpoint(s.Phase) && !s.ApprovedHere() {
		return "waits for the user's review of its plan (in " + s.Phase + ")"
	}
	if g, ok := s.OpenGaps(); ok {
		return fmt.Sprintf("has gaps the user asked to answer (%s sent the plan back from %s)", g.Actor, g.Phase)
	}
	return ""
}

// ApprovedHere reports whether the plan was approved in this visit of the current phase: the
// latest decision counts (an approval followed by a rejection is not approved).
func (s State) ApprovedHere() bool {
	n := len(s.Approvals)
	if n == 0 {
		return false
	}
	a := s.Approvals[n-1]
	return a.Phase == s.Phase && a.At >= s.EnteredAt && a.Decision == "approved"
}

// Checkpoint reports whether phase waits for the user's review of the plan: a way out of it is
// taken by the user's reject.
func (d *Definition) Checkpoint(phase string) bool {
	for _, t := range d.Outgoing(phase) {
		if t.TakenBy(OnReject) {
			return true
		}
	}
	return false
}

// cancel records the request (entering the cancelling phase) and, once no compensation step
// remains, the end of the workflow. With steps pending it only records the request; the caller
// runs the steps and cancels again.
func (d decider) cancel(c Cancel) ([]NewEvent, *Rejection) {
	cancelling := d.def.CancellingPhase()
	var out []NewEvent
	reason := c.Reason
	if cancelling == "" || d.s.Phase != cancelling {
		if waits := d.waitsForUser(); waits != "" && !c.Human {
			r := reject(CodeHumanDecision, "%s %s: cancelling it now would drop the user's review, which is the user's decision (and starting another workflow to write the code instead is no way around it): ask the user to review the plan (git exarchos approve %s, or reject %s --gaps \"…\"), or to run git exarchos cancel %s --human --reason \"…\"", d.s.Feature, waits, d.s.Feature, d.s.Feature, d.s.Feature)
			r.Phase = d.s.Phase
			return nil, r
		}
		if d.def.PastPlanning(d.s.Phase) && !c.Human {
			r := reject(CodeHumanDecision, "%s is past its planning phases (in %s): cancelling it drops the process it is in, which is the user's decision: ask the user to run git exarchos cancel %s --human --reason \"…\"", d.s.Feature, d.s.Phase, d.s.Feature)
			r.Phase = d.s.Phase
			return nil, r
		}
		out = one(EventCancelRequested, CancelRequestedData{From: d.s.Phase, Reason: c.Reason, Actor: d.env.Actor, Human: c.Human})
	} else if d.s.Cancel != nil && reason == "" {
		reason = d.s.Cancel.Reason
	}
	if plan := CompensationPlan(d.s); len(plan) > 0 {
		if len(out) > 0 {
			return out, nil
		}
		first := plan[0]
		r := reject(CodeCompensationPending, "%d compensation step(s) remain (next: %s %s): run git exarchos cancel %s, which performs them", len(plan), first.Action, first.Resource.ID, d.s.Feature)
		r.Phase = d.s.Phase
		return nil, r
	}
	from := d.s.Phase
	if cancelling != "" {
		from = cancelling
	}
	return append(out, NewEvent{Type: EventCancelled, Data: CancelledData{From: from, To: d.def.CancelTarget(), Reason: reason, Actor: d.env.Actor, Definition: d.def.ID}}), nil
}

func (s *State) applyWorktreeCreated(e Event) error {
	var d WorktreeData
	if err := decode(e, &d); err != nil {
		return err
	}
	if d.Task == "" || d.Path == "" || d.Branch == "" {
		return fmt.Errorf("worktree without a task, path or branch")
	}
	id := WorktreeResourceID(d.Task)
	if _, ok := s.Resource(id); ok {
		return fmt.Errorf("task %s already has a worktree", d.Task)
	}
	if d.BranchCreated {
		if _, ok := s.Resource(BranchResourceID(d.Branch)); !ok {
			s.Resources = append(s.Resources, Resource{ID: BranchResourceID(d.Branch), Kind: ResourceBranch, Task: d.Task, Branch: d.Branch, Base: d.Base})
		}
	}
	s.Resources = append(s.Resources, Resource{ID: id, Kind: ResourceWorktree, Task: d.Task, Path: d.Path, Branch: d.Branch, Base: d.Base})
	return nil
}

// linkPRResource records a linked pull request as a resource (once per URL).
func (s *State) linkPRResource(url string) {
	if url == "" {
		return
	}
	if _, ok := s.Resource(PRResourceID(url)); !ok {
		s.Resources = append(s.Resources, Resource{ID: PRResourceID(url), Kind: ResourcePR, URL: url})
	}
}

// recordTaskHead keeps the head a task was completed at on its worktree resource.
func (s *State) recordTaskHead(task, head string) {
	if head == "" {
		return
	}
	for i := range s.Resources {
		if s.Resources[i].ID == WorktreeResourceID(task) {
			s.Resources[i].Head = head
		}
	}
}

func (s *State) applyCancelRequested(def *Definition, e Event, at int64) error {
	var d CancelRequestedData
	if err := decode(e, &d); err != nil {
		return err
	}
	if def.IsFinal(s.Phase) {
		return fmt.Errorf("cancel requested after the workflow ended in %s", s.Phase)
	}
	to := def.CancellingPhase()
	if to == "" || s.Phase == to {
		return nil // a second request (merged logs) changes nothing
	}
	s.Cancel = &Cancellation{From: s.Phase, Reason: d.Reason, Actor: actorOf(d.Actor, e), At: at}
	s.Phase, s.EnteredAt, s.Circuit, s.Budget, s.Fanout = to, at, nil, Budget{}, nil
	return nil
}

func (s *State) applyCompensation(e Event) error {
	var d CompensationData
	if err := decode(e, &d); err != nil {
		return err
	}
	i := slices.IndexFunc(s.Resources, func(r Resource) bool { return r.ID == d.Resource })
	if i < 0 {
		return fmt.Errorf("no resource %q", d.Resource)
	}
	r := &s.Resources[i]
	if !slices.Contains(CompensationActions(r.Kind), d.Action) {
		return fmt.Errorf("%s has no action %q", r.ID, d.Action)
	}
	if d.Ref != "" {
		r.Rescue = d.Ref
	}
	switch d.Outcome {
	case OutcomeDone, OutcomeSkipped:
		if !slices.Contains(r.Done, d.Action) {
			r.Done = append(r.Done, d.Action)
		}
		r.Failure = nil
	case OutcomeFailed:
		r.Failure = &StepFailure{Action: d.Action, Detail: d.Detail, Fix: d.Fix}
	default:
		return fmt.Errorf("compensation outcome %q", d.Outcome)
	}
	return nil
}

// cloneResources deep-copies the resources (each owns its Done slice and Failure).
func cloneResources(rs []Resource) []Resource {
	out := slices.Clone(rs)
	for i := range out {
		out[i].Done = slices.Clone(out[i].Done)
		if out[i].Failure != nil {
			f := *out[i].Failure
			out[i].Failure = &f
		}
	}
	return out
}
