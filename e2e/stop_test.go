package e2e

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/exarchos/git-exarchos/internal/modelserver"
)

// stopGuard on the base branch holds the agent once on an unfinished phase: the client sends the
// model another turn carrying what remains, and lets the next stop through (stop_hook_active).
// Off, the first stop ends the session.
func TestStopGuardHoldsTheAgentOnceThroughTheClient(t *testing.T) {
	for _, on := range []bool{true, false} {
		name := map[bool]string{true: "on", false: "off"}[on]
		t.Run(name, func(t *testing.T) {
			e := NewEnv(t)
			if on {
				writeFile(t, filepath.Join(e.Dir, ".exarchos", "config.yaml"), "stopGuard: true\n")
				e.Git(e.Dir, "add", ".exarchos/config.yaml")
				e.Git(e.Dir, "commit", "-q", "-m", "stop guard")
				e.Git(e.Dir, "update-ref", "-m", "fetch: as if fetched from origin", "refs/remotes/origin/main", "HEAD")
			}
			e.Git(e.Dir, "switch", "-q", "-c", "login")
			e.MustHuman("init", "login", "--type", "feature")
			script := []modelserver.Turn{{Agent: mainAgent, Text: "All done."}}
			if on {
				script = append(script, modelserver.Turn{Agent: mainAgent, Expect: func(r *modelserver.Request) error {
					if !strings.Contains(r.Text(), "the workflow still needs your work before you stop") {
						return errors.New("the Stop hook's reason did not reach the model")
					}
					return expectText("git exarchos set login artifacts.design=<path>")(r)
				}, Text: "Stopping anyway: the design is the user's call."})
			}
			res := e.Session().Run("finish", script)
			if fin := res.Final(); fin == nil || fin["subtype"] != "success" {
				t.Fatalf("session ended with %v", fin)
			}
		})
	}
}
