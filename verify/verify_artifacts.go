package verify

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/exarchos/git-exarchos/project"
	"github.com/exarchos/git-exarchos/workflow"
)

// artifactAudit judges each recorded artifact path where a guard relied on it. The commit an
// artifact.recorded carries is only where the branch was when the path was named: the product
// teaches the agent to record a path before it writes the file (in a planning phase the hook lets
// it write only a recorded artifact's file), so nothing was judged there. What counts is the
// transition whose artifact-<name> guard relied on the record: rederive evaluates that guard
// again at the head the transition recorded (the file is there, added or changed on the branch),
// or finds the human's override in effect. A record no transition has relied on since (the
// workflow has not moved on yet, or the path was named again after its guard passed) is judged at
// the branch's tip, the only commit that can still stand for it.
type artifactAudit struct {
	facts   gitFacts
	feature string
	pending map[string]pendingArtifact // by artifact name: the latest path record no transition has relied on
}

type pendingArtifact struct {
	e workflow.Event
	d workflow.ArtifactData
}

func newArtifactAudit(feature string, facts gitFacts) *artifactAudit {
	return &artifactAudit{facts: facts, feature: feature, pending: map[string]pendingArtifact{}}
}

// recorded notes an artifact.recorded: a path record waits for the guard that relies on it; an
// inline record replaces any path (an inline artifact has no file to judge).
func (a *artifactAudit) recorded(e workflow.Event) {
	var d workflow.ArtifactData
	if e.DecodeData(&d) != nil || d.Name == "" {
		return
	}
	if d.Inline || d.Path == "" {
		delete(a.pending, d.Name)
		return
	}
	a.pending[d.Name] = pendingArtifact{e: e, d: d}
}

// reliedOn notes the artifact guards a transition's guards accounted for (evaluated again at its
// head, or overridden by an override in effect): the records they relied on are judged there.
func (a *artifactAudit) reliedOn(guardIDs []string) {
	for _, g := range guardIDs {
		if name, ok := strings.CutPrefix(g, artifactGuardPrefix); ok {
			delete(a.pending, name)
		}
	}
}

// end judges the records no transition relied on at the branch's tip, in the order they were made.
func (a *artifactAudit) end(tip string, add func(workflow.Event, string, string, ...any)) {
	var left []pendingArtifact
	for _, p := range a.pending {
		left = append(left, p)
	}
	slices.SortFunc(left, func(x, y pendingArtifact) int { return cmp.Compare(x.e.Seq, y.e.Seq) }) // the log's order
	for _, p := range left {
		if tip == "" {
			add(p.e, "artifact", "artifact %s: no branch tip to find %s on (check out the pull request's head, or fetch its branch)", p.d.Name, p.d.Path)
			continue
		}
		if ok, err := a.facts.FileExists(tip, p.d.Path); err == nil && ok {
			continue
		}
		add(p.e, "artifact", "artifact %s: %s is not a file at the branch's tip %s, and no transition has relied on it since it was recorded: commit it (git add %s && git commit -m \"%s: %s\"), or record the path that holds it (git exarchos set %s artifacts.%s=<path>)",
			p.d.Name, p.d.Path, project.Short(tip), p.d.Path, a.feature, p.d.Name, a.feature, p.d.Name)
	}
}

// artifactGuardPrefix is the guard id prefix of an artifact check (guards: artifact-<name>).
const artifactGuardPrefix = "artifact-"

// rewrittenHead says why the head a transition recorded cannot be judged when this clone does not
// have it ("" when it does): the branch was rewritten after the transition (a rebase onto the moved
// base, an amend, a force-push), and a guard can be judged again only where it was judged. The fix
// puts the recorded commits back and brings the base in the way that keeps them: a merge.
func (c *rederive) rewrittenHead(s *workflow.State, d workflow.TransitionedData) string {
	if d.Head == "" || !missingCommit(c.facts, d.Head) {
		return ""
	}
	base := "origin/main"
	if ref := c.r.Base().Ref; ref != "" {
		base = strings.TrimPrefix(strings.TrimPrefix(ref, "refs/remotes/"), "refs/heads/")
	}
	return fmt.Sprintf("recorded the head %s, which this clone does not have: branch %s was rewritten after the transition (a rebase, an amend, a force-push), and its guards can be judged again only on the commits they were judged on. Put the recorded commits back (the tip before the rewrite, from git reflog %s: git reset --keep <that tip>), bring the base in with a merge instead (git merge %s), then push the branch again (git push --force-with-lease origin %s)",
		project.Short(d.Head), s.Branch, s.Branch, base, s.Branch)
}

// guardsTo are the guards of every transition out of s's phase to phase: those a step there may
// have been judged on.
func (c *rederive) guardsTo(s *workflow.State, phase string) []string {
	var out []string
	for _, t := range c.def.Outgoing(s.Phase) {
		if t.To == phase {
			out = append(out, t.Guards...)
		}
	}
	return out
}

// missingCommit reports whether one of shas is no commit this clone has.
func missingCommit(facts gitFacts, shas ...string) bool {
	peel, ok := facts.(interface{ PeelToCommit(string) (string, error) })
	if !ok {
		return false
	}
	for _, sha := range shas {
		if _, err := peel.PeelToCommit(sha); err != nil {
			return true
		}
	}
	return false
}
