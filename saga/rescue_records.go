package saga

import (
	"fmt"
	"os"
	"strings"

	"github.com/exarchos/git-exarchos/gitrepo"
)

// records reads and writes rescue records in one repository, through gitrepo's git operations;
// their format (the kinds, the Exarchos-* trailers, the parents' meaning) lives here alone.
type records struct{ loc rescueGit }

// PreserveWorktree keeps the worktree at sp.Path under the task's rescue ref (preserveWorktree
// says how); the note says what could not be kept separately.
func PreserveWorktree(loc gitrepo.Location, sp RescueSpec) (*Preserved, string, error) {
	return records{rescueGit{loc}}.preserveWorktree(sp)
}

// PreserveCommit keeps commit reachable from the task's rescue ref.
func PreserveCommit(loc gitrepo.Location, sp RescueSpec, commit string) (*Preserved, error) {
	return records{rescueGit{loc}}.preserveCommit(sp, commit)
}

// RescueContains reports whether commit is reachable from the task's rescue ref.
func RescueContains(loc gitrepo.Location, feature, task, commit string) (bool, error) {
	return records{rescueGit{loc}}.rescueContains(feature, task, commit)
}

// ListRescues lists rescue refs, of one feature or all.
func ListRescues(loc gitrepo.Location, feature string) ([]Rescue, error) {
	return records{rescueGit{loc}}.listRescues(feature)
}

// RestoreRescue checks rescued work out into a new linked worktree at path.
func RestoreRescue(loc gitrepo.Location, feature, task, path, branch string, version int) (*RescueRestoreResult, error) {
	return records{rescueGit{loc}}.restoreRescue(feature, task, path, branch, version)
}

// Rescue refs keep work a cancel would otherwise destroy: refs/exarchos-rescue/<feature>/<task>.
//
// The ref points at one of three kinds of commit:
//   - a worktree snapshot (trailer Exarchos-Kind: worktree): its tree is the working tree as it
//     was (modified and untracked files included, ignored ones not, deletions applied), its first
//     parent the worktree's HEAD, its second a commit whose tree is the index (staged changes);
//     a third parent, if any, is the rescue commit it superseded;
//   - a plain commit: a branch tip kept reachable (the branch was deleted);
//   - a keep commit (Exarchos-Kind: keep): the previous rescue commit as first parent and another
//     commit kept reachable as second, with the first parent's tree.
// Nothing here touches the user's index or working files: snapshots are built in a temporary
// index file.

// RescuePrefix is where rescued work lives.
const RescuePrefix = "refs/exarchos-rescue/"

// Rescue commit kinds.
const (
	RescueWorktree = "worktree"
	RescueCommit   = "commit"
	RescueKeep     = "keep"
)

// RescueRef is the ref that keeps a task's work.
func RescueRef(feature, task string) string { return RescuePrefix + feature + "/" + task }

// commitObject is a parsed commit.
type commitObject struct {
	Tree     string
	Parents  []string
	Message  string
	Trailers map[string]string
}

// readCommit reads a rescue commit through git, with its Exarchos-* trailers.
func (l records) readCommit(sha string) (commitObject, error) {
	dc, err := l.loc.ReadCommitGit(sha)
	if err != nil {
		return commitObject{}, err
	}
	c := commitObject{Tree: dc.Tree.String(), Message: dc.Message, Trailers: map[string]string{}}
	for _, p := range dc.Parents {
		c.Parents = append(c.Parents, p.String())
	}
	for _, line := range strings.Split(c.Message, "\n") {
		if k, v, ok := strings.Cut(line, ": "); ok && strings.HasPrefix(k, "Exarchos-") {
			c.Trailers[k] = strings.TrimSpace(v)
		}
	}
	return c, nil
}

func (c commitObject) kind() string {
	switch c.Trailers["Exarchos-Kind"] {
	case RescueWorktree:
		if len(c.Parents) >= 2 {
			return RescueWorktree
		}
	case RescueKeep:
		if len(c.Parents) >= 2 {
			return RescueKeep
		}
	}
	return RescueCommit
}

// Preserved says what a preservation did.
type Preserved struct {
	Ref    string `json:"ref"`
	Commit string `json:"commit"`
	// Written is false when the ref already held exactly this work (a rerun after a crash).
	Written bool `json:"written"`
	// Beside is true when the work was kept next to an earlier rescue that held more, which
	// stays what a restore brings back first.
	Beside bool `json:"beside,omitempty"`
}

