package guards

import (
	"fmt"
	"slices"
	"strings"

	"github.com/exarchos/git-exarchos/workflow"
)

// ChangeFacts are the facts of what a branch changed. gitstore implements them with the git
// binary; a GitFacts without them makes the guards that need them fail closed.
type ChangeFacts interface {
	// MergeBase returns the best common ancestor of two commits; ok=false when there is none.
	MergeBase(a, b string) (sha string, ok bool, err error)
	// ChangedPaths lists every path that differs between two commits.
	ChangedPaths(from, to string) ([]string, error)
	// AddedOrModified lists the paths present at to that are new or changed since from.
	AddedOrModified(from, to string) ([]string, error)
	// WorktreeChanges lists what the worktree holding branch has uncommitted (untracked included).
	WorktreeChanges(branch string) ([]string, error)
}

// InstalledFiles are the files of a worktree that exarchos's own installers write: `hooks install
// --claude` (project and local scope), `mcp --install`, and `setup`'s verify workflow. Written by
// the installer, they are no change of the phase's: paths-allowed and the hook's effects check do
// not count one while it holds what the installer recorded writing (InstallFacts), and no fix
// they print stashes, reverts or removes one (that would uninstall it). Changed afterwards, one
// is counted like any other file.
var InstalledFiles = []string{".claude/settings.json", ".claude/settings.local.json", ".mcp.json", ".github/workflows/exarchos-verify.yml",
	".codex/hooks.json", ".gemini/settings.json", ".qwen/settings.json", ".opencode/plugins/exarchos.js"}

// InstallFixes is, for each of InstalledFiles, the command that writes it again.
var InstallFixes = map[string]string{
	".claude/settings.json":                 "git exarchos hooks install --claude",
	".claude/settings.local.json":           "git exarchos hooks install --claude --scope local",
	".mcp.json":                             "git exarchos mcp --install",
	".github/workflows/exarchos-verify.yml": "git exarchos setup",
	".codex/hooks.json":                     "git exarchos hooks install --codex",
	".gemini/settings.json":                 "git exarchos hooks install --gemini",
	".qwen/settings.json":                   "git exarchos hooks install --qwen",
	".opencode/plugins/exarchos.js":         "git exarchos hooks install --opencode",
}

// installedGuidance is the guidance `hooks install --codex|--qwen` writes into a worktree beside
// the hooks (package guidance): the files under a prefix, and the context files whose section
// between markers it writes (a file, not a prefix: no slash at the end and no "exarchos" in it).
var installedGuidance = []struct{ path, fix string }{
	{".agents/skills/exarchos-", InstallFixes[".codex/hooks.json"]},
	{"AGENTS.md", InstallFixes[".codex/hooks.json"]},
	{".qwen/skills/exarchos-", InstallFixes[".qwen/settings.json"]},
	{".qwen/commands/exarchos/", InstallFixes[".qwen/settings.json"]},
	{"QWEN.md", InstallFixes[".qwen/settings.json"]},
}

// guidanceFix is the install that writes path when path is guidance, else "".
func guidanceFix(path string) string {
	for _, g := range installedGuidance {
		if path == g.path || strings.Contains(g.path, "exarchos") && strings.HasPrefix(path, g.path) && !strings.Contains(path, "..") {
			return g.fix
		}
	}
	return ""
}

// IsInstalledFile reports whether path (relative to the worktree's top) is one of InstalledFiles
// or guidance an install writes.
func IsInstalledFile(path string) bool {
	path = strings.TrimPrefix(path, "./")
	return slices.Contains(InstalledFiles, path) || guidanceFix(path) != ""
}

// InstallFix is the command that writes an installed file (IsInstalledFile) again.
func InstallFix(path string) string {
	path = strings.TrimPrefix(path, "./")
	if c, ok := InstallFixes[path]; ok {
		return c
	}
	return guidanceFix(path)
}

// InstallFacts tell whether an installed file holds what its installer wrote: in the worktree
// that has branch checked out (commit ""), or at commit.
type InstallFacts interface {
	InstalledAsWritten(branch, path, commit string) (bool, error)
}

// EmptyTree is git's empty tree: the "since" of a branch that started with no commit at all.
const EmptyTree = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"

