// Command git-exarchos-mcp is the git exarchos MCP server (package mcpserver), a binary of its own
// so that git-exarchos, which runs on every hook call, does not link the MCP SDK.
//
// It may import mcpserver only.
package main

import (
	"os"

	"github.com/exarchos/git-exarchos/mcpserver"
)

// version is set at release time with -ldflags "-X main.version=v1.2.3", as for git-exarchos.
var version = "dev"

func main() {
	os.Exit(mcpserver.Main(os.Args, os.Stdin, os.Stdout, os.Stderr, version))
}
