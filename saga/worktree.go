package saga

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/exarchos/git-exarchos/gitrepo"
	"github.com/exarchos/git-exarchos/project"
	"github.com/exarchos/git-exarchos/workflow"
)

// WorktreeDir is where task worktrees go by default, under the main worktree's top. It is kept
// out of `git status` through the repository's info/exclude, never through .gitignore.
const WorktreeDir = ".worktrees"

// TaskStartOptions starts a task (`git exarchos task start`), optionally in its own worktree.
type TaskStartOptions struct {
	Feature  string
	Task     string
	Worktree bool
	Base     string // revision the task branch starts at; default: the workflow's branch
	Path     string // default: <main worktree>/.worktrees/<feature>/<task>
}

// TaskWorktree is the worktree a task works in.
type TaskWorktree struct {
	Path   string `json:"path"`
	Branch string `json:"branch"`
	Base   string `json:"base"`
	// Created is false when the worktree was already there (a rerun).
	Created bool `json:"created"`
	// Excluded is the info/exclude pattern that keeps it out of `git status`, if one was needed.
	Excluded string `json:"excluded,omitempty"`
}

// TaskStartResult is the command result plus the worktree, when one was asked for.
type TaskStartResult struct {
	*project.Result
	Worktree *TaskWorktree `json:"worktree,omitempty"`
}

// StartTask marks a task in progress; with Worktree it first creates the task's linked worktree
// on its own branch and records it (worktree.created), so a cancel can compensate it. Running it
// again finds the same worktree rather than making another.
func StartTask(r *Repo, o TaskStartOptions) (*TaskStartResult, error) {
	if err := checkPlace(o.Path, o.Base, ""); err != nil {
		return nil, err
	}
	feature, err := r.ResolveFeature(o.Feature)
	if err != nil {
		return nil, err
	}
	if !o.Worktree {
		if o.Base != "" || o.Path != "" {
			return nil, project.Usagef("--base and --path apply with --worktree")
		}
		res, err := r.Execute(feature, workflow.StartTask{ID: o.Task})
		return &TaskStartResult{Result: res}, err
	}
	st, _, err := r.State(feature)
	if err != nil {
		return nil, err
	}
	loc := r.Location()
	wt, err := planWorktree(loc, st, feature, o)
	if err != nil {
		return nil, err
	}
	// Ask the engine first (task exists, workflow not ended or cancelling), before touching git.
	probe := workflow.StartTaskWorktree{ID: o.Task, Worktree: workflow.WorktreeData{Path: wt.Path, Branch: wt.Branch, Base: gitrepo.ZeroSHA}}
	def, err := r.Definition(st.Type)
	if err != nil {
		return nil, err
	}
	if _, rej := workflow.Decide(def, st, probe, workflow.Env{}); rej != nil {
		return nil, rej
	}
	data, err := createWorktree(loc, wt, o.Base, st.Branch)
	if err != nil {
		return nil, err
	}
	if wt.Excluded, err = excludeWorktree(loc, wt.Path); err != nil {
		return nil, err
	}
	res, err := r.Execute(feature, workflow.StartTaskWorktree{ID: o.Task, Worktree: data})
	if err != nil && wt.Created {
		// Not recorded, so no cancel would ever find it: take back what this call made.
		if rb := rollbackWorktree(loc, data); rb != nil {
			err = fmt.Errorf("%w; undoing the new worktree also failed: %v", err, rb)
		}
	}
	if err != nil {
		return nil, err
	}
	wt.Base = data.Base
	return &TaskStartResult{Result: res, Worktree: wt}, nil
}

// planWorktree decides the path and branch of a task's worktree; a task that already has one
// keeps it.
func planWorktree(loc gitrepo.Location, st workflow.State, feature string, o TaskStartOptions) (*TaskWorktree, error) {
	if old, ok := st.TaskWorktree(o.Task); ok {
		if o.Path != "" && !gitrepo.SamePath(o.Path, old.Path) {
			return nil, project.Usagef("task %s already has a worktree at %s", o.Task, old.Path)
		}
		if _, err := os.Stat(old.Path); err != nil {
			return nil, fmt.Errorf("task %s's worktree %s is gone: the cancel saga cleans it up (git exarchos cancel %s), or restore it by hand with `git worktree add %s %s`", o.Task, old.Path, feature, old.Path, old.Branch)
		}
		return &TaskWorktree{Path: old.Path, Branch: old.Branch, Base: old.Base}, nil
	}
	branch := project.TaskBranch(st.Branch, o.Task)
	if !loc.ValidBranchName(branch) {
		return nil, project.Usagef("task branch %q is not a valid branch name: rename the task", branch)
	}
	path := o.Path
	if path == "" {
		top, err := loc.MainWorktree()
		if err != nil {
			return nil, err
		}
		path = filepath.Join(top, WorktreeDir, feature, o.Task)
	} else if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	return &TaskWorktree{Path: filepath.Clean(path), Branch: branch, Created: true}, nil
}