// RescueSpec names the work being preserved, for the commit message trailers.
type RescueSpec struct {
	Feature, Task, Branch, Path string
}

func (sp RescueSpec) trailers(kind string) string {
	t := fmt.Sprintf("Exarchos-Feature: %s\nExarchos-Task: %s\nExarchos-Kind: %s\n", sp.Feature, sp.Task, kind)
	if sp.Branch != "" {
		t += "Exarchos-Branch: " + sp.Branch + "\n"
	}
	if sp.Path != "" {
		t += "Exarchos-Path: " + sp.Path + "\n"
	}
	return t
}

// rescueTip reads the rescue ref; "" when it does not exist.
func (l records) rescueTip(ref string) (string, error) {
	h, ok, err := gitrepo.ReadRef(l.loc.CommonDir, ref)
	if err != nil || !ok {
		return "", err
	}
	return h.String(), nil
}

// preserveWorktree commits everything in the worktree at path (staged, modified, deleted and
// untracked files) under the task's rescue ref. Nothing is written when the ref already keeps
// exactly this snapshot (a rerun after a crash). A later snapshot never replaces an earlier one
// with less: it goes on top (keeping the earlier one as its third parent) only when it holds
// every file and commit the earlier one did; otherwise it is kept beside it (a keep commit) and
// the earlier one stays what `rescue restore` brings back. Every version stays listed and
// restorable (`rescue list`, `rescue restore --version`).
func (l records) preserveWorktree(sp RescueSpec) (*Preserved, string, error) {
	ref := RescueRef(sp.Feature, sp.Task)
	head, indexTree, workTree, note, err := l.loc.SnapshotTrees(sp.Path)
	if err != nil {
		return nil, "", fmt.Errorf("snapshot %s: %w", sp.Path, err)
	}
	prev, err := l.rescueTip(ref)
	if err != nil {
		return nil, "", err
	}
	less := false
	if prev != "" {
		versions, err := l.rescueVersions(prev)
		if err != nil {
			return nil, "", err
		}
		for _, v := range versions {
			if same, err := l.holdsSnapshot(v, head, indexTree, workTree); err != nil || same {
				return &Preserved{Ref: ref, Commit: prev}, note, err
			}
		}
		if less, err = l.lacks(prev, head, indexTree, workTree); err != nil {
			return nil, "", err
		}
	}
	indexCommit, err := l.loc.CommitTree(indexTree, fmt.Sprintf("exarchos rescue: index of %s/%s\n", sp.Feature, sp.Task), head)
	if err != nil {
		return nil, "", err
	}
	parents := []string{head, indexCommit}
	if prev != "" && !less {
		parents = append(parents, prev)
	}
	msg := fmt.Sprintf("exarchos rescue: %s/%s (worktree)\n\nThe working tree of %s when %s was cancelled: the tree holds the working files\n(untracked included, ignored not), the first parent is HEAD, the second the index.\nRestore with: git exarchos rescue restore %s %s\n\n%s",
		sp.Feature, sp.Task, sp.Path, sp.Feature, sp.Feature, sp.Task, sp.trailers(RescueWorktree))
	commit, err := l.loc.CommitTree(workTree, msg, parents...)
	if err != nil {
		return nil, "", err
	}
	if less {
		p, err := l.keepBeside(sp, ref, prev, commit, "snapshot of "+sp.Path)
		if p != nil {
			p.Beside = true
		}
		return p, note, err
	}
	if err := l.loc.UpdateRef(ref, commit, prev, "git exarchos cancel: preserve worktree"); err != nil {
		// The ref moved between the read and the write: a killed cancel's git update-ref finishing
		// after its parent died. If what it wrote holds this snapshot, the work is preserved.
		if now, _ := l.rescueTip(ref); now != "" && now != prev {
			if versions, verr := l.rescueVersions(now); verr == nil {
				for _, v := range versions {
					if same, _ := l.holdsSnapshot(v, head, indexTree, workTree); same {
						return &Preserved{Ref: ref, Commit: now}, note, nil
					}
				}
			}
		}
		return nil, "", fmt.Errorf("write %s: %w", ref, err)
	}
	return &Preserved{Ref: ref, Commit: commit, Written: true}, note, nil
}

