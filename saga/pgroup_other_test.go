//go:build !unix

package saga_test

import (
	"os/exec"
	"testing"
)

func ownGroup(*exec.Cmd)            {}
func waitGroupGone(testing.TB, int) {}
