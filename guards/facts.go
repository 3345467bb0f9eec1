// Package guards holds the guard functions named in workflow definitions. A guard is a pure
// function of the workflow state and facts read through small interfaces; it returns nil when it
// passes, or a structured failure with a runnable fix.
//
// It may import workflow and internal/jsonstr; like workflow it does no I/O and reads no clock.
package guards

// GitFacts are the repository facts guards read. gitstore implements them against a real
// repository; tests use a fake.
type GitFacts interface {
	// BranchTip returns the commit at the tip of a local branch.
	BranchTip(branch string) (sha string, err error)
	// FileExists reports whether path is a file (blob) in the tree of commit.
	FileExists(commit, path string) (bool, error)
	// IsAncestor reports whether ancestor is reachable from descendant (a commit is its own ancestor).
	IsAncestor(ancestor, descendant string) (bool, error)
}
