package e2e

import (
	"strings"
	"testing"

	"github.com/exarchos/git-exarchos/internal/modelserver"
)

// A new user: add this repository as a marketplace, install the plugin, and start a feature with
// one command; the plugin's hooks then run without --plugin-dir. With the plugin enabled,
// `hooks install --claude` leaves the settings alone.
func TestInstallFromTheMarketplaceAndStartAFeature(t *testing.T) {
	e := NewEnv(t)
	e.Plugin = "" // installed, not loaded for the session
	for _, args := range [][]string{
		{"plugin", "marketplace", "add", moduleRoot},
		{"plugin", "install", "exarchos@exarchos"},
	} {
		if out, err := e.run(e.Dir, e.Claude, args...); err != nil {
			t.Fatalf("claude %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	initThenCodeRefused(t, e, "/exarchos:feature login add a login page", expectText("Feature workflow: login add a login page"))
	out := e.MustHuman("hooks", "install", "--claude", "--json")
	if !strings.Contains(out, `"pluginSkipped":true`) {
		t.Errorf("hooks install --claude with the plugin installed: %s", out)
	}
}

// initThenCodeRefused runs a session whose agent starts feature workflow login on its own branch,
// then writes main.go in ideate: the hook must refuse the write.
func initThenCodeRefused(t *testing.T, e *Env, prompt string, first func(*modelserver.Request) error) {
	t.Helper()
	res := e.Session().Run(prompt, []modelserver.Turn{
		{Agent: mainAgent, Expect: first,
			ToolUses: []modelserver.ToolUse{Bash("init", "git switch -q -c login && git exarchos init login --type feature")}},
		{Agent: mainAgent, Expect: ExpectResult("init", no, "started login (feature)"),
			ToolUses: []modelserver.ToolUse{{ID: "w", Name: "Write", Input: map[string]any{"file_path": e.Dir + "/main.go", "content": "x"}}}},
		{Agent: mainAgent, Expect: ExpectResult("w", yes, "Write is not allowed while workflow login (feature) is in phase ideate"), Text: "done"},
	})
	if fin := res.Final(); fin == nil || fin["subtype"] != "success" {
		t.Fatalf("session ended with %v", fin)
	}
}
