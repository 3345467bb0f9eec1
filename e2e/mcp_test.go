package e2e

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/exarchos/git-exarchos/internal/modelserver"
)

// mcpWriterEnv makes the test binary serve an MCP server with one tool that writes files: a
// third-party MCP tool the hooks know nothing about.
const mcpWriterEnv = "EXARCHOS_E2E_MCP_WRITER"

type writeFileInput struct {
	Path    string `json:"path"`
	Content string `json:"content"`
}

func serveMCPWriter() {
	s := mcp.NewServer(&mcp.Implementation{Name: "writer", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "write_file", Description: "write a file"}, func(_ context.Context, _ *mcp.CallToolRequest, in writeFileInput) (*mcp.CallToolResult, any, error) {
		if err := os.WriteFile(in.Path, []byte(in.Content), 0o644); err != nil {
			return nil, nil, err
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "wrote " + in.Path}}}, nil, nil
	})
	_ = s.Run(context.Background(), &mcp.StdioTransport{})
}

// A third-party MCP tool that writes: refused up front in a phase whose tools are an allow-list
// (feature ideate), and in a phase that allows any tool but limits the paths it may change (debug
// triage) let through, then reported by PostToolUse with the undo.
func TestMCPWriteToolThroughTheClient(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	config, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"writer": map[string]any{
		"type": "stdio", "command": self, "env": map[string]string{mcpWriterEnv: "1"},
	}}})
	for _, c := range []struct {
		typ, phase string
		written    bool
		want       string
	}{
		{"feature", "ideate", false, "mcp__writer__write_file is not allowed while workflow login (feature) is in phase ideate"},
		{"debug", "triage", true, "git restore --source=HEAD --staged --worktree -- main.go"},
	} {
		t.Run(c.typ, func(t *testing.T) {
			e := NewEnv(t)
			e.Git(e.Dir, "switch", "-q", "-c", "login")
			e.MustHuman("init", "login", "--type", c.typ)
			s := e.Session()
			s.AllowedTools = append(append([]string(nil), DefaultTools...), "mcp__writer__write_file")
			s.Args = []string{"--mcp-config", string(config)}
			target := filepath.Join(e.Dir, "main.go")
			s.Run("write main.go", []modelserver.Turn{
				{Agent: mainAgent, ToolUses: []modelserver.ToolUse{{ID: "mcp", Name: "mcp__writer__write_file", Input: map[string]any{"path": target, "content": "package main // changed\n"}}}},
				{Agent: mainAgent, Expect: expectText(c.want), Text: "done"},
			})
			b, _ := os.ReadFile(target)
			if got := strings.Contains(string(b), "changed"); got != c.written {
				t.Errorf("main.go written %v, want %v", got, c.written)
			}
		})
	}
}
