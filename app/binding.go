package app

import (
	"strings"

	"github.com/exarchos/git-exarchos/workflow"
)

// A workflow is bound to its own branch and to the branches of its task worktrees, so that hooks
// and an omitted feature find it from inside `.worktrees/<feature>/<task>` too. Task branches are
// named TaskBranch(workflow branch, task): the name picks the candidates from what is already at
// hand (the list's trailers, the hook cache's index), and only a candidate's state is read to
// confirm that it recorded that worktree.

// taskBranchCandidate reports whether branch is named like a task branch of a workflow on wfBranch.
func taskBranchCandidate(branch, wfBranch string) bool {
	task, ok := strings.CutPrefix(branch, TaskBranch(wfBranch, ""))
	return wfBranch != "" && ok && task != ""
}

// hasTaskWorktree reports whether st recorded a task worktree on branch that is not removed yet.
func hasTaskWorktree(st workflow.State, branch string) bool {
	for _, r := range st.Resources {
		if r.Kind == workflow.ResourceWorktree && r.Branch == branch && !r.Compensated() {
			return true
		}
	}
	return false
}
