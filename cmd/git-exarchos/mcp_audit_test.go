package main

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/urfave/cli/v3"

	"github.com/exarchos/git-exarchos/mcpserver"
)

// TestEveryCommandIsAToolOrExcluded (issue 40 item 4): every command of the tree is run by an MCP
// tool, or docs/commands.md lists it among the commands that are not tools, with the reason. A
// command added without either fails here; so does an exclusion that is also a tool, one that
// names no command, or a tool that runs no command of the tree.
func TestEveryCommandIsAToolOrExcluded(t *testing.T) {
	all, _ := commandTree()
	var leaves []string
	var walk func(prefix string, c *cli.Command)
	walk = func(prefix string, c *cli.Command) {
		if c.Hidden {
			return // an old spelling kept for scripts (lint-workflow): its command is audited under its name
		}
		p := prefix + c.Name
		if len(c.Commands) == 0 {
			leaves = append(leaves, p)
			return
		}
		for _, s := range c.Commands {
			if s.Name != "help" { // urfave's own help of a group
				walk(p+" ", s)
			}
		}
	}
	for _, c := range all {
		walk("", c)
	}

	b, err := os.ReadFile("../../docs/commands.md")
	if err != nil {
		t.Fatal(err)
	}
	_, table, ok := strings.Cut(string(b), "<!-- mcp exclusions")
	table, _, ok2 := strings.Cut(table, "<!-- end of mcp exclusions -->")
	if !ok || !ok2 {
		t.Fatal("docs/commands.md has no mcp exclusions table between its markers")
	}
	excluded := map[string]string{}
	for _, line := range strings.Split(table, "\n") {
		cells := strings.Split(strings.Trim(line, "| "), " | ")
		if !strings.HasPrefix(line, "| `") || len(cells) != 2 {
			continue
		}
		if strings.TrimSpace(cells[1]) == "" {
			t.Errorf("exclusion %s gives no reason", cells[0])
		}
		for _, m := range regexp.MustCompile("`([^`]+)`").FindAllStringSubmatch(cells[0], -1) {
			excluded[m[1]] = cells[1]
		}
	}

	tools := mcpserver.ToolCommands()
	covered := map[string][]string{}
	for tool, command := range tools {
		n := 0
		for _, l := range leaves {
			if l == command || strings.HasPrefix(l, command+" ") || strings.HasPrefix(command, l+" ") {
				covered[l] = append(covered[l], tool)
				n++
			}
		}
		if n == 0 {
			t.Errorf("tool %s runs %q, no command of the tree", tool, command)
		}
	}
	for _, l := range leaves {
		why, isExcluded := excluded[l]
		switch {
		case len(covered[l]) == 0 && !isExcluded:
			t.Errorf("command %q is neither an MCP tool (mcpserver) nor in docs/commands.md's exclusions with a reason", l)
		case len(covered[l]) > 0 && isExcluded:
			t.Errorf("command %q is a tool (%v) and excluded (%s)", l, covered[l], why)
		}
	}
	for c := range excluded {
		if !slices.Contains(leaves, c) {
			t.Errorf("docs/commands.md excludes %q, which is not a command of the tree", c)
		}
	}
	// The attack this audit stands beside: no tool runs a human decision.
	for _, d := range []string{"approve", "reject", "override", "unblock", "grant", "budget extend", "acknowledge", "pr merge", "signers add"} {
		if len(covered[d]) > 0 {
			t.Errorf("the human decision %q is a tool: %v", d, covered[d])
		}
	}
}
