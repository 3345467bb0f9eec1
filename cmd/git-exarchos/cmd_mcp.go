package main

import (
	"context"
	"io"

	"github.com/urfave/cli/v3"

	"github.com/exarchos/git-exarchos/app"
)

func mcpCommand() *cli.Command {
	return &cli.Command{
		Name:  "mcp",
		Usage: "serve the workflow commands as MCP tools on stdin/stdout; --install registers the server in .mcp.json",
		UsageText: `git exarchos mcp [--install | --uninstall] [--json]

Without a flag: a Model Context Protocol server on stdio. Its tools run the same commands as the
CLI and answer the same JSON (a refusal is a tool error carrying the rejection and its fix). Human
decisions (approve, reject, override, unblock, grant, budget) are not tools. The server is the
binary git-exarchos-mcp, installed beside git-exarchos (go install ./cmd/...): this command
becomes it, and its tools run this git-exarchos.

--install merges the server into .mcp.json at the top of the worktree (Claude Code's project
scope; commit it to share it), keeping every other server; --uninstall removes it. Claude Code
names the tools mcp__exarchos__<tool>, and the PreToolUse hook polices them like any other tool.

Examples:
   git exarchos mcp --install
   git exarchos mcp`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "install", Usage: "register the server in .mcp.json (project scope)"},
			&cli.BoolFlag{Name: "uninstall", Usage: "remove the server from .mcp.json"},
			jsonFlag,
		},
		Action: func(_ context.Context, c *cli.Command) error {
			if c.Bool("install") || c.Bool("uninstall") {
				if c.Bool("install") && c.Bool("uninstall") {
					return usageErrf("--install and --uninstall exclude each other")
				}
				res, err := app.MCPInstall(app.MCPInstallOptions{Uninstall: c.Bool("uninstall")})
				if err != nil {
					return err
				}
				return emit(c, res, func(w io.Writer) {
					switch {
					case !res.Changed:
						printf(w, "%s: already up to date\n", res.Path)
					case res.Server != nil:
						printf(w, "%s: exarchos server registered (restart Claude Code to load it)\n", res.Path)
					default:
						printf(w, "%s: exarchos server removed\n", res.Path)
					}
				})
			}
			if c.Bool("json") {
				return usageErrf("--json goes with --install or --uninstall; the server itself speaks JSON-RPC")
			}
			return app.ServeMCP()
		},
	}
}
