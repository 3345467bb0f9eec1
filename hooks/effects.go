package hooks

import (
	"fmt"
	"slices"
	"strings"

	"github.com/exarchos/git-exarchos/workflow"
)

// maxListedPaths bounds the paths a blocking reason names one by one.
const maxListedPaths = 20

// judgeEffects compares what the repository holds now with the paths the workflow's phase may
// change (workflow.Phase.AllowedPaths, its own or its compound's, plus the recorded paths of the
// artifacts its envelope excepts). It returns the blocking reason — which paths, and how to undo
// each — or "".
func judgeEffects(w Bound, repo Repository) string {
	if w.Def == nil {
		return ""
	}
	patterns := w.Def.AllowedPathsOf(w.State.Phase)
	if len(patterns) == 0 {
		return ""
	}
	env := w.Def.ToolPolicy(w.State.Phase)
	changes, err := repo.Changes(w)
	if err != nil {
		return fmt.Sprintf("git exarchos: phase %s of workflow %s may change only %s, and the hook could not read what "+
			"changed (%v). Check with git status that nothing else changed, and ask the user if the repository is broken.",
			w.State.Phase, w.Feature, strings.Join(patterns, ", "), err)
	}
	allowed := slices.Clone(patterns)
	var artifacts []string
	for _, name := range env.ExceptArtifacts {
		if a, ok := w.State.Artifacts[name]; ok && !a.Inline && a.Path != "" {
			artifacts = append(artifacts, strings.TrimPrefix(a.Path, "./"))
		}
	}
	allowed = append(allowed, artifacts...)
	var bad []Change
	for _, c := range changes {
		if !slices.Contains(artifacts, c.Path) && !slices.ContainsFunc(patterns, func(g string) bool { return workflow.MatchPath(g, c.Path) }) {
			bad = append(bad, c)
		}
	}
	if len(bad) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "git exarchos: phase %s of workflow %s (%s) may change only %s, and these changed outside them:",
		w.State.Phase, w.Feature, w.State.Type, strings.Join(allowed, ", "))
	undo := map[string][]string{}
	for i, c := range bad {
		if i < maxListedPaths {
			fmt.Fprintf(&b, " %s (%s);", c.Path, c.Where)
		}
		undo[c.Where] = append(undo[c.Where], shellQuote(c.Path))
	}
	if len(bad) > maxListedPaths {
		fmt.Fprintf(&b, " and %d more (git status);", len(bad)-maxListedPaths)
	}
	b.WriteString(" Undo them before going on:")
	if p := undo["untracked"]; len(p) > 0 {
		fmt.Fprintf(&b, " rm -- %s;", strings.Join(clipList(p), " "))
	}
	if p := append(undo["index"], undo["worktree"]...); len(p) > 0 {
		fmt.Fprintf(&b, " git restore --source=HEAD --staged --worktree -- %s;", strings.Join(clipList(p), " "))
	}
	if p := undo["branch"]; len(p) > 0 {
		fmt.Fprintf(&b, " the branch's commits changed %s: revert them (git log --oneline <base>..HEAD -- <path> shows which);", strings.Join(clipList(p), " "))
	}
	fmt.Fprintf(&b, " the code changes belong to a later phase (git exarchos transitions %s).", w.Feature)
	return b.String()
}

func clipList(p []string) []string {
	if len(p) > maxListedPaths {
		return p[:maxListedPaths]
	}
	return p
}

