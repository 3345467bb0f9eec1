package gittest

import (
	"os"
	"testing"
)

// TestMain runs the tests with a scratch HOME and no user or system git config (RunIsolated).
func TestMain(m *testing.M) { os.Exit(RunIsolated(m)) }
