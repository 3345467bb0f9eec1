package app

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/exarchos/git-exarchos/gitstore"
	"github.com/exarchos/git-exarchos/guards"
	"github.com/exarchos/git-exarchos/workflow"
)

// VerifyOptions selects what `git exarchos verify` checks.
type VerifyOptions struct {
	Feature string
	All     bool
	Base    string // the ref allowed signers are read from; default: the resolved base branch
	// Branch verifies the workflows bound to a branch (CI: the pull request's head branch);
	// Require makes "none" a failure.
	Branch  string
	Require bool
}

// Violation is one way a workflow's record does not hold up.
type Violation struct {
	Seq     int64  `json:"seq,omitempty"`
	Event   string `json:"event,omitempty"`
	Rule    string `json:"rule"` // snapshot | transition | guard | decision | artifact | validation | task | merge
	Message string `json:"message"`
}

// VerifiedWorkflow is the verdict on one workflow.
type VerifiedWorkflow struct {
	Feature    string      `json:"feature"`
	Type       string      `json:"type"`
	Phase      string      `json:"phase"`
	Events     int         `json:"events"`
	Decisions  int         `json:"decisions"`
	Violations []Violation `json:"violations"`
}

// VerifyResult is what `verify` prints; OK is false when any workflow has a violation.
type VerifyResult struct {
	OK        bool               `json:"ok"`
	Trust     Trust              `json:"trust"`
	Workflows []VerifiedWorkflow `json:"workflows"`
}

// VerifyError is a failed verification: exit code 3, with every violation named.
type VerifyError struct{ Result *VerifyResult }

func (e *VerifyError) Error() string {
	var b strings.Builder
	n := 0
	for _, w := range e.Result.Workflows {
		n += len(w.Violations)
	}
	fmt.Fprintf(&b, "verify: %d violation(s)", n)
	for _, w := range e.Result.Workflows {
		for _, v := range w.Violations {
			fmt.Fprintf(&b, "\n  %s seq %d %s [%s]: %s", w.Feature, v.Seq, v.Event, v.Rule, v.Message)
		}
	}
	return b.String()
}

// stateGuards read the state alone, so verify can evaluate them again on the state each recorded
// transition met. The others read the branch as it was, which the log records as facts (artifact
// and validation commits, merge evidence) that verify checks instead.
var stateGuards = map[string]bool{
	"plan-approved": true, "tasks-complete": true, "reviews-passed": true, "track-hotfix": true,
	"track-thorough": true, "track-polish": true, "track-overhaul": true, "sources-collected": true,
	"loop-policy-satisfied": true, "synthesis-required": true, "synthesis-not-required": true,
}

// Verify replays workflows from their events alone (the stored snapshot is compared, never
// trusted), re-checks each transition against the facts it recorded and every decision's
// signature against the base branch's allowed signers.
func Verify(r *Repo, o VerifyOptions) (*VerifyResult, error) {
	if o.Base != "" {
		ref := o.Base
		if !strings.HasPrefix(ref, "refs/") {
			if _, ok, _ := r.Store.Facts().ResolveRef("refs/remotes/" + ref); ok {
				ref = "refs/remotes/" + ref
			} else {
				ref = "refs/heads/" + ref
			}
		}
		b := &Base{Ref: ref, Source: "--base"}
		sha, ok, err := r.Store.Facts().ResolveRef(ref)
		if err != nil || !ok {
			return nil, Usagef("--base %s: no such ref here (fetch it first: `git fetch origin %s`)", o.Base, strings.TrimPrefix(ref, "refs/remotes/origin/"))
		}
		b.Commit = sha
		r.base, r.trusted = b, nil
	}
	var features []string
	switch {
	case o.Branch != "":
		all, err := r.Store.List()
		if err != nil {
			return nil, err
		}
		for _, s := range all {
			if s.Branch == o.Branch {
				features = append(features, s.Feature)
			}
		}
		if len(features) == 0 && o.Require {
			return nil, fmt.Errorf("no workflow is bound to branch %s (fetch them: git fetch origin '+refs/exarchos/*:refs/exarchos/*'), and --require needs one", o.Branch)
		}
	case o.All:
		all, err := r.Store.List()
		if err != nil {
			return nil, err
		}
		for _, s := range all {
			features = append(features, s.Feature)
		}
	default:
		f, err := r.ResolveFeature(o.Feature)
		if err != nil {
			return nil, err
		}
		features = []string{f}
	}
	res := &VerifyResult{OK: true, Trust: r.TrustInfo(), Workflows: []VerifiedWorkflow{}}
	for _, f := range features {
		w, err := r.verifyOne(f)
		if err != nil {
			return nil, err
		}
		if len(w.Violations) > 0 {
			res.OK = false
		}
		res.Workflows = append(res.Workflows, w)
	}
	if !res.OK {
		return res, &VerifyError{Result: res}
	}
	return res, nil
}

