//go:build unix

package app

import (
	"os"
	"strconv"
	"strings"
	"syscall"
)

// TEST HOOK, and nothing else. EXARCHOS_TEST_CRASH_AFTER_STEP=N kills this process with SIGKILL
// right after the N-th compensation step of this run was recorded (0: right after the cancel
// request was recorded); N:act kills it after step N was performed on git but before it was
// recorded. The crash tests use it to prove that a cancel killed at any point resumes without
// repeating recorded steps and without losing work. Unset, it does nothing.
const crashEnv = "EXARCHOS_TEST_CRASH_AFTER_STEP"

func crashPoint() (int, bool, bool) {
	v := os.Getenv(crashEnv)
	if v == "" {
		return 0, false, false
	}
	num, mode, _ := strings.Cut(v, ":")
	n, err := strconv.Atoi(num)
	if err != nil {
		return 0, false, false
	}
	return n, mode == "act", true
}

func testCrashAfterStep(n int) {
	if at, act, ok := crashPoint(); ok && !act && at == n {
		_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
		select {} // the signal is on its way; never go on
	}
}

func testCrashAfterAction(n int) {
	if at, act, ok := crashPoint(); ok && act && at == n {
		_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
		select {}
	}
}