// since returns the commit the branch's own work starts after, and the branch tip:
//   - its merge-base with the base branch, when the branch has commits the base does not;
//   - else (its work is already in the base, or there is no base) the fork point recorded at init;
//   - a branch that was unborn at init started from the empty tree.
func since(guard string, in Input) (from, sha string, cf ChangeFacts, f *workflow.GuardFailure) {
	sha, f = tip(guard, in)
	if f != nil {
		return "", "", nil, f
	}
	cf, ok := in.Facts.(ChangeFacts)
	if !ok {
		return "", "", nil, fail(guard, "no facts about what the branch changed are available", "access to the repository", "git exarchos status "+in.State.Feature)
	}
	if in.Base != "" {
		mb, ok, err := cf.MergeBase(sha, in.Base)
		if err != nil {
			return "", "", nil, fail(guard, fmt.Sprintf("cannot compute the merge-base of %s with the base branch: %v", in.State.Branch, err), "a readable history", "git exarchos status "+in.State.Feature)
		}
		if ok && !sameCommit(mb, sha) {
			return mb, sha, cf, nil
		}
	}
	if fp := in.State.ForkPoint; fp != "" {
		return fp, sha, cf, nil
	}
	if in.Base == "" {
		return "", "", nil, fail(guard, "there is no base branch to tell what "+in.State.Branch+" changed", "the base branch (origin's default branch, or a local main)",
			"git fetch origin && git remote set-head origin --auto")
	}
	// The branch is contained in the base and no fork point was recorded: nothing of its own.
	return sha, sha, cf, nil
}

// pathsAllowed: the branch's commits since its merge-base, and its worktree, change only paths
// the phase allows (Phase.AllowedPaths).
func pathsAllowed(in Input) *workflow.GuardFailure {
	const id = workflow.GuardPathsAllowed
	s := in.State
	def := in.Def
	if def == nil {
		return fail(id, "unknown workflow type "+s.Type, "a known workflow type", "git exarchos describe "+s.Type)
	}
	allowed := def.AllowedPathsOf(s.Phase)
	if len(allowed) == 0 {
		return nil
	}
	from, sha, committed, dirty, f := branchChanges(id, in)
	if f != nil {
		return f
	}
	badCommitted, badDirty := outside(allowed, committed), outside(allowed, dirty)
	var changedInstalls []string
	badCommitted, changedInstalls = withoutInstalls(in, badCommitted, sha, changedInstalls)
	badDirty, changedInstalls = withoutInstalls(in, badDirty, "", changedInstalls)
	if len(badCommitted) == 0 && len(badDirty) == 0 && len(changedInstalls) == 0 {
		return nil
	}
	var reason, fix []string
	if len(changedInstalls) > 0 {
		// Never stash, revert or remove one: that would uninstall it. A human looks at what changed.
		var again []string
		for _, p := range changedInstalls {
			if c := InstallFix(p); !slices.Contains(again, c) {
				again = append(again, c)
			}
		}
		reason = append(reason, list(changedInstalls)+" changed since git exarchos installed it (ask the user to check the change and to write it again with "+strings.Join(again, ", ")+")")
		fix = append(fix, "ask the user to check "+strings.Join(changedInstalls, " ")+" and run "+strings.Join(again, " && "))
	}
	if len(badCommitted) > 0 {
		// Keep the work (on a branch of its own), and take it off this one.
		reason = append(reason, fmt.Sprintf("commits on %s since %s change %s (keep them on %s-wip and revert them here)", s.Branch, short(from), list(badCommitted), s.Feature))
		fix = append(fix, fmt.Sprintf("git branch %s-wip %s && git revert --no-edit %s..%s", s.Feature, short(sha), short(from), short(sha)))
	}
	if len(badDirty) > 0 {
		reason = append(reason, "the worktree has uncommitted changes to "+list(badDirty)+" (stash them)")
		fix = append(fix, "git stash push --include-untracked -- "+strings.Join(badDirty, " "))
	}
	fix = append(fix, fmt.Sprintf("git exarchos transition %s %s", s.Feature, in.Target))
	if len(changedInstalls) > 0 {
		fix = fix[:1] // the human's step comes first, alone: a command joined to it would run without them
	}
	return fail(id, strings.Join(reason, "; ")+fmt.Sprintf(": phase %s may only change %s", s.Phase, strings.Join(allowed, ", ")),
		"changes only to "+strings.Join(allowed, ", "), strings.Join(fix, " && "))
}

// withoutInstalls takes the installed files out of paths: those holding what the installer wrote
// (in the worktree when commit is "", else at commit) are not counted, the others are added to
// changed. Without InstallFacts every installed file counts as changed.
func withoutInstalls(in Input, paths []string, commit string, changed []string) ([]string, []string) {
	var out []string
	for _, p := range paths {
		if !IsInstalledFile(p) {
			out = append(out, p)
			continue
		}
		if f, ok := in.Facts.(InstallFacts); ok {
			if same, err := f.InstalledAsWritten(in.State.Branch, p, commit); err == nil && same {
				continue
			}
		}
		if !slices.Contains(changed, p) {
			changed = append(changed, p)
		}
	}
	return out, changed
}

