//go:build unix

package hookrun

import (
	"os"
	"syscall"
)

// lockFile holds an exclusive advisory lock on f until it is closed; the kernel drops it when the
// process dies, so it never goes stale.
func lockFile(f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if err != syscall.EINTR {
			return err
		}
	}
}