// lacks reports whether a snapshot (head, index tree, work tree) would lose something the rescue
// commit prev brings back: prev's HEAD is not in its history, or a file prev had is missing.
func (l records) lacks(prev, head, indexTree, workTree string) (bool, error) {
	rv, err := l.resolveRescue(prev)
	if err != nil {
		return false, err
	}
	if ok, err := l.loc.IsAncestor(rv.head, head); err != nil || !ok {
		return !ok, err
	}
	for _, pair := range [][2]string{{rv.workTree, workTree}, {rv.indexTree, indexTree}} {
		changed, err := l.loc.DiffTrees(pair[0], pair[1])
		if err != nil {
			return false, err
		}
		for _, c := range changed {
			if strings.HasPrefix(c, "D ") {
				return true, nil
			}
		}
	}
	return false, nil
}

// holdsSnapshot reports whether the rescue commit is a worktree snapshot of exactly these trees.
func (l records) holdsSnapshot(rescue, head, indexTree, workTree string) (bool, error) {
	c, err := l.readCommit(rescue)
	if err != nil {
		return false, err
	}
	if c.kind() != RescueWorktree || c.Tree != workTree || c.Parents[0] != head {
		return false, nil
	}
	ic, err := l.readCommit(c.Parents[1])
	if err != nil {
		return false, err
	}
	return ic.Tree == indexTree, nil
}

// rescueContains reports whether commit is reachable from the task's rescue ref.
func (l records) rescueContains(feature, task, commit string) (bool, error) {
	prev, err := l.rescueTip(RescueRef(feature, task))
	if err != nil || prev == "" {
		return false, err
	}
	return l.loc.IsAncestor(commit, prev)
}

// preserveCommit keeps commit reachable from the task's rescue ref: the ref is created at it, or,
// if the ref holds other work, a keep commit joins both. Nothing is written when the ref already
// reaches it.
func (l records) preserveCommit(sp RescueSpec, commit string) (*Preserved, error) {
	ref := RescueRef(sp.Feature, sp.Task)
	prev, err := l.rescueTip(ref)
	if err != nil {
		return nil, err
	}
	if prev == "" {
		err := l.loc.UpdateRef(ref, commit, "", "git exarchos cancel: preserve "+sp.Branch)
		if err == nil {
			return &Preserved{Ref: ref, Commit: commit, Written: true}, nil
		}
		// The ref appeared between the read and the write: a killed cancel's git update-ref
		// finishing after its parent died (a rerun resumes at once). Read it again and go on.
		if prev, _ = l.rescueTip(ref); prev == "" {
			return nil, fmt.Errorf("write %s: %w", ref, err)
		}
	}
	if ok, err := l.loc.IsAncestor(commit, prev); err != nil || ok {
		return &Preserved{Ref: ref, Commit: prev}, err
	}
	return l.keepBeside(sp, ref, prev, commit, sp.Branch)
}

// keepBeside moves ref from prev to a keep commit that has prev as first parent (what a restore
// brings back) and commit as second (kept reachable and listed).
func (l records) keepBeside(sp RescueSpec, ref, prev, commit, what string) (*Preserved, error) {
	pc, err := l.readCommit(prev)
	if err != nil {
		return nil, err
	}
	msg := fmt.Sprintf("exarchos rescue: %s/%s (keep %s)\n\nKeeps %s reachable next to the work already rescued (first parent).\n\n%s",
		sp.Feature, sp.Task, what, commit, sp.trailers(RescueKeep))
	keep, err := l.loc.CommitTree(pc.Tree, msg, prev, commit)
	if err != nil {
		return nil, err
	}
	if err := l.loc.UpdateRef(ref, keep, prev, "git exarchos cancel: keep "+what); err != nil {
		return nil, fmt.Errorf("write %s: %w", ref, err)
	}
	return &Preserved{Ref: ref, Commit: keep, Written: true}, nil
}

// maxRescueVersions bounds the walk of one rescue ref's structure.
const maxRescueVersions = 256

