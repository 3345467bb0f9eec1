//go:build unix

package project

import (
	"os/exec"
	"syscall"
)

// killGroupOnCancel starts cmd in a process group of its own and kills the whole group when its
// context ends: what the shell started goes with it.
func killGroupOnCancel(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return killGroup(cmd) }
}

// killGroup kills cmd's process group: what it left running (a process still holding its output
// open after it exited).
func killGroup(cmd *exec.Cmd) error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
