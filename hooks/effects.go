package hooks

import (
	"fmt"
	"slices"
	"strings"

	"github.com/exarchos/git-exarchos/guards"
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
	env := w.Def.EnvelopeIn(w.State)
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
	var installs []string // installed files changed since the installer wrote them
	for _, c := range changes {
		if !slices.Contains(artifacts, c.Path) && !slices.ContainsFunc(patterns, func(g string) bool { return workflow.MatchPath(g, c.Path) }) {
			if !guards.IsInstalledFile(c.Path) {
				bad = append(bad, c)
				continue
			}
			// What an installer wrote is no change of the phase's (guards.InstalledFiles); asked
			// only for such a file, so the common path pays nothing.
			if ir, ok := repo.(InstalledFacts); ok && ir.InstalledAsWritten(w, c) {
				continue
			}
			if !slices.Contains(installs, c.Path) {
				installs = append(installs, c.Path)
			}
		}
	}
	if len(bad) == 0 && len(installs) == 0 {
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
	for _, p := range installs {
		fmt.Fprintf(&b, " %s (changed since git exarchos installed it);", p)
	}
	if len(installs) > 0 {
		// Never rm, restore or revert one: that uninstalls it.
		fmt.Fprintf(&b, " Ask the user to check the change to %s and to write it again (%s).", strings.Join(installs, ", "), installFixes(installs))
		if len(bad) == 0 {
			return b.String()
		}
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

// InstalledFacts is a Repository that can tell an installed file (guards.InstalledFiles) holding
// what its installer wrote from one changed since.
type InstalledFacts interface {
	InstalledAsWritten(w Bound, c Change) bool
}

func installFixes(paths []string) string {
	var cmds []string
	for _, p := range paths {
		if c := guards.InstallFix(p); !slices.Contains(cmds, c) {
			cmds = append(cmds, c)
		}
	}
	return strings.Join(cmds, ", ")
}

func clipList(p []string) []string {
	if len(p) > maxListedPaths {
		return p[:maxListedPaths]
	}
	return p
}
