// Package verify is the boundary check CI runs: it replays each workflow from its events alone
// and takes nothing on trust from the log but the signed decisions. Every signature is checked
// against the allowed signers of the base it is given (trust), every guard a transition recorded
// as passed is re-derived from what CI can see (the branch's commits, the merge on the base), and
// what a pr.observed claimed is asked of GitHub again (verify_github.go, through ghevidence's
// client).
//
// It may import ghevidence, trust, project, guards, workflowdef (completion schemas), ghclient, gitstore, workflow and
// the internal helpers; never app or cmd. internal/archtest holds the rule.
package verify

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/exarchos/git-exarchos/ghevidence"
	"github.com/exarchos/git-exarchos/gitstore"
	"github.com/exarchos/git-exarchos/guards"
	"github.com/exarchos/git-exarchos/project"
	"github.com/exarchos/git-exarchos/trust"
	"github.com/exarchos/git-exarchos/workflow"
)

// Repo is an opened repository with trust, as verify replays it.
type Repo struct {
	*trust.Repo
}

// gitHub is r as GitHub evidence sees it (verify only asks GitHub; it records nothing).
func (r *Repo) gitHub() *ghevidence.Repo { return &ghevidence.Repo{Repo: r.Repo} }

// Options selects what `git exarchos verify` checks.
type Options struct {
	Feature string
	All     bool
	Base    string // the ref allowed signers are read from; default: the resolved base branch
	// Branch verifies the workflows bound to a branch (CI: the pull request's head branch);
	// Require makes "none" a failure.
	Branch  string
	Require bool
	// RequireGitHub fails a workflow that records a pull request GitHub was not asked about (no
	// token, or GitHub could not answer).
	RequireGitHub bool
	// RerunGates runs every quality gate the log holds as passed again on its commit
	// (verify_gates.go).
	RerunGates bool
	// RequireProtectedBase fails every workflow when GitHub does not show the base protected
	// (verify_protect.go).
	RequireProtectedBase bool
	// Remember fails a workflow tip that does not descend from one CI verified before, then
	// records the tips verified (check runs on GitHub; verify_memory.go).
	Remember bool

	branch *branchVerdict // with Branch: the branch's workflows as a whole (verify_branch.go)
}

// Violation is one way a workflow's record does not hold up.
type Violation struct {
	Seq     int64  `json:"seq,omitempty"`
	Event   string `json:"event,omitempty"`
	Rule    string `json:"rule"` // snapshot | transition | guard | decision | artifact | validation | task | merge | gate | …
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
	// Acknowledged are refused decisions a human acknowledged (a signed decision naming each):
	// reported, no longer violations.
	Acknowledged []AcknowledgedRefusal `json:"acknowledged,omitempty"`
	// GitHub is what GitHub said of the recorded pull request: "checked: agrees", "checked:
	// disagrees", "not checked: no token", "could not check: …"; empty when none is recorded.
	GitHub string `json:"github,omitempty"`
	// GatesRerun is how many gate runs --rerun-gates repeated; absent without it.
	GatesRerun *int `json:"gatesRerun,omitempty"`
	// ReplacedBy is the workflow whose start replaced this one on the branch by the user's
	// decision (with --branch): it is verified, but need not reach a phase that merges.
	ReplacedBy string `json:"replacedBy,omitempty"`

	tipCheck *Violation // with --branch: the branch's tip is not in the merge it ended on (verify_merge.go)
}

// AcknowledgedRefusal is a refused decision and the acknowledgement that answers it.
type AcknowledgedRefusal struct {
	Seq    int64  `json:"seq"`
	Event  string `json:"event"`
	Kind   string `json:"kind"`
	Reason string `json:"reason"` // why the decision was refused
	By     string `json:"by"`     // the acknowledgement's event id
}

