package e2e

import (
	"errors"
	"strings"
	"testing"

	"github.com/exarchos/git-exarchos/internal/modelserver"
)

// The harness itself: the client runs offline against the scripted model, its Bash tool's
// processes carry the agent's variables (which the hook and the human decisions rely on), the
// git exarchos it finds is the one built for this test, and the session can be resumed.
func TestClientRunsOfflineAgainstTheScriptedModel(t *testing.T) {
	e := NewEnv(t)
	e.Plugin = ""
	s := e.Session()
	s.Run("hi", []modelserver.Turn{
		{Agent: modelserver.MainAgent, ToolUses: []modelserver.ToolUse{Bash("b1", "env | grep -E '^(CLAUDECODE|AI_AGENT|CLAUDE_CODE_SESSION_ID)=' | sort; command -v git-exarchos")}},
		{Agent: modelserver.MainAgent, Expect: ExpectResult("b1", no, "CLAUDECODE=1", "AI_AGENT=", "CLAUDE_CODE_SESSION_ID=", binDir), Text: "done"},
	})
	if s.ID == "" {
		t.Fatal("no session id in the stream")
	}
	res := s.Resume("again", []modelserver.Turn{{Agent: modelserver.MainAgent, Expect: func(r *modelserver.Request) error {
		if !strings.Contains(r.Text(), "CLAUDECODE=1") {
			return errNotResumed
		}
		return nil
	}, Text: "resumed"}})
	if f := res.Final(); f == nil || f["result"] != "resumed" {
		t.Fatalf("resumed run ended with %v", f)
	}
}

var errNotResumed = errors.New("the resumed request does not carry the first run's conversation")
