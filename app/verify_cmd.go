package app

import "github.com/exarchos/git-exarchos/verify"

// Verify is `git exarchos verify` (verify.Verify): the replay CI runs.
func Verify(r *Repo, o verify.VerifyOptions) (*verify.VerifyResult, error) {
	return verify.Verify(&verify.Repo{Repo: r.Repo}, o)
}