// createWorktree makes the worktree, or adopts the one a crashed earlier call made.
func createWorktree(loc gitrepo.Location, wt *TaskWorktree, baseRev, workflowBranch string) (workflow.WorktreeData, error) {
	data := workflow.WorktreeData{Path: wt.Path, Branch: wt.Branch, BaseRev: baseRev, BranchCreated: true}
	if w, ok, err := loc.FindWorktree(wt.Path); err != nil {
		return data, err
	} else if ok {
		if w.Branch != wt.Branch {
			return data, fmt.Errorf("%s is already a worktree, on %q rather than %s: remove it (git worktree remove %s) or pass --path", wt.Path, w.Branch, wt.Branch, wt.Path)
		}
		wt.Created = false
		data.Base = wt.Base
		if data.Base == "" {
			data.Base = w.Head
		}
		return data, nil
	}
	if _, err := os.Stat(wt.Path); err == nil {
		return data, fmt.Errorf("%s already exists and is not a worktree: move it away or pass --path", wt.Path)
	}
	tip, exists, err := loc.BranchTip(wt.Branch)
	if err != nil {
		return data, err
	}
	if exists {
		// The branch is the user's: work on it, but it is not ours to delete on cancel.
		if at, held, err := loc.CheckedOutAt(wt.Branch); err != nil {
			return data, err
		} else if held {
			return data, fmt.Errorf("branch %s is checked out in %s: switch that worktree away first", wt.Branch, at)
		}
		data.Base, data.BranchCreated = tip, false
		return data, loc.AddWorktree(wt.Path, wt.Branch, "", false)
	}
	rev := baseRev
	if rev == "" {
		rev = "refs/heads/" + workflowBranch
	}
	base, ok, err := loc.ResolveCommit(rev)
	if err != nil {
		return data, err
	}
	if !ok && baseRev == "" {
		return data, fmt.Errorf("the workflow's branch %s does not exist, so the task branch has nothing to start from: create it, or pass --base <rev>", workflowBranch)
	}
	if !ok {
		return data, project.Usagef("--base %s does not name a commit", baseRev)
	}
	data.Base = base
	if err := os.MkdirAll(filepath.Dir(wt.Path), 0o755); err != nil {
		return data, fmt.Errorf("create %s: %w", filepath.Dir(wt.Path), err)
	}
	return data, loc.AddWorktree(wt.Path, wt.Branch, base, true)
}

// excludeWorktree keeps a worktree inside the main worktree out of `git status`: the default
// folder as a whole, any other path as itself.
func excludeWorktree(loc gitrepo.Location, path string) (string, error) {
	top, err := loc.MainWorktree()
	if err != nil {
		return "", nil // bare: nothing to hide from
	}
	rel, err := filepath.Rel(canonicalDir(top), canonicalDir(path))
	if err != nil || rel == "." || strings.HasPrefix(rel, "..") {
		return "", nil
	}
	rel = filepath.ToSlash(rel)
	pattern := "/" + rel + "/"
	if first, _, _ := strings.Cut(rel, "/"); first == WorktreeDir {
		pattern = "/" + WorktreeDir + "/"
	}
	if _, err := loc.EnsureExcluded(pattern); err != nil {
		return "", err
	}
	return pattern, nil
}

func canonicalDir(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return p
}

func rollbackWorktree(loc gitrepo.Location, d workflow.WorktreeData) error {
	var errs []error
	if err := loc.RemoveWorktree(d.Path, false); err != nil {
		errs = append(errs, err)
	} else if d.BranchCreated {
		errs = append(errs, loc.DeleteBranch(d.Branch, d.Base))
	}
	return errors.Join(errs...)
}

// BindTask gives a task's completion its head: the tip of its task branch (a task with a
// worktree) or of the workflow's branch. The workflow refuses it when that tip is where the task
// started; here a tip that does not descend from the start is refused too: the task's work is
// commits on top of it.
func (r *Repo) BindTask(feature string, c workflow.CompleteTask) (workflow.CompleteTask, error) {
	st, _, err := r.State(feature)
	if err != nil {
		return c, err
	}
	branch, since := st.Branch, ""
	if w, ok := st.TaskWorktree(c.ID); ok {
		branch, since = w.Branch, w.Base
	}
	head, exists, err := r.Location().BranchTip(branch)
	if err != nil {
		return c, err
	}
	if !exists {
		return c, fmt.Errorf("task %s's branch %s does not exist any more: recreate it at the task's work (git branch %s <commit>)", c.ID, branch, branch)
	}
	if since == "" {
		if t, ok := st.Task(c.ID); ok {
			since = t.Start
		}
	}
	if since != "" && since != head {
		if ok, err := r.Facts().IsAncestor(since, head); err == nil && !ok {
			return c, &workflow.Rejection{Code: workflow.CodeNoWork, Message: fmt.Sprintf("task %s: %s (the tip of %s) does not descend from %s, where the task started: its work must be commits on top of it", c.ID, project.Short(head), branch, project.Short(since))}
		}
	}
	if from := cmp.Or(since, st.ForkPoint); from != "" && from != head {
		if err := r.substantive(feature, c.ID, branch, from, head); err != nil {
			return c, err
		}
	}
	c.HeadSHA, c.Since = head, since
	return c, nil
}

// substantive refuses a task's work that is no work: commits that change nothing (git commit
// --allow-empty) or only whitespace and comments (workflow.SubstantivePaths; issue 38 item 3).
func (r *Repo) substantive(feature, task, branch, since, head string) error {
	what, err := workflow.NoWork(r.Facts(), since, head)
	if err != nil {
		return fmt.Errorf("task %s: what its commits changed: %w", task, err)
	}
	if what == "" {
		return nil
	}
	return &workflow.Rejection{Code: workflow.CodeNoWork, Message: fmt.Sprintf("task %s: the commits on %s since %s, where the task started, %s: that is no work. Write the task's code and commit it (git add … && git commit), then run git exarchos task done %s %s again (or, if it needs no work: git exarchos task fail %s %s --reason \"…\")",
		task, branch, project.Short(since), what, feature, task, feature, task)}
}
