package e2e

import (
	"path/filepath"
	"testing"
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
	initThenCodeRefused(t, e, "start a feature", expectText("start a feature"))
}
