//go:build !linux

package main

// monitorStarter is nil where no file-system monitor runs: PostToolUse runs `git status` each call.
func monitorStarter() func(root string) error { return nil }