// Result is what `verify` prints; OK is false when any workflow has a violation.
type Result struct {
	OK        bool               `json:"ok"`
	Trust     trust.Trust        `json:"trust"`
	Workflows []VerifiedWorkflow `json:"workflows"`
	// BaseProtection is what GitHub said protects the base (verify_protect.go).
	BaseProtection string `json:"baseProtection,omitempty"`
}

// Error is a failed verification: exit code 3, with every violation named.
type Error struct{ Result *Result }

func (e *Error) Error() string {
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
	workflow.GuardSynthesisRequested: true, workflow.GuardStagesCompleted: true,
}

// Verify replays workflows from their events alone (the stored snapshot is compared, never
// trusted), re-checks each transition against the facts it recorded and every decision's
// signature against the base branch's allowed signers.
func Verify(r *Repo, o Options) (*Result, error) {
	if o.Branch != "" {
		// A --branch no workflow can be bound to would select nothing and pass: say so instead.
		if rej := workflow.CheckBranch("--branch", o.Branch); rej != nil {
			return nil, &project.UsageError{Msg: rej.Message}
		}
	}
	if o.Base != "" {
		ref := o.Base
		if !strings.HasPrefix(ref, "refs/") {
			if _, ok, _ := r.Facts().ResolveRef("refs/remotes/" + ref); ok {
				ref = "refs/remotes/" + ref
			} else {
				ref = "refs/heads/" + ref
			}
		}
		b := &project.Base{Ref: ref, Source: "--base"}
		sha, ok, err := r.Facts().ResolveRef(ref)
		if err != nil || !ok {
			return nil, project.Usagef("--base %s: no such ref here (fetch it first: `git fetch origin %s`)", o.Base, strings.TrimPrefix(ref, "refs/remotes/origin/"))
		}
		b.Commit = sha
		if strings.HasPrefix(ref, "refs/remotes/") {
			// A tracking ref moved by anything but a fetch is not the base (project/trust_inputs.go).
			if b.Commit, b.Moved, b.Problem = project.FetchedValue(r.CommonDir(), ref, sha); b.Problem != "" {
				return nil, project.Usagef("--base %s: %s", o.Base, b.Problem)
			}
		}
		r.SetBase(b)
	}
	var features []string
	switch {
	case o.Branch != "":
		// Which workflows the branch has is derived from their events (verify_branch.go).
		bound, err := r.boundTo(o.Branch)
		if err != nil {
			return nil, err
		}
		for _, b := range bound {
			features = append(features, b.feature)
		}
		o.branch = newBranchVerdict(o.Branch, bound)
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
	res := &Result{OK: true, Trust: r.TrustInfo(), Workflows: []VerifiedWorkflow{}}
	for _, f := range features {
		w, err := r.verifyOne(f, o)
		if err != nil {
			return nil, err
		}
		if len(w.Violations) > 0 {
			res.OK = false
		}
		res.Workflows = append(res.Workflows, w)
	}
	if o.branch != nil {
		r.shared(o.branch, res)
		res.OK = res.OK && !slices.ContainsFunc(res.Workflows, func(w VerifiedWorkflow) bool { return len(w.Violations) > 0 })
	}
	r.checkProtectedBase(o, res)
	r.remember(o, res) // last: it records the tips only when everything else passed
	if !res.OK {
		return res, &Error{Result: res}
	}
	return res, nil
}

func (r *Repo) verifyOne(feature string, o Options) (VerifiedWorkflow, error) {
	w := VerifiedWorkflow{Feature: feature, Violations: []Violation{}}
	events, snap, err := r.Store.Events(feature, gitstore.EventFilter{})
	if err != nil {
		return w, err
	}
	w.Events = len(events)
	signed := r.Signed()
	if signed {
		events = r.WithVerdicts(feature, events)
	}
	add := func(e workflow.Event, rule, format string, args ...any) {
		w.Violations = append(w.Violations, Violation{Seq: e.Seq, Event: e.Type, Rule: rule, Message: fmt.Sprintf(format, args...)})
	}
	facts := r.Facts()
	arts := newArtifactAudit(feature, facts) // artifacts judged where their guards were (verify_artifacts.go)
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
	def, err := r.Definition(workflowType(events))
	if err != nil {
		return w, err
	}
	merges := &mergeAudit{r: r, facts: facts, base: r.Base().Commit}
	check := &rederive{r: r, def: def, base: r.Base().Commit, facts: facts, merges: merges}
	gates := &gateAudit{feature: feature, def: def, onBranch: onBranch, add: add}
	stages := &stageAudit{def: def, add: add}
	refused := map[string]Violation{} // refused decisions by event id, until acknowledged
	var refusedOrder []string
	paths := &phasePaths{def: def, facts: facts, base: r.Base().Commit}
	var checksPassedAt []string // heads a pr.observed recorded passing checks on
	final := workflow.Replay(def, events,
		func(s *workflow.State, e workflow.Event) {
			refusedBefore, conflictsBefore = len(s.Refused), len(s.Conflicts)
			if workflow.DecisionKind(e) != "" {
				w.Decisions++
			}
			if e.Type == workflow.EventTransitioned {
				arts.reliedOn(check.transition(s, e, add))
				gates.transition(s, e)
			}
		},
		func(s *workflow.State, e workflow.Event) {
			branch = s.Branch
			if len(s.Refused) > refusedBefore && signed {
				f := s.Refused[len(s.Refused)-1]
				refused[f.ID] = Violation{Seq: e.Seq, Event: e.Type, Rule: "decision", Message: fmt.Sprintf("%s decision without effect: %s (once a human has looked at it: git exarchos acknowledge %s %s --reason \"…\")", f.Kind, f.Reason, feature, f.ID)}
				refusedOrder = append(refusedOrder, f.ID)
			}
			paths.after(s, e, add)
			merges.after(s, e)
			stages.after(s, e)
			if e.Type == workflow.EventTaskCompleted {
				check.taskWork(s, e, add)
				gates.taskCompleted(s, e)
			}
			if e.Type == workflow.EventArtifactRecorded {
				arts.recorded(e)
			}
			if len(s.Conflicts) > conflictsBefore {
				if c := s.Conflicts[len(s.Conflicts)-1]; e.Type == workflow.EventTransitioned && strings.HasPrefix(c.Reason, "no transition") {
					add(e, "transition", "%s", c.Reason)
				}
			}
			r.verifyFacts(e, onBranch, add)
			if e.Type == workflow.EventPRObserved && s.PR != nil && s.PR.Checks == "success" && s.PR.HeadSHA != "" && !slices.Contains(checksPassedAt, s.PR.HeadSHA) {
				checksPassedAt = append(checksPassedAt, s.PR.HeadSHA)
			}
		})
	stages.end()
	arts.end(r.branchTip(final.Branch), add)
	w.Type, w.Phase = final.Type, final.Phase
	for _, id := range refusedOrder {
		v := refused[id]
		if f := refusedEntry(final, id); f != nil && f.Acknowledged != "" {
			w.Acknowledged = append(w.Acknowledged, AcknowledgedRefusal{Seq: v.Seq, Event: id, Kind: f.Kind, Reason: f.Reason, By: f.Acknowledged})
			continue
		}
		w.Violations = append(w.Violations, v)
	}
	if o.RerunGates {
		n := r.rerunGates(gates)
		w.GatesRerun = &n
	}
	tip := r.branchTip(final.Branch)
	if o.branch.replaced(feature) == "" { // the branch's work after a replacement is the replacement's
		paths.end(final, tip, add)
	}
	if by := o.branch.replaced(feature); by != "" {
		w.ReplacedBy = by // the user's decision: its process no longer has to reach a merge
	} else if o.Require {
		if !mergeAllowed(def, final.Phase) {
			add(workflow.Event{Seq: int64(len(events))}, "phase", "%s is in %s, a phase the %s definition does not merge from: the branch's work is not through the workflow (git exarchos transitions %s)", feature, final.Phase, def.Type, feature)
		}
	}
	r.verifyRewind(feature, add)
	givenBase := ""
	if o.Base != "" {
		givenBase = r.Base().Ref
	}
	w.GitHub = r.verifyGitHub(final, givenBase, checksPassedAt, add)
	merges.end(final, w.GitHub, add)
	w.tipCheck = merges.tipCheck(final, def)
	if o.RequireGitHub && githubUnchecked(w.GitHub) {
		add(workflow.Event{Seq: final.LastSeq}, "github", "the pull request %s was %s, and --require-github needs GitHub's word (set GITHUB_TOKEN or GH_TOKEN)", prName(final.PR), w.GitHub)
	}
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
		add(workflow.Event{Seq: snap.Events}, "snapshot", "state.json at %s disagrees with the fold of its %d events (phase %s, events say %s): it was edited, or written by a fold that gave decisions effect they do not have", project.Short(snap.Commit.String()), len(events), phaseOf(stored.State), final.Phase)
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

// rederive checks a recorded transition against the definition and what verify itself can see:
// every guard of the transition is either overridden by an override in effect, or evaluated again
// on the state the transition met and the branch as it was then (the head the transition
// recorded), never taken from the log's "passed". The merge evidence merge-verified rests on is
// derived again against the base verify was given (verify_merge.go).
type rederive struct {
	r      *Repo
	def    *workflow.Definition
	base   string
	facts  gitFacts
	merges *mergeAudit // merge evidence, derived again (verify_merge.go)
}

// gitFacts is what verify reads of the repository.
type gitFacts interface {
	guards.GitFacts
	guards.ChangeFacts
	workflow.FileReader // what a task's commits change, judged as task done judges it
}

// transition checks one recorded transition; it returns the guards the step was judged on
// (artifactAudit judges a recorded path there).
func (c *rederive) transition(s *workflow.State, e workflow.Event, add func(workflow.Event, string, string, ...any)) (judged []string) {
	var d workflow.TransitionedData
	if e.DecodeData(&d) != nil || d.From != s.Phase {
		return nil // the fold records it as a conflict (a merge's loser): no effect, nothing to check
	}
	c.merges.transition(s, e, d, add)
	trigger := d.Trigger
	if trigger == "" {
		trigger = workflow.OnTransition
	}
	if p := c.rewrittenHead(s, d); p != "" {
		add(e, "guard", "%s → %s %s", d.From, d.To, p)
		return c.guardsTo(s, d.To)
	}
	// Several transitions may lead to d.To (a phase's own and the universal cleanup): the step
	// holds when one of those its trigger takes has every guard accounted for.
	var first []string
	var firstGuards []string
	for _, t := range c.def.Outgoing(s.Phase) {
		if t.To != d.To || !t.TakenBy(trigger) {
			continue
		}
		problems := c.guardProblems(s, t, d)
		if len(problems) == 0 {
			return t.Guards
		}
		if first == nil {
			first, firstGuards = problems, t.Guards
		}
	}
	for _, p := range first {
		add(e, "guard", "%s → %s %s", d.From, d.To, p)
	}
	return firstGuards // judged here, and failed: a violation of the step's own, not the record's
}

// guardProblems lists how a recorded transition fails to account for t's guards.
func (c *rederive) guardProblems(s *workflow.State, t workflow.Transition, d workflow.TransitionedData) []string {
	var out []string
	for _, g := range t.Guards {
		if slices.Contains(d.Overridden, g) {
			if !overrideInEffect(s, g) {
				out = append(out, fmt.Sprintf("claims guard %s was overridden, but no override of it is in effect in %s", g, s.Phase))
			}
			continue
		}
		if !slices.Contains(d.Guards, g) {
			out = append(out, fmt.Sprintf("skips guard %s: it is neither recorded as passed nor overridden", g))
			continue
		}
		if strings.HasPrefix(g, workflow.ShellGuardPrefix) {
			continue // a repository's command, run when decided; verify runs no commands
		}
		fn, ok := guards.Lookup(g)
		if !ok {
			out = append(out, fmt.Sprintf("names guard %s, which this version of git exarchos does not know", g))
			continue
		}
		var facts guards.GitFacts
		switch {
		case d.Head != "":
			facts = atHead{c.facts, d.Head}
		case stateGuards[g]:
			facts = reviewedTip(c.def, s) // recorded before transitions recorded their head
		default:
			out = append(out, fmt.Sprintf("records guard %s as passed but no branch head, so verify cannot derive it again from the branch's commits", g))
			continue
		}
		if f := fn(guards.Input{State: *s, Def: c.def, Target: t.To, Facts: facts, Base: c.base}); f != nil {
			out = append(out, fmt.Sprintf("recorded guard %s as passed, but verify finds: %s", g, f.Reason))
			continue
		}
	}
	return out
}

// taskWork checks a task's completion the way task done decides it: a head of its own, past
// (and descending from) where the task started.
func (c *rederive) taskWork(s *workflow.State, e workflow.Event, add func(workflow.Event, string, string, ...any)) {
	var d workflow.TaskData
	if e.DecodeData(&d) != nil {
		return
	}
	t, ok := s.Task(d.ID)
	if !ok || t.Status != workflow.TaskCompleted {
		return
	}
	since := t.Start
	if w, ok := s.TaskWorktree(d.ID); ok {
		since = w.Base
	}
	switch {
	case d.HeadSHA == "":
		add(e, "task", "task %s was completed with no head: no commit shows its work", d.ID)
	case since == "":
	case d.HeadSHA == since:
		add(e, "task", "task %s was completed at %s, where it started: it has no commit of its own", d.ID, project.Short(since))
	default:
		if ok, err := c.facts.IsAncestor(since, d.HeadSHA); err == nil && !ok {
			add(e, "task", "task %s was completed at %s, which does not descend from %s, where it started", d.ID, project.Short(d.HeadSHA), project.Short(since))
			return
		}
		if what := c.noWork(since, d.HeadSHA); what != "" {
			add(e, "task", "task %s was completed at %s, but its commits since %s, where it started, %s: that is no work (task done refuses it; issue 38)", d.ID, project.Short(d.HeadSHA), project.Short(since), what)
		}
	}
}

// noWork says what the commits since..head change when that is no work, as task done judges it
// (workflow.NoWork); "" when they do work or the history cannot be read (other rules report a
// missing commit).
func (c *rederive) noWork(since, head string) string {
	what, err := workflow.NoWork(c.facts, since, head)
	if err != nil {
		return ""
	}
	return what
}

// atHead answers the branch tip with the head a transition recorded, and an empty worktree: the
// guards are evaluated on the branch as it was when the transition was decided.
type atHead struct {
	gitFacts
	head string
}

func (a atHead) BranchTip(string) (string, error)         { return a.head, nil }
func (a atHead) WorktreeChanges(string) ([]string, error) { return nil, nil }

// reviewedTip stands in for the branch tip when a transition recorded none: each verdict records
// the commit it judged, so the review guard holds when every required verdict judged one commit
// (verifyFacts checks that commit is on the branch's history). Only BranchTip is answered: it is
// all the state guards read.
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

// mergeAllowed reports whether a workflow in phase may have its branch merged: a final phase that
// is not the cancelled one, or a phase with a transition of its own (not the universal cleanup)
// to such a final phase (synthesize, whose pull request is the merge).
func mergeAllowed(def *workflow.Definition, phase string) bool {
	done := func(p string) bool { return def.IsFinal(p) && p != def.CancelTarget() }
	if done(phase) {
		return true
	}
	for _, t := range def.Outgoing(phase) {
		if t.From != workflow.AnyPhase && done(t.To) {
			return true
		}
	}
	return false
}

// phasePaths checks that the branch's commits, phase by phase, changed only what each phase
// allows: from the head a phase was entered on (the fork point for the first) to the head the
// transition out of it recorded, and for the phase the workflow is in, to the branch's tip.
type phasePaths struct {
	def     *workflow.Definition
	facts   gitFacts
	base    string // the base's tip: what the base brought in by a merge is not the branch's
	entered string
	phase   string
}

func (p *phasePaths) after(s *workflow.State, e workflow.Event, add func(workflow.Event, string, string, ...any)) {
	switch e.Type {
	case workflow.EventStarted:
		p.phase, p.entered = s.Phase, s.ForkPoint
	case workflow.EventTransitioned:
		var d workflow.TransitionedData
		if e.DecodeData(&d) != nil || s.Phase != d.To || p.phase == s.Phase {
			return
		}
		// As the definitions do (paths-allowed is not added to transitions into a final phase):
		// a workflow that ends is judged by its merge, not by where its commits were made.
		if !slices.Contains(d.Overridden, workflow.GuardPathsAllowed) && !p.def.IsFinal(d.To) {
			p.check(p.phase, d.Head, e, add)
		}
		p.phase, p.entered = s.Phase, d.Head
	}
}

func (p *phasePaths) end(s workflow.State, tip string, add func(workflow.Event, string, string, ...any)) {
	if p.phase == s.Phase && !p.def.IsFinal(s.Phase) {
		p.check(s.Phase, tip, workflow.Event{Seq: s.LastSeq}, add)
	}
}

func (p *phasePaths) check(phase, to string, e workflow.Event, add func(workflow.Event, string, string, ...any)) {
	allowed := p.def.AllowedPathsOf(phase)
	if len(allowed) == 0 || p.entered == "" || to == "" || p.entered == to {
		return
	}
	changed, err := p.facts.ChangedPaths(p.entered, to)
	if err != nil && missingCommit(p.facts, p.entered, to) {
		return // the branch was rewritten: rederive names it on the transition (rewrittenHead)
	}
	if err != nil {
		add(e, "paths", "cannot read what the branch changed in %s (%s..%s): %v", phase, project.Short(p.entered), project.Short(to), err)
		return
	}
	// A merge of the base into the branch brings the base's changes: only what the branch
	// changed against its merge-base with the base counts.
	var own map[string]bool
	if p.base != "" {
		if mb, ok, err := p.facts.MergeBase(to, p.base); err == nil && ok && mb != to {
			if mine, err := p.facts.ChangedPaths(mb, to); err == nil {
				own = map[string]bool{}
				for _, c := range mine {
					own[c] = true
				}
			}
		}
	}
	var bad []string
	for _, c := range changed {
		if !workflow.PathAllowed(allowed, c) && (own == nil || own[c]) {
			bad = append(bad, c)
		}
	}
	if len(bad) > 0 {
		add(e, "paths", "commits %s..%s changed %s while the workflow was in %s, which allows only %s", project.Short(p.entered), project.Short(to), strings.Join(bad, ", "), phase, strings.Join(allowed, ", "))
	}
}

// verifyRewind checks that the workflow's ref descends from every remote's copy of it as last
// fetched or pushed: a ref rewound past what the remote already holds (git fast-import --force,
// update-ref) drops events the remote has seen.
func (r *Repo) verifyRewind(feature string, add func(workflow.Event, string, string, ...any)) {
	facts := r.Facts()
	local, ok, err := facts.ResolveRef(gitstore.RefName(feature))
	if err != nil || !ok {
		return
	}
	remotes, _ := r.Store.Remotes()
	for _, rm := range remotes {
		theirs, ok, err := facts.ResolveRef(gitstore.TrackingRef(rm, feature))
		if err != nil || !ok || theirs == local {
			continue
		}
		if a, err := facts.IsAncestor(theirs, local); err == nil && !a {
			add(workflow.Event{}, "rewind", "refs/exarchos/%s (%s) does not descend from %s's copy (%s): the log was rewritten, dropping events the remote holds; restore it with git update-ref refs/exarchos/%s %s", feature, project.Short(local), rm, project.Short(theirs), feature, project.Short(theirs))
		}
	}
}

// refusedEntry is the refused decision with event id, in the final state.
func refusedEntry(s workflow.State, id string) *workflow.Refused {
	for i := range s.Refused {
		if s.Refused[i].ID == id {
			return &s.Refused[i]
		}
	}
	return nil
}

// branchTip is the branch's tip as verify sees it: the local branch, else a remote's, else HEAD
// (CI checks out the pull request's head).
func (r *Repo) branchTip(branch string) string {
	facts := r.Facts()
	if branch != "" {
		if sha, ok, err := facts.ResolveRef("refs/heads/" + branch); err == nil && ok {
			return sha
		}
		if rs, err := r.Store.Remotes(); err == nil {
			for _, rm := range rs {
				if sha, ok, err := facts.ResolveRef("refs/remotes/" + rm + "/" + branch); err == nil && ok {
					return sha
				}
			}
		}
	}
	return r.HeadCommit()
}

func overrideInEffect(s *workflow.State, guard string) bool {
	for _, o := range s.Overrides {
		if o.Guard == guard && o.Phase == s.Phase && o.At >= s.EnteredAt {
			return true
		}
	}
	return false
}

// verifyFacts checks what an event recorded against the repository: recorded commits on the
// branch's history, merge evidence by ancestry. (Artifacts are judged where a guard relied on
// them: artifactAudit, verify_artifacts.go.)
func (r *Repo) verifyFacts(e workflow.Event, onBranch func(string) bool, add func(workflow.Event, string, string, ...any)) {
	facts := r.Facts()
	switch e.Type {
	case workflow.EventValidationRecorded:
		var d workflow.ValidationData
		if e.DecodeData(&d) == nil && d.Commit != "" && !onBranch(d.Commit) {
			add(e, "validation", "`%s` ran on %s, which is not on the branch's history", d.Command, project.Short(d.Commit))
		}
	case workflow.EventReviewRecorded:
		var d workflow.ReviewData
		if e.DecodeData(&d) == nil && d.Commit != "" && !onBranch(d.Commit) {
			add(e, "review", "the %s review judged %s, which is not on the branch's history", d.Dimension, project.Short(d.Commit))
		}
		for _, f := range d.Findings { // a finding names a file of the commit judged (review_findings.go)
			if d.Commit == "" {
				break
			}
			if ok, err := facts.FileExists(d.Commit, f.File); err != nil || !ok {
				add(e, "review", "finding %s names %s, which is not a file at the judged commit %s", f.ID, f.File, project.Short(d.Commit))
			}
		}
	case workflow.EventTaskCompleted:
		var d workflow.TaskData
		if e.DecodeData(&d) == nil && d.HeadSHA != "" && !onBranch(d.HeadSHA) {
			add(e, "task", "task %s completed at %s, which is not on the branch's history", d.ID, project.Short(d.HeadSHA))
		}
	case workflow.EventMergeVerified:
		var d workflow.MergeVerifiedData
		if e.DecodeData(&d) != nil || d.Method != "ancestry" || d.HeadSHA == "" || d.Commit == "" {
			return
		}
		if ok, err := facts.IsAncestor(d.HeadSHA, d.Commit); err != nil || !ok {
			add(e, "merge", "merge evidence: %s is not contained in the base commit %s", project.Short(d.HeadSHA), project.Short(d.Commit))
		}
	}
}

// branchTips are the commits whose history counts as the branch's: the local and remote-tracking
// branch, HEAD (CI checks out the pull request) and the base (a merged branch may be deleted).
func (r *Repo) branchTips(branch string) []string {
	facts := r.Facts()
	var out []string
	if h := r.HeadCommit(); h != "" {
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
