package signing

import (
	"testing"

	"github.com/exarchos/git-exarchos/internal/agentenv"
)

// TestMain clears the agent's variables, so the tests (and the processes they start) run the same
// inside an agent's session as in CI.
func TestMain(m *testing.M) { agentenv.RunTests(m) }