// rescueVersions lists every piece of work a rescue ref keeps, what a restore brings back first:
// snapshots and commits, through keep commits (both parents) and superseded snapshots (a
// snapshot's third parent).
func (l records) rescueVersions(top string) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	var walk func(c string) error
	walk = func(c string) error {
		if seen[c] || len(seen) >= maxRescueVersions {
			return nil
		}
		seen[c] = true
		rc, err := l.readCommit(c)
		if err != nil {
			return err
		}
		switch rc.kind() {
		case RescueKeep:
			if err := walk(rc.Parents[0]); err != nil {
				return err
			}
			return walk(rc.Parents[1])
		case RescueWorktree:
			out = append(out, c)
			if len(rc.Parents) >= 3 {
				return walk(rc.Parents[2])
			}
		default:
			out = append(out, c)
		}
		return nil
	}
	return out, walk(top)
}

// Rescue is one rescued piece of work, as `rescue list` shows it.
type Rescue struct {
	Feature string `json:"feature"`
	Task    string `json:"task"`
	Ref     string `json:"ref"`
	Commit  string `json:"commit"`
	Kind    string `json:"kind"` // worktree | commit | keep
	Head    string `json:"head"` // the commit the work sits on
	Branch  string `json:"branch,omitempty"`
	Path    string `json:"path,omitempty"` // where the worktree was
	Date    string `json:"date"`
	// Changed lists the files that differ from Head, with git's status letters (A, M, D, …).
	Changed []string `json:"changed"`
	// Kept are further commits kept reachable (branch tips that were not in the snapshot).
	Kept []string `json:"kept,omitempty"`
	// Earlier are the other pieces of work the ref keeps (earlier snapshots, kept branch tips),
	// each restorable with `rescue restore --version N`; this one is version 0.
	Earlier []RescueVersion `json:"earlier,omitempty"`
}

// RescueVersion is one more piece of work a rescue ref keeps.
type RescueVersion struct {
	Version int      `json:"version"`
	Commit  string   `json:"commit"`
	Kind    string   `json:"kind"` // worktree | commit
	Head    string   `json:"head"`
	Date    string   `json:"date"`
	Changed []string `json:"changed"`
}

