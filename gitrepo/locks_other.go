//go:build !unix

package gitrepo

// ProcessDead cannot tell elsewhere: leftovers are judged by age alone.
func ProcessDead(pid int) bool { return false }
