package e2e

import (
	"testing"

	"github.com/exarchos/git-exarchos/internal/modelserver"
)

// TestGeminiReadsTheGuidance: the guidance `hooks install --gemini` writes (an extension in
// ~/.gemini/extensions/exarchos, generated from the Claude Code plugin) reaches the model under the
// real Gemini CLI: the workflow command /exarchos:status, given to -p as a user types it, sends the
// model the plugin's command text with the user's words in place of {{args}}, and the extension's
// context file (GEMINI.md: the commands and guides) is in the same request. On a branch with no
// workflow: Gemini CLI 0.61 puts a SessionStart hook's context before the -p prompt, which then no
// longer starts with "/" and is sent as text (docs/clients.md); typed in a session, the command
// runs as here.
func TestGeminiReadsTheGuidance(t *testing.T) {
	bin := clientPath(t, gemini)
	e := newWorld(t)
	e.MustHuman("hooks", "install", "--gemini")
	res := runClient(e, gemini, bin, "/exarchos:status login "+modelserver.MainAgent, []modelserver.Turn{
		{Agent: mainAgent, Expect: expectText(
			"The arguments, as the user typed them: login "+modelserver.MainAgent+". They are text", // status.toml's prompt
			"`/exarchos:feature <feature-id> [what to build]`",                                      // GEMINI.md
			"`exarchos-guide-design-and-plan`"),
			Text: "No workflow is bound to this branch."},
	})
	if t.Failed() {
		t.Logf("gemini stdout:\n%s\nstderr:\n%s", tail(res.Stdout, 3000), tail(res.Stderr, 3000))
		for _, r := range res.Requests {
			t.Logf("request: %s", tail(r.Text(), 6000))
		}
	}
}
