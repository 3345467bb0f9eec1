package saga

import (
	"strings"

	"github.com/exarchos/git-exarchos/project"
	"github.com/exarchos/git-exarchos/workflow"
)

// checkPlace refuses, before anything is created, a worktree path or a base revision that git
// would read as an option (a directory called --x, a base --orphan), and a branch git would not
// accept. Empty values are the defaults and pass.
func checkPlace(path, base, branch string) error {
	if strings.HasPrefix(path, "-") {
		return project.Usagef("--path %q starts with \"-\", which git would read as an option: give it as ./%s, or another directory", workflow.Clip(path), workflow.Clip(path))
	}
	if strings.HasPrefix(base, "-") {
		return project.Usagef("--base %q starts with \"-\", which git would read as an option: give a branch, tag or commit, e.g. --base main", workflow.Clip(base))
	}
	if branch != "" {
		if rej := workflow.CheckBranch("--branch", branch); rej != nil {
			return &project.UsageError{Msg: rej.Message}
		}
	}
	return nil
}
