package app

import "github.com/exarchos/git-exarchos/trust"

// The trust commands (package trust) over this Repo.

// SignersAdd is `git exarchos signers add` (trust.SignersAdd).
func SignersAdd(r *Repo, o trust.SignersAddOptions) (*trust.SignersAddResult, error) {
	return trust.SignersAdd(r.Repo, o)
}
