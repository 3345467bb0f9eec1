package ghclient

import (
	"os"
	"testing"

	"github.com/exarchos/git-exarchos/internal/gittest"
)

// TestMain runs the tests isolated from the developer's PATH and git config, as CI runs them.
func TestMain(m *testing.M) { os.Exit(gittest.RunIsolated(m)) }
