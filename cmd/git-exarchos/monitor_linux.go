package main

import (
	"os"
	"os/exec"
	"syscall"
)

// On Linux the hook keeps `git status` answers under an inotify monitor's token (package
// fsmonitor); the monitor is this binary's `hook monitor`, started in its own session so that
// Claude Code's hook, which waits for its process and pipes, never waits for it.
func monitorStarter() func(root string) error { return startMonitor }

func startMonitor(root string) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	cmd := exec.Command(self, "hook", "monitor", root)
	cmd.Dir = "/" // not the tree: a process's directory would hold it after it is removed
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil { // stdin, stdout and stderr are /dev/null
		return err
	}
	return cmd.Process.Release()
}