func (r *Repo) verifyOne(feature string) (VerifiedWorkflow, error) {
	w := VerifiedWorkflow{Feature: feature, Violations: []Violation{}}
	events, snap, err := r.Store.Events(feature, gitstore.EventFilter{})
	if err != nil {
		return w, err
	}
	w.Events = len(events)
	signed := r.trust().signed
	if signed {
		events = r.withVerdicts(feature, events)
	}
	add := func(e workflow.Event, rule, format string, args ...any) {
		w.Violations = append(w.Violations, Violation{Seq: e.Seq, Event: e.Type, Rule: rule, Message: fmt.Sprintf(format, args...)})
	}
	facts := r.Store.Facts()
	ancestry := map[string]bool{}
	var branch string
	onBranch := func(commit string) bool {
		if v, ok := ancestry[commit]; ok {
			return v
		}
		ok := false
		for _, tip := range r.branchTips(branch) {
			if a, err := facts.IsAncestor(commit, tip); err == nil && a {
				ok = true
				break
			}
		}
		ancestry[commit] = ok
		return ok
	}
	var refusedBefore, conflictsBefore int
	def, err := r.definition(workflowType(events))
	if err != nil {
		return w, err
	}
	final := workflow.Replay(def, events,
		func(s *workflow.State, e workflow.Event) {
			refusedBefore, conflictsBefore = len(s.Refused), len(s.Conflicts)
			if workflow.DecisionKind(e) != "" {
				w.Decisions++
			}
			if e.Type == workflow.EventTransitioned {
				verifyTransition(def, s, e, add)
			}
		},
		func(s *workflow.State, e workflow.Event) {
			branch = s.Branch
			if len(s.Refused) > refusedBefore && signed {
				f := s.Refused[len(s.Refused)-1]
				add(e, "decision", "%s decision without effect: %s", f.Kind, f.Reason)
			}
			if len(s.Conflicts) > conflictsBefore {
				if c := s.Conflicts[len(s.Conflicts)-1]; e.Type == workflow.EventTransitioned && strings.HasPrefix(c.Reason, "no transition") {
					add(e, "transition", "%s", c.Reason)
				}
			}
			r.verifyFacts(e, onBranch, add)
		})
	w.Type, w.Phase = final.Type, final.Phase
	if final.Feature != feature {
		add(workflow.Event{}, "snapshot", "the workflow in refs/exarchos/%s was started as %q: its events belong to another workflow", feature, final.Feature)
	}
	// The stored snapshot must be the fold of the events (with this base's verdicts).
	want, err := json.Marshal(final)
	if err != nil {
		return w, err
	}
	stored, err := r.Store.State(feature, nil)
	if err != nil {
		return w, err
	}
	if !bytes.Equal(bytes.TrimSpace(stored.State), want) {
		add(workflow.Event{Seq: snap.Events}, "snapshot", "state.json at %s disagrees with the fold of its %d events (phase %s, events say %s): it was edited, or written by a fold that gave decisions effect they do not have", short(snap.Commit.String()), len(events), phaseOf(stored.State), final.Phase)
	}
	return w, nil
}

func phaseOf(state json.RawMessage) string {
	var s struct {
		Phase string `json:"phase"`
	}
	_ = json.Unmarshal(state, &s)
	return s.Phase
}

// verifyTransition checks a recorded transition against the definition and the state it met:
// every guard of the transition recorded as passed (and, for guards of the state, passing again)
// or overridden by an override in effect.
func verifyTransition(def *workflow.Definition, s *workflow.State, e workflow.Event, add func(workflow.Event, string, string, ...any)) {
	var d workflow.TransitionedData
	if e.DecodeData(&d) != nil || d.From != s.Phase {
		return // the fold records it as a conflict (a merge's loser): no effect, nothing to check
	}
	trigger := d.Trigger
	if trigger == "" {
		trigger = workflow.OnTransition
	}
	// Several transitions may lead to d.To (a phase's own and the universal cleanup): the step
	// holds when one of those its trigger takes has every guard accounted for.
	var first []string
	for _, t := range def.Outgoing(s.Phase) {
		if t.To != d.To || !t.TakenBy(trigger) {
			continue
		}
		problems := guardProblems(def, s, t, d)
		if len(problems) == 0 {
			return
		}
		if first == nil {
			first = problems
		}
	}
	for _, p := range first {
		add(e, "guard", "%s → %s %s", d.From, d.To, p)
	}
}

// guardProblems lists how a recorded transition fails to account for t's guards.
func guardProblems(def *workflow.Definition, s *workflow.State, t workflow.Transition, d workflow.TransitionedData) []string {
	var out []string
	for _, g := range t.Guards {
		switch {
		case slices.Contains(d.Overridden, g):
			if !overrideInEffect(s, g) {
				out = append(out, fmt.Sprintf("claims guard %s was overridden, but no override of it is in effect in %s", g, s.Phase))
			}
		case slices.Contains(d.Guards, g):
			if fn, ok := guards.Lookup(g); ok && stateGuards[g] {
				if f := fn(guards.Input{State: *s, Def: def, Target: d.To, Facts: reviewedTip(def, s)}); f != nil {
					out = append(out, fmt.Sprintf("recorded guard %s as passed, but the events say: %s", g, f.Reason))
				}
			}
		default:
			out = append(out, fmt.Sprintf("skips guard %s: it is neither recorded as passed nor overridden", g))
		}
	}
	return out
}

