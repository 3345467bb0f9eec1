package app

import (
	"github.com/exarchos/git-exarchos/views"
)

// The diagnostics' commands (package views) over this Repo.

// ShowAudit is `git exarchos audit` (views.ShowAudit).
func ShowAudit(r *Repo, o views.AuditOptions) (*views.Audit, error) {
	return views.ShowAudit(r.hookRuntime(), o)
}

// Fsck is `git exarchos fsck` (views.Fsck).
func Fsck(r *Repo, o views.FsckOptions) (*views.FsckResult, error) {
	return views.Fsck(r.hookRuntime(), o)
}

// Log is `git exarchos log` (views.Log).
func Log(r *Repo, o views.LogOptions) (*views.LogResult, error) { return views.Log(r.hookRuntime(), o) }

// Rehydrate is `git exarchos rehydrate` (views.Rehydrate).
func Rehydrate(r *Repo, o views.RehydrateOptions) (*views.RehydrateResult, error) {
	return views.Rehydrate(r.hookRuntime(), o)
}
