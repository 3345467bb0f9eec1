package guidance

import (
	"os"
	"testing"

	"github.com/exarchos/git-exarchos/internal/gittest"
)

func TestMain(m *testing.M) { os.Exit(gittest.RunIsolated(m)) }
