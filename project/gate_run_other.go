//go:build !unix

package project

import "os/exec"

// killGroupOnCancel leaves exec's default (kill the process) where there are no process groups.
func killGroupOnCancel(*exec.Cmd) {}

// killGroup has no group to kill here.
func killGroup(*exec.Cmd) error { return nil }
