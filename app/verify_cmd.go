package app

import (
	"github.com/exarchos/git-exarchos/project"
	"github.com/exarchos/git-exarchos/verify"
	"github.com/exarchos/git-exarchos/workflow"
)

// Verify is `git exarchos verify` (verify.Verify): the replay CI runs.
func Verify(r *Repo, o verify.Options) (*verify.Result, error) {
	if o.Branch != "" {
		// A --branch no workflow can be bound to would select nothing and pass: say so instead.
		if rej := workflow.CheckBranch("--branch", o.Branch); rej != nil {
			return nil, &project.UsageError{Msg: rej.Message}
		}
	}
	return verify.Verify(&verify.Repo{Repo: r.Repo}, o)
}
