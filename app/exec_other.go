//go:build !unix

package app

import (
	"errors"
	"os"
	"os/exec"
)

// execProcess runs path with this process's standard streams and exits with its exit code (there
// is no exec(2) here).
func execProcess(path string, env []string) error {
	cmd := exec.Command(path)
	cmd.Env, cmd.Stdin, cmd.Stdout, cmd.Stderr = env, os.Stdin, os.Stdout, os.Stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		os.Exit(exit.ExitCode())
	}
	if err != nil {
		return err
	}
	os.Exit(0)
	return nil
}
