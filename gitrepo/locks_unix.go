//go:build unix

package gitrepo

import (
	"errors"
	"syscall"
)

// ProcessDead reports whether pid is provably not running on this machine: signal 0 reaches any
// live process (EPERM: it exists, owned by someone else).
func ProcessDead(pid int) bool {
	if pid <= 0 {
		return false
	}
	return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}
