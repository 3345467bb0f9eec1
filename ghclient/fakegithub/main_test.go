package fakegithub_test

import (
	"os"
	"testing"

	"github.com/exarchos/git-exarchos/internal/gittest"
)

// TestMain runs the tests with a scratch HOME and no user or system git config (gittest.RunIsolated).
func TestMain(m *testing.M) { os.Exit(gittest.RunIsolated(m)) }