// reviewedTip stands in for the branch tip when a transition is checked again: the log does not
// record the tip a transition was decided on, but each verdict records the commit it judged, so
// the review guard holds when every required verdict judged one commit (verifyFacts checks that
// commit is on the branch's history). Only BranchTip is answered: it is all the guard reads.
func reviewedTip(def *workflow.Definition, s *workflow.State) guards.GitFacts {
	t := judgedTip{}
	for _, dim := range def.Reviews {
		if r, ok := s.Reviews[dim]; ok {
			t.sha = r.Commit
			break
		}
	}
	return t
}

type judgedTip struct {
	guards.GitFacts
	sha string
}

func (t judgedTip) BranchTip(string) (string, error) { return t.sha, nil }

func overrideInEffect(s *workflow.State, guard string) bool {
	for _, o := range s.Overrides {
		if o.Guard == guard && o.Phase == s.Phase && o.At >= s.EnteredAt {
			return true
		}
	}
	return false
}

// verifyFacts checks what an event recorded against the repository: artifacts present at their
// recorded commits, recorded commits on the branch's history, merge evidence by ancestry.
func (r *Repo) verifyFacts(e workflow.Event, onBranch func(string) bool, add func(workflow.Event, string, string, ...any)) {
	facts := r.Store.Facts()
	switch e.Type {
	case workflow.EventArtifactRecorded:
		var d workflow.ArtifactData
		if e.DecodeData(&d) != nil || d.Inline || d.Path == "" || d.Commit == "" {
			return
		}
		if ok, err := facts.FileExists(d.Commit, d.Path); err != nil || !ok {
			add(e, "artifact", "artifact %s: %s is not a file at the recorded commit %s", d.Name, d.Path, short(d.Commit))
		} else if !onBranch(d.Commit) {
			add(e, "artifact", "artifact %s was recorded at %s, which is not on the branch's history", d.Name, short(d.Commit))
		}
	case workflow.EventValidationRecorded:
		var d workflow.ValidationData
		if e.DecodeData(&d) == nil && d.Commit != "" && !onBranch(d.Commit) {
			add(e, "validation", "`%s` ran on %s, which is not on the branch's history", d.Command, short(d.Commit))
		}
	case workflow.EventReviewRecorded:
		var d workflow.ReviewData
		if e.DecodeData(&d) == nil && d.Commit != "" && !onBranch(d.Commit) {
			add(e, "review", "the %s review judged %s, which is not on the branch's history", d.Dimension, short(d.Commit))
		}
	case workflow.EventTaskCompleted:
		var d workflow.TaskData
		if e.DecodeData(&d) == nil && d.HeadSHA != "" && !onBranch(d.HeadSHA) {
			add(e, "task", "task %s completed at %s, which is not on the branch's history", d.ID, short(d.HeadSHA))
		}
	case workflow.EventMergeVerified:
		var d workflow.MergeVerifiedData
		if e.DecodeData(&d) != nil || d.Method != "ancestry" || d.HeadSHA == "" || d.Commit == "" {
			return
		}
		if ok, err := facts.IsAncestor(d.HeadSHA, d.Commit); err != nil || !ok {
			add(e, "merge", "merge evidence: %s is not contained in the base commit %s", short(d.HeadSHA), short(d.Commit))
		}
	}
}

// branchTips are the commits whose history counts as the branch's: the local and remote-tracking
// branch, HEAD (CI checks out the pull request) and the base (a merged branch may be deleted).
func (r *Repo) branchTips(branch string) []string {
	facts := r.Store.Facts()
	var out []string
	if h := r.Store.HeadCommit(); h != "" {
		out = append(out, h)
	}
	var refs []string
	if branch != "" {
		refs = append(refs, "refs/heads/"+branch)
		if rs, err := r.Store.Remotes(); err == nil {
			for _, rm := range rs {
				refs = append(refs, "refs/remotes/"+rm+"/"+branch)
			}
		}
	}
	for _, ref := range refs {
		if sha, ok, err := facts.ResolveRef(ref); err == nil && ok && !slices.Contains(out, sha) {
			out = append(out, sha)
		}
	}
	if b := r.Base(); b.Commit != "" && !slices.Contains(out, b.Commit) {
		out = append(out, b.Commit)
	}
	return out
}

// workflowType is the type the first workflow.started names.
func workflowType(events []workflow.Event) string {
	for _, e := range events {
		var d workflow.StartedData
		if e.Type == workflow.EventStarted && e.DecodeData(&d) == nil {
			return d.Type
		}
	}
	return ""
}
