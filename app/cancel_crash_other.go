//go:build !unix

package app

// The crash test hook (cancel_crash.go) needs SIGKILL; elsewhere it does nothing.
func testCrashAfterStep(int)   {}
func testCrashAfterAction(int) {}
