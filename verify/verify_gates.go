package verify

import (
	"cmp"
	"slices"
	"strings"
	"time"

	"github.com/exarchos/git-exarchos/project"
	"github.com/exarchos/git-exarchos/workflow"
)

// verify and the quality gates (issue 30). A gate's pass is a validation.recorded of the commit it
// ran on; a phase's transition records the head it left from, a task's completion the head it was
// completed at. While verify replays the log, gateAudit checks that those heads are on the branch
// and that each of the base definition's gates has its latest run there passing (the phase's
// gates-passed is derived again by rederive, like every guard; a task's completion here), and
// collects the (gate, commit) pairs the log holds as passed. With --rerun-gates verify runs each
// pair again, the command as the base branch defines it, in a clean checkout of the commit: a pass
// written with plumbing on a commit where the gate fails is then found out. It is not the default:
// a gate is the project's test suite or its linter, minutes each, and CI runs them on the head
// already; the default checks are reads of the log and of git, milliseconds.

// gateAudit is what verify checks of the gates while it replays a workflow.
type gateAudit struct {
	feature  string
	def      *workflow.Definition
	onBranch func(string) bool
	add      func(workflow.Event, string, string, ...any)
	claims   []gateClaim
}

// gateClaim is a gate the log holds as passed on a commit, by the event that relied on it.
type gateClaim struct {
	command, commit string
	e               workflow.Event
	env             string // what the gate ran for, as its run had it: EXARCHOS_PHASE or EXARCHOS_TASK
}

// transition checks a phase's exit before it takes effect (s is the state it left): the head the
// transition recorded for gates-passed is on the branch, and its gates are claims to re-run.
func (a *gateAudit) transition(s *workflow.State, e workflow.Event) {
	var d workflow.TransitionedData
	if e.DecodeData(&d) != nil || d.From != s.Phase || !slices.Contains(d.Guards, workflow.GuardGatesPassed) {
		return
	}
	if d.Head == "" {
		return // rederive reports a guard recorded as passed with no head
	}
	if !a.onBranch(d.Head) {
		a.add(e, "gate", "%s → %s records its gates as passed on %s, which is not on the branch's history", d.From, d.To, project.Short(d.Head))
		return
	}
	p, _ := a.def.Phase(d.From)
	for _, g := range p.Gates {
		a.claims = append(a.claims, gateClaim{command: g, commit: d.Head, e: e, env: "EXARCHOS_PHASE=" + d.From})
	}
}

// taskCompleted checks a task's completion after it took effect: every gate of the base
// definition, and every gate the completion names, has its latest run on the completion's head
// passing in the log before it.
func (a *gateAudit) taskCompleted(s *workflow.State, e workflow.Event) {
	var d workflow.TaskData
	if e.DecodeData(&d) != nil || d.HeadSHA == "" {
		return // taskWork reports a completion with no head
	}
	if t, ok := s.Task(d.ID); !ok || t.Status != workflow.TaskCompleted || t.HeadSHA != d.HeadSHA {
		return // a merge's loser: no effect
	}
	gates := slices.Clone(a.def.TaskGates)
	for _, g := range d.Gates {
		if !slices.Contains(gates, g) {
			gates = append(gates, g)
		}
	}
	for _, g := range gates {
		run, ok := s.LatestGateRun(g, d.HeadSHA)
		switch {
		case !ok:
			a.add(e, "gate", "task %s was completed at %s, but the gate `%s` has no run recorded on that commit", d.ID, project.Short(d.HeadSHA), g)
		case run.ExitCode != 0:
			a.add(e, "gate", "task %s was completed at %s, but the gate `%s` last exited %d there", d.ID, project.Short(d.HeadSHA), g, run.ExitCode)
		case slices.Contains(a.def.TaskGates, g):
			a.claims = append(a.claims, gateClaim{command: g, commit: d.HeadSHA, e: e, env: "EXARCHOS_TASK=" + d.ID})
		}
	}
}

// rerun runs each claimed gate again on its commit (once per pair), the command as the base
// definition holds it, and reports a gate that does not pass there; it returns how many ran.
func (r *Repo) rerunGates(a *gateAudit) int {
	type pair struct{ command, commit string }
	seen := map[pair]bool{}
	byCommit := map[string][]gateClaim{}
	var commits []string
	for _, c := range a.claims {
		p := pair{c.command, c.commit}
		if seen[p] {
			continue
		}
		seen[p] = true
		if byCommit[c.commit] == nil {
			commits = append(commits, c.commit)
		}
		byCommit[c.commit] = append(byCommit[c.commit], c)
	}
	timeout := time.Duration(a.def.GateTimeoutMillis()) * time.Millisecond
	ran := 0
	for _, commit := range commits {
		claims := byCommit[commit]
		dir, done, err := r.CleanCheckout(commit)
		if err != nil {
			a.add(claims[0].e, "gate", "cannot check out %s to run its gates again: %v", project.Short(commit), err)
			continue
		}
		for _, c := range claims {
			run, err := project.RunGate(dir, c.command, timeout, "EXARCHOS_FEATURE="+a.feature, "EXARCHOS_COMMIT="+commit, c.env, "EXARCHOS_VERIFY=1")
			ran++
			switch {
			case err != nil:
				a.add(c.e, "gate", "cannot run the gate `%s` again on %s: %v", c.command, project.Short(commit), err)
			case run.ExitCode != 0:
				a.add(c.e, "gate", "the gate `%s` is recorded as passing on %s, but exits %d there when verify runs it again: %s",
					c.command, project.Short(commit), run.ExitCode, strings.ReplaceAll(cmp.Or(run.Output, "(no output)"), "\n", " ⏎ "))
			}
		}
		done()
	}
	return ran
}
