package saga

import (
	"os"
	"testing"

	"github.com/exarchos/git-exarchos/internal/gittest"
)

// TestMain runs the tests isolated from the developer's PATH, git config and agent session, as CI
// runs them (gittest.RunIsolated).
func TestMain(m *testing.M) { os.Exit(gittest.RunIsolated(m)) }
