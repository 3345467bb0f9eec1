//go:build unix

package app

import "syscall"

// execProcess replaces this process with path; it returns only if that fails.
func execProcess(path string, env []string) error {
	return syscall.Exec(path, []string{path}, env)
}
