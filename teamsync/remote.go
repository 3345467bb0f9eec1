package teamsync

import (
	"github.com/exarchos/git-exarchos/gitstore"
	"github.com/exarchos/git-exarchos/hookrun"
)

// RemoteSetupOptions are the inputs of `git exarchos remote setup`.
type RemoteSetupOptions struct{ Remote string }

// RemoteSetupResult is what `remote setup` prints.
type RemoteSetupResult struct {
	Remote  string `json:"remote"`
	Refspec string `json:"refspec"`
	// Added is false when the refspec was already configured.
	Added bool `json:"added"`
}

// RemoteSetup makes a plain `git fetch <remote>` bring workflows too, into
// refs/exarchos-remotes/<remote>/* (never refs/exarchos/*: pull merges them). Idempotent.
func RemoteSetup(r *Repo, o RemoteSetupOptions) (*RemoteSetupResult, error) {
	remote, err := r.Store.ResolveRemote(o.Remote)
	if err != nil {
		return nil, err
	}
	var added bool
	err = (&hookrun.Repo{Repo: r}).OwnControlWrites(func() error {
		added, err = r.Store.SetupRemote(remote)
		return err
	})
	if err != nil {
		return nil, err
	}
	return &RemoteSetupResult{Remote: remote, Refspec: gitstore.FetchRefspec(remote), Added: added}, nil
}