// branchChanges reads what the branch changed: the paths its commits since the merge-base
// change (committed), and what its worktree holds uncommitted (dirty).
func branchChanges(id string, in Input) (from, sha string, committed, dirty []string, f *workflow.GuardFailure) {
	s := in.State
	from, sha, cf, f := since(id, in)
	if f != nil {
		return "", "", nil, nil, f
	}
	committed, err := cf.ChangedPaths(from, sha)
	if err != nil {
		return "", "", nil, nil, fail(id, err.Error(), "a readable history", "git exarchos status "+s.Feature)
	}
	dirty, err = cf.WorktreeChanges(s.Branch)
	if err != nil {
		return "", "", nil, nil, fail(id, err.Error(), "a readable worktree", "git exarchos status "+s.Feature)
	}
	return from, sha, committed, dirty, nil
}

func outside(allowed, paths []string) []string {
	var out []string
	for _, p := range paths {
		if !workflow.PathAllowed(allowed, p) {
			out = append(out, p)
		}
	}
	return out
}

func list(paths []string) string {
	if len(paths) > 8 {
		return strings.Join(paths[:8], ", ") + fmt.Sprintf(" and %d more", len(paths)-8)
	}
	return strings.Join(paths, ", ")
}

// workCommitted: the branch's commits since the current phase was entered (the tip recorded on
// the transition into it; the branch's own start for a workflow that did not record it) change a
// path outside the planning documents: tasks marked done must have left code behind.
func workCommitted(in Input) *workflow.GuardFailure {
	const id = workflow.GuardWorkCommitted
	s := in.State
	from, sha, cf, f := since(id, in)
	if f != nil {
		return f
	}
	if s.EnteredHead != "" {
		from = s.EnteredHead
	}
	changed, err := cf.ChangedPaths(from, sha)
	if err != nil {
		return fail(id, err.Error(), "a readable history", "git exarchos status "+s.Feature)
	}
	code := outside(workflow.PlanningPaths, changed)
	if fr, ok := cf.(workflow.FileReader); ok && len(code) > 0 {
		// Whitespace and comments are no work (issue 38 item 3).
		real, err := workflow.SubstantivePaths(fr, from, sha, code)
		if err != nil {
			return fail(id, err.Error(), "a readable history", "git exarchos status "+s.Feature)
		}
		if len(real) == 0 {
			return fail(id, fmt.Sprintf("the commits on %s since %s entered (%s) change only whitespace or comments (%s): that is no work", s.Branch, s.Phase, short(from), list(code)),
				"commits changing code since "+short(from),
				fmt.Sprintf("write the tasks' code, then: git add -A && git commit -m \"%s: the tasks' work\" && git exarchos transition %s %s", s.Feature, s.Feature, in.Target))
		}
	}
	if len(code) > 0 {
		return nil
	}
	return fail(id, fmt.Sprintf("no commit on %s since %s entered (%s) changes anything but planning documents: the tasks were marked done with no work", s.Branch, s.Phase, short(from)),
		"commits changing code since "+short(from),
		fmt.Sprintf("git add -A && git commit -m \"%s: the tasks' work\" && git exarchos transition %s %s", s.Feature, s.Feature, in.Target))
}

// docsChanged: the branch's commits since its merge-base change documentation (the planning
// paths: docs/**, *.md) other than the workflow's own artifacts — the fact the peer's
// polish-update-docs → completed reads. Uncommitted documentation does not count; the fix commits it.
func docsChanged(in Input) *workflow.GuardFailure {
	const id = "docs-changed"
	s := in.State
	from, _, committed, dirty, f := branchChanges(id, in)
	if f != nil {
		return f
	}
	docs := workflow.PlanningPaths
	// The workflow's own documents (its brief, its scope) are not the documentation it updates.
	own := map[string]bool{}
	for _, a := range s.Artifacts {
		if !a.Inline {
			own[a.Path] = true
		}
	}
	isDoc := func(p string) bool { return workflow.PathAllowed(docs, p) && !workflow.IsSourcePath(p) && !own[p] }
	for _, p := range committed {
		if isDoc(p) {
			return nil
		}
	}
	expected := "a commit on " + s.Branch + " changing " + strings.Join(docs, " or ")
	reason := fmt.Sprintf("no commit on %s since %s changes documentation (%s, the workflow's own artifacts aside)", s.Branch, short(from), strings.Join(docs, ", "))
	var pending []string
	for _, p := range dirty {
		if isDoc(p) {
			pending = append(pending, p)
		}
	}
	if len(pending) > 0 {
		return fail(id, reason+"; "+list(pending)+" changed but not committed", expected,
			fmt.Sprintf("git add -- %s && git commit -m \"%s: docs\" && git exarchos transition %s %s", strings.Join(pending, " "), s.Feature, s.Feature, in.Target))
	}
	return fail(id, reason+": update the documentation the refactor changed first", expected,
		fmt.Sprintf("git add -A -- docs '*.md' && git commit -m \"%s: docs\" && git exarchos transition %s %s", s.Feature, s.Feature, in.Target))
}
