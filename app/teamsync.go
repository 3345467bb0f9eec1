package app

import "github.com/exarchos/git-exarchos/teamsync"

// The team sync commands (package teamsync) over this Repo.

// Pull is `git exarchos pull` (teamsync.Pull).
func Pull(r *Repo, o teamsync.PullOptions) (*teamsync.PullResult, error) {
	return teamsync.Pull(r.Repo, o)
}

// Push is `git exarchos push` (teamsync.Push).
func Push(r *Repo, o teamsync.PushOptions) (*teamsync.PushResult, error) {
	return teamsync.Push(r.Repo, o)
}

// Sync is `git exarchos sync` (teamsync.Sync).
func Sync(r *Repo, o teamsync.SyncOptions) (*teamsync.SyncResult, error) {
	return teamsync.Sync(r.Repo, o)
}

// RemoteSetup is `git exarchos remote setup` (teamsync.RemoteSetup).
func RemoteSetup(r *Repo, o teamsync.RemoteSetupOptions) (*teamsync.RemoteSetupResult, error) {
	return teamsync.RemoteSetup(r.Repo, o)
}
