package hookrun

// StampsHold reports whether the controls' watch of the worktree at root would be taken as it is,
// reading no ref (the tests' view of what the writers keep).
func (r *Repo) StampsHold(root string) bool { return r.stampsHold(root) }
