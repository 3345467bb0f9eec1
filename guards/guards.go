package guards

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/exarchos/git-exarchos/workflow"
)

// Input is what a guard reads.
type Input struct {
	State  workflow.State
	Def    *workflow.Definition // the definition the decision is taken under
	Target string               // the phase the transition goes to
	Facts  GitFacts
	// Base is the protected base branch's tip: what the branch changed is measured from its
	// merge-base with it. "" when there is none.
	Base string
	// Validation are the validation commands the base branch declares for built-in types
	// (.exarchos/validate); a phase's own Validation takes precedence.
	Validation []string
	// OfflineBase is, where origin is no GitHub repository (or there is no origin), the base
	// branch a merge is verified against offline ("main", or "origin/main" as last fetched): the
	// pull request guards then name the offline road (merge, cleanup --offline) instead of pr find,
	// which needs GitHub. "" where origin is on GitHub.
	OfflineBase string
	// Agent: the caller runs in an agent's session (agentenv); Caller is who it is, as its client
	// reports it. A failure's fix is the caller's own next step: a step only the user may take, or
	// one whose result would not count from this caller, is said as the user's (workflow.AskUser).
	Agent  bool
	Caller workflow.Caller
}

// Guard is one guard function: nil passes.
type Guard func(in Input) *workflow.GuardFailure

// artifactPrefix: "artifact-<name>" checks the artifact <name>.
const artifactPrefix = "artifact-"

// Artifact names that definitions use; any other artifact-<name> id works the same way.
var artifactNames = []string{"brief", "design", "fix-design", "plan", "rca", "report", "scope", "triage"}

var registry = map[string]Guard{
	"plan-approved":                  planApproved,
	"tasks-complete":                 tasksComplete,
	"reviews-passed":                 reviewsPassed,
	"validation-passed":              validationPassed,
	"track-hotfix":                   trackIs("hotfix"),
	"track-thorough":                 trackIs("thorough"),
	"track-polish":                   trackIs("polish"),
	"track-overhaul":                 trackIs("overhaul"),
	"fix-commit-recorded":            fixCommitRecorded,
	"sources-collected":              sourcesCollected,
	"escalation-recorded":            escalationRecorded,
	"loop-policy-satisfied":          loopPolicySatisfied,
	workflow.GuardSynthesisRequired:  synthesisRequired,
	"synthesis-not-required":         synthesisNotRequired,
	"pr-url-exists":                  prURLExists,
	"checks-passed":                  checksPassed,
	"merge-verified":                 mergeVerified,
	"review-failed":                  reviewFailed,
	"synthesis-failed":               synthesisFailed,
	"docs-changed":                   docsChanged,
	workflow.GuardSynthesisRequested: synthesisRequested,
	workflow.GuardGatesPassed:        gatesPassed,
	workflow.GuardPathsAllowed:       pathsAllowed,
	workflow.GuardWorkCommitted:      workCommitted,
}

func init() {
	for _, n := range artifactNames {
		registry[artifactPrefix+n] = artifactPresent(n)
	}
}

// Lookup returns the guard with the given id; artifact-<name> exists for every name.
func Lookup(id string) (Guard, bool) {
	if g, ok := registry[id]; ok {
		return g, true
	}
	if name, ok := strings.CutPrefix(id, artifactPrefix); ok && name != "" {
		return artifactPresent(name), true
	}
	return nil, false
}

// IDs lists the registered guard ids, sorted.
func IDs() []string {
	ids := make([]string, 0, len(registry))
	for id := range registry {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

// Evaluator wires guard ids to guard functions over one source of git facts. It implements
// workflow.GuardEvaluator.
type Evaluator struct {
	Facts GitFacts
	// Shell runs the shell guards of repository-defined types; nil refuses them all.
	Shell ShellRunner
	// Base and Validation are passed to every guard (Input).
	Base        string
	Validation  []string
	OfflineBase string
	// Agent and Caller say who asks (Input): the fixes are worded for them.
	Agent  bool
	Caller workflow.Caller
}

// NewEvaluator returns the evaluator Decide and Transitions use.
func NewEvaluator(facts GitFacts) *Evaluator { return &Evaluator{Facts: facts} }

// Evaluate runs the guard; an unknown id fails closed.
func (e *Evaluator) Evaluate(def *workflow.Definition, id string, s workflow.State, target string) *workflow.GuardFailure {
	if name, ok := strings.CutPrefix(id, workflow.ShellGuardPrefix); ok {
		return e.shell(def, id, name, s)
	}
	g, ok := Lookup(id)
	if !ok {
		return &workflow.GuardFailure{Guard: id, Reason: "unknown guard " + id, Expected: "a guard this version knows", Fix: "git exarchos describe " + s.Type}
	}
	f := g(Input{State: s, Def: def, Target: target, Facts: e.Facts, Base: e.Base, Validation: e.Validation, OfflineBase: e.OfflineBase,
		Agent: e.Agent, Caller: e.Caller})
	if f != nil && f.Guard == "" {
		f.Guard = id
	}
	return f
}

func fail(guard, reason, expected, fix string) *workflow.GuardFailure {
	return &workflow.GuardFailure{Guard: guard, Reason: reason, Expected: expected, Fix: fix}
}

// tip reads the workflow branch's tip, or says why it cannot.
func tip(guard string, in Input) (string, *workflow.GuardFailure) {
	s := in.State
	if s.Branch == "" {
		return "", fail(guard, "the workflow is not bound to a branch", "a branch with commits", "git exarchos status "+s.Feature)
	}
	if in.Facts == nil {
		return "", fail(guard, "no git facts available", "access to the repository", "git exarchos status "+s.Feature)
	}
	sha, err := in.Facts.BranchTip(s.Branch)
	if err != nil || sha == "" {
		fix := "git exarchos status " + s.Feature
		var fixer interface{ Fix() string } // an error that knows its fix (a branch with no commit yet)
		if errors.As(err, &fixer) {
			fix = fixer.Fix()
		}
		return "", fail(guard, fmt.Sprintf("cannot read the tip of branch %s: %v", s.Branch, errOr(err, "no commit")), "branch "+s.Branch+" with commits", fix)
	}
	return sha, nil
}

func errOr(err error, alt string) any {
	if err != nil {
		return err
	}
	return alt
}

// sameCommit compares full or abbreviated (≥ 7 hex digits) object names.
func sameCommit(a, b string) bool { return workflow.SameCommit(a, b) }

func short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}

var _ workflow.GuardEvaluator = (*Evaluator)(nil)
