package verify

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/exarchos/git-exarchos/gitstore"
	"github.com/exarchos/git-exarchos/workflow"
)

// The workflows of a branch, derived again from their events: the workflow.started the fold takes
// (with this base's verdicts, so a replacement no allowed key signed binds nothing) names the
// branch. Nothing the ref's head commit claims counts: its Exarchos-Branch trailer, state.json,
// the list cache are all written by whoever writes the ref, and a plumbing commit
// (git commit-tree, update-ref) can say any branch.

// binding is one workflow whose events bind the branch.
type binding struct {
	feature string
	seq     int64 // the workflow.started that binds it
	// started is false for a workflow the fold left inert (a refused replacement, an unknown
	// type): verify still replays it, and reports why.
	started bool
	// replaces are the workflows its start replaced, by the user's decision (KindReplace), when
	// the start took effect.
	replaces []string
}

// boundTo lists, by feature, every workflow whose events bind branch: the fold's branch, or, for
// a workflow the fold never started, a workflow.started naming the branch.
func (r *Repo) boundTo(branch string) ([]binding, error) {
	refs, err := r.Store.LocalWorkflows()
	if err != nil {
		return nil, err
	}
	features := make([]string, 0, len(refs))
	for f := range refs {
		features = append(features, f)
	}
	sort.Strings(features)
	signed := r.Signed()
	var out []binding
	for _, f := range features {
		events, _, err := r.Store.Events(f, gitstore.EventFilter{Types: []string{workflow.EventStarted}})
		if err != nil {
			return nil, fmt.Errorf("read how %s was started: %w", f, err)
		}
		if signed {
			events = r.WithVerdicts(f, events)
		}
		def, _ := r.Definition(workflowType(events)) // an unknown type starts nothing; verifyOne says why
		b := binding{feature: f}
		named := false
		s := workflow.Replay(def, events, nil, func(s *workflow.State, e workflow.Event) {
			var d workflow.StartedData
			if e.DecodeData(&d) == nil && d.Branch == branch && b.seq == 0 {
				named, b.seq = true, e.Seq
			}
			if s.Started() && !b.started {
				b.started, b.seq, b.replaces = true, e.Seq, d.Replaces
			}
		})
		if (b.started && s.Branch == branch) || (!b.started && named) {
			out = append(out, b)
		}
	}
	return out, nil
}

// branchVerdict holds what verify found of a branch's workflows as a whole: which were replaced
// by the user's decision, and which share the branch with another active one without it.
type branchVerdict struct {
	branch     string
	replacedBy map[string]string // feature → the workflow whose start replaced it
	startedAt  map[string]int64  // feature → the seq of the workflow.started that binds it
}

func newBranchVerdict(branch string, bound []binding) *branchVerdict {
	v := &branchVerdict{branch: branch, replacedBy: map[string]string{}, startedAt: map[string]int64{}}
	for _, b := range bound {
		v.startedAt[b.feature] = b.seq
		if !b.started {
			continue
		}
		for _, old := range b.replaces {
			if old != b.feature && slices.ContainsFunc(bound, func(o binding) bool { return o.feature == old }) {
				v.replacedBy[old] = b.feature
			}
		}
	}
	return v
}

// shared adds a `branch` violation to each workflow that is active (not in a final phase) on the
// branch beside another active one, when no start replaced the other by the user's decision: a
// second workflow on a branch is the user's decision (init --human, signed in signed mode), since
// its work could stand in for the first's.
func (r *Repo) shared(v *branchVerdict, res *Result) {
	var active []int
	for i, w := range res.Workflows {
		if _, gone := v.replacedBy[w.Feature]; gone || w.Type == "" || r.IsFinal(w.Type, w.Phase) {
			continue
		}
		active = append(active, i)
	}
	if len(active) == 0 {
		for i := range res.Workflows { // commits after a merge are no active workflow's
			if w := &res.Workflows[i]; w.tipCheck != nil {
				w.Violations = append(w.Violations, *w.tipCheck)
			}
		}
	}
	if len(active) < 2 {
		return
	}
	for _, i := range active {
		w := &res.Workflows[i]
		var others []string
		for _, j := range active {
			if j != i {
				others = append(others, fmt.Sprintf("%s (%s, in %s)", res.Workflows[j].Feature, res.Workflows[j].Type, res.Workflows[j].Phase))
			}
		}
		w.Violations = append(w.Violations, Violation{Seq: v.startedAt[w.Feature], Event: workflow.EventStarted, Rule: "branch",
			Message: fmt.Sprintf("branch %s also has the active workflow(s) %s, and no start replaced the other by the user's decision: which workflow the branch's work goes through is the user's to say; ask the user to run git exarchos init <feature> --type <type> --branch %s --human (it replaces them)",
				v.branch, strings.Join(others, ", "), v.branch)})
	}
}

// replaced names the workflow that replaced feature on the branch ("" when none, or without
// --branch).
func (v *branchVerdict) replaced(feature string) string {
	if v == nil {
		return ""
	}
	return v.replacedBy[feature]
}
