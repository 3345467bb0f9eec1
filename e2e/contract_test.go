package e2e

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/exarchos/git-exarchos/internal/modelserver"
)

// When the handler cannot answer — missing from PATH, exiting with a code the client does not
// know, or timing out — the plugin's "onFailure": "block" makes the client refuse the tool call; a settings entry
// without it lets the call through (what `hooks status` warns about). No workflow is needed: the
// handler never gets to decide.
func TestHandlerFailureBlocksOnlyWithOnFailureBlock(t *testing.T) {
	handler := func(script string) string {
		dir := t.TempDir()
		writeFile(t, filepath.Join(dir, "git-exarchos"), "#!/bin/sh\n"+script)
		if err := os.Chmod(filepath.Join(dir, "git-exarchos"), 0o755); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	brokenDir := handler("echo broken >&2\nexit 3\n")
	// Sleeps past the settings entry's 1 s timeout (the plugin's are 10 s and 20 s: too slow here).
	slowDir := handler("cat >/dev/null\nsleep 5\n")
	for _, c := range []struct {
		name    string
		plugin  bool // else a settings entry
		block   bool // the settings entry has "onFailure": "block"
		missing bool // else the broken handler
		slow    bool // the handler times out (settings entries only)
		written bool // the Write went through
	}{
		{name: "missing, plugin", plugin: true, missing: true},
		{name: "exit 3, plugin", plugin: true},
		{name: "missing, settings with onFailure", missing: true, block: true},
		{name: "missing, settings without onFailure", missing: true, written: true},
		{name: "exit 3, settings without onFailure", written: true},
		{name: "timeout, settings with onFailure", slow: true, block: true},
		{name: "timeout, settings without onFailure", slow: true, written: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := NewEnv(t)
			if !c.plugin {
				e.Plugin = ""
				onFailure := ""
				if c.block {
					onFailure = `,"onFailure":"block"`
				}
				writeFile(t, filepath.Join(e.Home, ".claude", "settings.json"),
					`{"hooks":{"PreToolUse":[{"matcher":"*","hooks":[{"type":"command","command":"git-exarchos hook claude","timeout":1`+onFailure+`}]}]}}`)
			}
			e.NoExarchos = true
			switch {
			case c.slow:
				e.PathFirst = []string{slowDir}
			case !c.missing:
				e.PathFirst = []string{brokenDir}
			}
			target := filepath.Join(e.Dir, "new.go")
			res := e.Session().Run("write it", []modelserver.Turn{
				{Agent: mainAgent, ToolUses: []modelserver.ToolUse{{ID: "w", Name: "Write", Input: map[string]any{"file_path": target, "content": "package main\n"}}}},
				{Agent: mainAgent, Text: "done"},
			})
			text, isErr, ok := res.ToolResult("w")
			_, statErr := os.Stat(target)
			if !ok || isErr == c.written || (statErr == nil) != c.written {
				t.Fatalf("written %v (want %v), result error %v: %s", statErr == nil, c.written, isErr, text)
			}
		})
	}
}