// listRescues lists rescue refs, of one feature or all.
func (l records) listRescues(feature string) ([]Rescue, error) {
	prefix := RescuePrefix
	if feature != "" {
		prefix += feature + "/"
	}
	refs, err := gitrepo.ListRefs(l.loc.CommonDir, prefix)
	if err != nil {
		return nil, err
	}
	out := []Rescue{}
	for _, name := range gitrepo.SortedNames(refs) {
		rest := strings.TrimPrefix(name, RescuePrefix)
		f, task, ok := strings.Cut(rest, "/")
		if !ok {
			continue
		}
		r, err := l.describeRescue(f, task, name, refs[name].String())
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// resolved is a rescue commit reduced to what a restore needs.
type resolved struct {
	kind      string
	head      string // commit to check out
	indexTree string
	workTree  string
	kept      []string
	trailers  map[string]string
}

// resolveRescue follows keep commits down to the snapshot or plain commit they preserve.
func (l records) resolveRescue(commit string) (resolved, error) {
	var kept []string
	for range 64 {
		c, err := l.readCommit(commit)
		if err != nil {
			return resolved{}, err
		}
		switch c.kind() {
		case RescueKeep:
			kept = append(kept, c.Parents[1])
			commit = c.Parents[0]
			continue
		case RescueWorktree:
			ic, err := l.readCommit(c.Parents[1])
			if err != nil {
				return resolved{}, err
			}
			return resolved{kind: RescueWorktree, head: c.Parents[0], indexTree: ic.Tree, workTree: c.Tree, kept: kept, trailers: c.Trailers}, nil
		default:
			return resolved{kind: RescueCommit, head: commit, indexTree: c.Tree, workTree: c.Tree, kept: kept, trailers: c.Trailers}, nil
		}
	}
	return resolved{}, fmt.Errorf("rescue commit %s: too many keep commits", commit)
}

func (l records) describeRescue(feature, task, ref, commit string) (Rescue, error) {
	rv, err := l.resolveRescue(commit)
	if err != nil {
		return Rescue{}, fmt.Errorf("%s: %w", ref, err)
	}
	top, err := l.readCommit(commit)
	if err != nil {
		return Rescue{}, err
	}
	r := Rescue{Feature: feature, Task: task, Ref: ref, Commit: commit, Kind: rv.kind, Head: rv.head, Kept: rv.kept,
		Branch: rv.trailers["Exarchos-Branch"], Path: rv.trailers["Exarchos-Path"]}
	if b, ok := top.Trailers["Exarchos-Branch"]; ok && r.Branch == "" {
		r.Branch = b
	}
	if r.Date, r.Changed, err = l.describeWork(commit, rv); err != nil {
		return Rescue{}, err
	}
	versions, err := l.rescueVersions(commit)
	if err != nil {
		return Rescue{}, fmt.Errorf("%s: %w", ref, err)
	}
	for i, v := range versions[min(1, len(versions)):] {
		vr, err := l.resolveRescue(v)
		if err != nil {
			return Rescue{}, fmt.Errorf("%s: %w", ref, err)
		}
		e := RescueVersion{Version: i + 1, Commit: v, Kind: vr.kind, Head: vr.head}
		if e.Date, e.Changed, err = l.describeWork(v, vr); err != nil {
			return Rescue{}, err
		}
		r.Earlier = append(r.Earlier, e)
	}
	return r, nil
}

// describeWork returns when a rescue commit was made and, for a snapshot, the files that differ
// from its HEAD with git's status letters.
func (l records) describeWork(commit string, rv resolved) (string, []string, error) {
	date, err := l.loc.CommitDate(commit)
	if err != nil {
		return "", nil, err
	}
	changed := []string{}
	if rv.kind == RescueWorktree {
		if changed, err = l.loc.DiffTrees(rv.head, rv.workTree); err != nil {
			return "", nil, err
		}
	}
	return date, changed, nil
}

// RescueRestoreResult is what `rescue restore` prints: where rescued work was put back.
type RescueRestoreResult struct {
	Path     string   `json:"path"`
	Branch   string   `json:"branch,omitempty"` // empty when the worktree is detached
	Head     string   `json:"head"`
	Kind     string   `json:"kind"`
	Kept     []string `json:"kept,omitempty"`
	Detached bool     `json:"detached"`
}

// restoreRescue checks the rescued work out into a new linked worktree at path: HEAD at the
// commit the work sat on (on branch when that name is free, else detached), the working files
// and the index exactly as they were preserved, untracked files included.
// version 0 is what the ref brings back first; N > 0 is the N-th of Rescue.Earlier.
func (l records) restoreRescue(feature, task, path, branch string, version int) (*RescueRestoreResult, error) {
	ref := RescueRef(feature, task)
	commit, err := l.rescueTip(ref)
	if err != nil {
		return nil, err
	}
	if commit == "" {
		return nil, fmt.Errorf("%w: no rescued work for %s/%s (see `git exarchos rescue list %s`)", gitrepo.ErrNotFound, feature, task, feature)
	}
	if version > 0 {
		versions, err := l.rescueVersions(commit)
		if err != nil {
			return nil, err
		}
		if version >= len(versions) {
			return nil, fmt.Errorf("%w: %s/%s keeps %d version(s), 0 to %d (see `git exarchos rescue list %s`)", gitrepo.ErrNotFound, feature, task, len(versions), len(versions)-1, feature)
		}
		commit = versions[version]
	}
	rv, err := l.resolveRescue(commit)
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(path); err == nil {
		return nil, fmt.Errorf("%s already exists: choose another place with --path", path)
	}
	res := &RescueRestoreResult{Path: path, Head: rv.head, Kind: rv.kind, Kept: rv.kept}
	_, taken, err := l.loc.BranchTip(branch)
	if err != nil {
		return nil, err
	}
	if branch != "" && !taken && l.loc.ValidBranchName(branch) {
		err, res.Branch = l.loc.AddWorktree(path, branch, rv.head, true), branch
	} else {
		err, res.Detached = l.loc.AddDetachedWorktree(path, rv.head), true
	}
	if err != nil {
		return nil, err
	}
	if rv.kind == RescueWorktree {
		// Working files first (deletions applied, untracked files written), then the index
		// alone, so staged and unstaged changes come back as they were.
		if err := l.loc.ReadTree(path, rv.workTree, true); err != nil {
			return nil, fmt.Errorf("restore the working files into %s: %w", path, err)
		}
		if err := l.loc.ReadTree(path, rv.indexTree, false); err != nil {
			return nil, fmt.Errorf("restore the index of %s: %w", path, err)
		}
	}
	return res, nil
}
