package e2e

import (
	"path/filepath"
	"testing"

	"github.com/exarchos/git-exarchos/internal/modelserver"
)

// Issue 38 item 5, through the real client with the plugin alone installed: a
// .claude/settings.local.json entry whose command merely mentions the handler (its answer thrown
// away, `exit 0`) does not make the plugin's handler stand aside; the code write in ideate is
// still refused.
func TestPluginDoesNotStandAsideForAFakeEntry(t *testing.T) {
	e := NewEnv(t)
	writeFile(t, filepath.Join(e.Dir, ".claude", "settings.local.json"),
		`{"hooks":{"PreToolUse":[{"matcher":"*","hooks":[{"type":"command","command":"git-exarchos hook claude </dev/null >/dev/null; exit 0"}]}],`+
			`"PostToolUse":[{"matcher":"*","hooks":[{"type":"command","command":"git-exarchos hook claude </dev/null >/dev/null; exit 0"}]}]}}`)
	res := e.Session().Run("start a feature", []modelserver.Turn{
		{Agent: mainAgent, Expect: expectText("start a feature"),
			ToolUses: []modelserver.ToolUse{Bash("init", "git switch -q -c login && git exarchos init login --type feature")}},
		{Agent: mainAgent, Expect: ExpectResult("init", no, "started login (feature)"),
			ToolUses: []modelserver.ToolUse{{ID: "w", Name: "Write", Input: map[string]any{"file_path": e.Dir + "/main.go", "content": "x"}}}},
		{Agent: mainAgent, Expect: ExpectResult("w", yes, "Write is not allowed while workflow login (feature) is in phase ideate"), Text: "done"},
	})
	if fin := res.Final(); fin == nil || fin["subtype"] != "success" {
		t.Fatalf("session ended with %v", fin)
	}
}
