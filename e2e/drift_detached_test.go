package e2e

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/exarchos/git-exarchos/internal/modelserver"
)

// Issue 38 item 8's last case, through the real client: while the plan waits for the user, the
// agent leaves an approval to land after its tool call returns — python starts it in a new session
// with the client's variables filtered out, and exits, so by the time it runs its process tree
// holds nothing of the agent's. It is recorded (nothing tells it from a person's backgrounded
// command), but it noted itself, and the agent's next tool call is refused: the workflow is held,
// with the decision and the undo, until the user accepts it.
func TestDetachedDecisionHeldThroughThePlugin(t *testing.T) {
	e := NewEnv(t)
	if _, err := e.run(e.Dir, "sh", "-c", "command -v python3 && command -v setsid"); err != nil {
		t.Skip("python3 and setsid are needed on the client's PATH")
	}
	f := newFeatureScript(e)
	landed := func() error { // the approval lands a moment after the call returned
		for i := 0; i < 100; i++ {
			if out, _ := e.Human("log", "login", "--type", "plan.approved"); strings.Contains(out, "plan.approved") {
				return nil
			}
			time.Sleep(100 * time.Millisecond)
		}
		return errors.New("the detached approval never landed")
	}
	detach := `python3 -c 'import os, subprocess; env = {k: v for k, v in os.environ.items() if not k.startswith(("CLA", "AI_"))}; ` +
		`subprocess.Popen(["setsid", "sh", "-c", "sleep 1; git exar" + "chos appr" + "ove login"], env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)'`
	held := "workflow login is held: the human decision `git exarchos approve login` was run"
	script := append(f.planning(),
		modelserver.Turn{Agent: mainAgent, Expect: ExpectResult("self-approve", yes, "`git exarchos approve` is a human decision"),
			ToolUses: []modelserver.ToolUse{Bash("detach", detach)}},
		modelserver.Turn{Agent: mainAgent, Expect: ExpectResult("detach", no), Before: landed,
			ToolUses: []modelserver.ToolUse{Bash("next", "git exarchos transition login delegate")}},
		modelserver.Turn{Agent: mainAgent, Expect: ExpectResult("next", yes, held, "git exarchos hooks accept login", "git update-ref refs/exarchos/login "),
			Text: "The workflow is held: please check the approval and run `git exarchos hooks accept login` if it is yours."},
	)
	runDrift(e, "/exarchos:feature login add a login page", script, "plan-review")
	// The user accepts it in their own terminal; the agent's tools run again.
	if out := e.MustHuman("hooks", "accept", "login"); !strings.Contains(out, "accepted as yours: `git exarchos approve login`") {
		t.Errorf("hooks accept: %s", out)
	}
}
