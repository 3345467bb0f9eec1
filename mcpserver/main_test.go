package mcpserver

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/exarchos/git-exarchos/internal/gittest"
)

// TestMain runs the tests isolated from the developer's PATH, git config and agent session, as CI
// runs them (gittest.RunIsolated).
func TestMain(m *testing.M) { os.Exit(gittest.RunIsolated(m)) }

// TestToolsRunMarkedAsAnAgent: the commands a tool runs carry the agent's mark (AI_AGENT), so a
// human decision run through the server refuses as it does in the agent's Bash; a mark the client
// gave is kept.
func TestToolsRunMarkedAsAnAgent(t *testing.T) {
	cli := filepath.Join(t.TempDir(), "fake-cli")
	if err := os.WriteFile(cli, []byte("#!/bin/sh\nprintf '{\"agent\":\"%s\",\"claude\":\"%s\"}\\n' \"$AI_AGENT\" \"$CLAUDECODE\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	c := &cliRunner{path: cli}
	out, _, err := c.run(context.Background(), []string{"status"})
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != `{"agent":"git-exarchos-mcp","claude":""}` {
		t.Errorf("the tool's command ran with %s", out)
	}
	t.Setenv("CLAUDECODE", "1")
	if out, _, err = c.run(context.Background(), []string{"status"}); err != nil || string(out) != `{"agent":"","claude":"1"}` {
		t.Errorf("under Claude Code the tool's command ran with %s (%v)", out, err)
	}
}
