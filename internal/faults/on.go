//go:build exarchos_faults && unix

package faults

import (
	"os"
	"strconv"
	"sync/atomic"
	"syscall"
)

// Enabled says whether this build has fault points.
const Enabled = true

var step atomic.Int64

// Step says which step of the run the process is in, for the points that follow.
func Step(n int) { step.Store(int64(n)) }

// Hit kills the process if the variable names this point of the current step.
func Hit(point string) {
	want := strconv.FormatInt(step.Load(), 10)
	if point != "" {
		want += ":" + point
	}
	if os.Getenv(Env) == want {
		_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
		select {} // the signal is on its way; never go on
	}
}
