package project

import (
	"bytes"
	"os"
	"path/filepath"

	"github.com/exarchos/git-exarchos/internal/atomicfile"
	"github.com/exarchos/git-exarchos/workflow"
)

// RulesUnreadable is Rules.Err's unreadable part for the hook and status: a rule file at the base branch that
// exists but cannot be read, or does not parse, refuses every policed call (the hook fails
// closed) until it can be read. Reading the rules costs tree and blob reads and a YAML parse, so a
// base commit whose rules were read cleanly is kept (the rules at one commit do not change); one
// that failed is read again on every call, so the call that follows the repair is allowed.
// Legacy git config keys are the commands' to refuse: config changes without the base moving.
func (r *Repo) RulesUnreadable() error {
	base := r.Base().Commit
	if base == "" {
		return nil // no base branch: built-ins only, and the commands say why
	}
	kept := filepath.Join(r.CommonDir(), "exarchos-cache", "hooks", "rules-ok") // beside the hook's cache (hookrun)
	key := []byte(workflow.ProjectorVersion + " " + base + "\n")
	if b, err := os.ReadFile(kept); err == nil && bytes.Equal(b, key) {
		return nil
	}
	rl := r.Rules()
	if len(rl.Unreadable) > 0 {
		return &RulesUnreadableError{Base: rl.Base.Ref, Problems: rl.Unreadable}
	}
	_ = atomicfile.Write(kept, key, 0o644)
	return nil
}
