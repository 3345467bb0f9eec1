package e2e

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/exarchos/git-exarchos/internal/modelserver"
)

// When the handler cannot answer — missing from PATH, or exiting with a code the client does not
// know — the plugin's "onFailure": "block" makes the client refuse the tool call; a settings entry
// without it lets the call through (what `hooks status` warns about). No workflow is needed: the
// handler never gets to decide.
func TestHandlerFailureBlocksOnlyWithOnFailureBlock(t *testing.T) {
	brokenDir := t.TempDir()
	writeFile(t, filepath.Join(brokenDir, "git-exarchos"), "#!/bin/sh\necho broken >&2\nexit 3\n")
	if err := os.Chmod(filepath.Join(brokenDir, "git-exarchos"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name    string
		plugin  bool // else a settings entry
		block   bool // the settings entry has "onFailure": "block"
		missing bool // else the broken handler
		written bool // the Write went through
	}{
		{name: "missing, plugin", plugin: true, missing: true},
		{name: "exit 3, plugin", plugin: true},
		{name: "missing, settings with onFailure", missing: true, block: true},
		{name: "missing, settings without onFailure", missing: true, written: true},
		{name: "exit 3, settings without onFailure", written: true},
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
					`{"hooks":{"PreToolUse":[{"matcher":"*","hooks":[{"type":"command","command":"git-exarchos hook claude","timeout":10`+onFailure+`}]}]}}`)
			}
			e.NoExarchos = true
			if !c.missing {
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
