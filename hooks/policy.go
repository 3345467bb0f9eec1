package hooks

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/exarchos/git-exarchos/workflow"
)

// Bound is a workflow bound to the branch checked out where the session works.
type Bound struct {
	Feature string
	State   workflow.State
	Def     *workflow.Definition
	// Root is the top of the worktree the session works in: artifact paths are relative to it.
	Root string
	// Notes are what a new session must be told besides the workflow (e.g. that human decisions
	// are not protected); filled for SessionStart and rehydrate only.
	Notes []string
}

// enclosingWorktree is the top of the git worktree holding target (the nearest directory with a
// .git entry), or "" when there is none.
func enclosingWorktree(target, cwd string) string {
	if target == "" {
		return ""
	}
	if !filepath.IsAbs(target) {
		target = filepath.Join(cwd, target)
	}
	d := filepath.Dir(filepath.Clean(target))
	for range 64 {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		parent := filepath.Dir(d)
		if parent == d {
			return ""
		}
		d = parent
	}
	return ""
}

// samePath reports whether target (absolute, or relative to cwd) is the file at rel in the
// worktree root, looking through symbolic links when the plain comparison fails.
func samePath(root, rel, cwd, target string) bool {
	if root == "" {
		return false
	}
	if !filepath.IsAbs(target) {
		target = filepath.Join(cwd, target)
	}
	want := filepath.Join(root, filepath.FromSlash(rel))
	if filepath.Clean(target) == want {
		return true
	}
	return resolved(target) == resolved(want)
}

// resolved is path with the symbolic links of its directory resolved (the file may not exist yet).
func resolved(p string) string {
	dir, err := filepath.EvalSymlinks(filepath.Dir(p))
	if err != nil {
		return filepath.Clean(p)
	}
	return filepath.Join(dir, filepath.Base(p))
}

// denial names what is refused, what is still allowed, and the transition that unlocks the tool.
func denial(w Bound, pol workflow.Envelope, c call, target string) string {
	tool := c.tool
	var b strings.Builder
	shown := tool
	if c.subject != "" && !pol.Denies(tool) {
		shown = fmt.Sprintf("%s(%s)", tool, c.subject)
	}
	fmt.Fprintf(&b, "git exarchos: %s is not allowed while workflow %s (%s) is in phase %s", shown, w.Feature, w.State.Type, w.State.Phase)
	if p, ok := w.Def.Phase(w.State.Phase); ok && p.Description != "" {
		fmt.Fprintf(&b, " (%s)", p.Description)
	}
	b.WriteString(".")
	allows := "The phase allows"
	if running := w.State.RunningStages(w.Def); len(running) > 0 {
		allows = fmt.Sprintf("Its running stages (%s) allow, together,", strings.Join(running, ", "))
	}
	if len(pol.AllowedTools) > 0 {
		fmt.Fprintf(&b, " %s only %s.", allows, strings.Join(pol.AllowedTools, ", "))
	} else if pol.NoTools {
		fmt.Fprintf(&b, " %s no tools (its definition says allowedTools: []); only git exarchos status, transitions, transition, submit, stage and checkpoint, as Bash commands each on its own, stay allowed to move on: git exarchos transitions %s.", allows, w.Feature)
	}
	if len(pol.ExceptArtifacts) > 0 {
		var recorded, missing []string
		for _, name := range pol.ExceptArtifacts {
			if a, ok := w.State.Artifacts[name]; ok && a.Path != "" && !a.Inline {
				recorded = append(recorded, fmt.Sprintf("%s (%s)", name, a.Path))
			} else {
				missing = append(missing, name)
			}
		}
		if len(recorded) > 0 {
			fmt.Fprintf(&b, " It may write the recorded %s artifact files only", strings.Join(recorded, " and "))
			if target != "" {
				fmt.Fprintf(&b, ", not %s", target)
			}
			b.WriteString(".")
		}
		for _, name := range missing {
			fmt.Fprintf(&b, " To write the %s here, record its path first: git exarchos set %s artifacts.%s=<path>.", name, w.Feature, name)
		}
	}
	if path := unlockPath(w.Def, w.State.Phase, c); len(path) > 0 {
		last := path[len(path)-1]
		fmt.Fprintf(&b, " %s is allowed from phase %s on, reached by %s → %s (%s)", tool, last.To, last.From, last.To, last.Command(w.Feature))
		if len(path) > 1 {
			hops := []string{path[0].From}
			for _, t := range path[:len(path)-1] {
				hops = append(hops, t.To)
			}
			fmt.Fprintf(&b, " after %s", strings.Join(hops, " → "))
		}
		b.WriteString("; see what that needs with git exarchos transitions " + w.Feature + ".")
	}
	return b.String()
}

// unlockPath is the shortest chain of transitions (universal ones left out) from phase to a
// phase whose envelope allows the tool; nil when there is none.
func unlockPath(def *workflow.Definition, phase string, c call) []workflow.Transition {
	type step struct {
		phase string
		path  []workflow.Transition
	}
	seen := map[string]bool{phase: true}
	queue := []step{{phase: phase}}
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		for _, t := range def.Outgoing(cur.phase) {
			if t.Universal() || seen[t.To] || def.IsFinal(t.To) {
				continue
			}
			seen[t.To] = true
			path := append(slices.Clone(cur.path), t)
			// Entering a fan-out phase starts every stage: its envelope there is their union.
			if !refuses(def.EnvelopeIn(workflow.State{Phase: t.To}), c) {
				return path
			}
			queue = append(queue, step{phase: t.To, path: path})
		}
	}
	return nil
}

// humanGuards pass only on a human's decision; humanTriggers are commands only a human runs.
var (
	humanGuards   = []string{"plan-approved"}
	humanTriggers = []workflow.Trigger{workflow.OnReject, workflow.OnUnblock, workflow.OnCancel}
)

// NeedsAgent reports whether the workflow's phase still waits on the agent: it is not final, no
// circuit breaker waits for a human, and some way forward is not a human's decision.
func NeedsAgent(w Bound) bool {
	if w.Def == nil || w.Def.IsFinal(w.State.Phase) {
		return false
	}
	if w.State.Circuit != nil && w.State.Circuit.Open {
		return false
	}
	for _, t := range w.Def.Outgoing(w.State.Phase) {
		if t.Universal() || slices.ContainsFunc(t.Guards, func(g string) bool { return slices.Contains(humanGuards, g) }) {
			continue
		}
		if !slices.Contains(humanTriggers, t.Trigger()) {
			return true
		}
	}
	return false
}
