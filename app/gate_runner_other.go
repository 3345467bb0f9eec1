//go:build !unix

package app

import "os/exec"

// killGroupOnCancel leaves exec's default (kill the process) where there are no process groups.
func killGroupOnCancel(*exec.Cmd) {}
