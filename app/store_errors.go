package app

import (
	"github.com/exarchos/git-exarchos/gitstore"
	"github.com/exarchos/git-exarchos/hooks"
)

// What the CLI names of the packages below app — the store's errors and format, the hook
// settings' scopes and events — re-exported here so cmd/git-exarchos wires app only. The values
// are the same (errors.Is and errors.As match either name).

// StoreFormatVersion is the event store's format, which `version` reports.
const StoreFormatVersion = gitstore.FormatVersion

// The store's and the repository's errors (cmd/git-exarchos/errors.go maps each to its code).
var (
	ErrBadFeature      = gitstore.ErrBadFeature
	ErrBadPayload      = gitstore.ErrBadPayload
	ErrNoRemote        = gitstore.ErrNoRemote
	ErrConcurrent      = gitstore.ErrConcurrent
	ErrLocked          = gitstore.ErrLocked
	ErrNotFound        = gitstore.ErrNotFound
	ErrExists          = gitstore.ErrExists
	ErrNotRepository   = gitstore.ErrNotRepository
	ErrUnsupportedRepo = gitstore.ErrUnsupportedRepo
	ErrNoIdentity      = gitstore.ErrNoIdentity
)

// CorruptError reports stored data that does not parse or does not add up (gitstore's).
type CorruptError = gitstore.CorruptError

// ScopeProject is the default Claude Code settings scope of hooks install --claude.
const ScopeProject = hooks.ScopeProject

// ClaudeHookEvents are the Claude Code events hooks install --claude writes, in order.
func ClaudeHookEvents() []string {
	names := make([]string, len(hooks.ClaudeEntries))
	for i, e := range hooks.ClaudeEntries {
		names[i] = string(e.Event)
	}
	return names
}
