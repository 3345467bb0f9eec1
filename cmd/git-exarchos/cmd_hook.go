package main

import (
	"io"

	"github.com/urfave/cli/v2"

	"github.com/exarchos/git-exarchos/app"
)

func init() {
	commands = append(commands, hookCommand(), rehydrateCommand())
}

// hookCommand is what installed hooks run; people run `hooks` (install, uninstall, status).
func hookCommand() *cli.Command {
	return &cli.Command{
		Name:      "hook",
		Usage:     "run a hook handler (called by Claude Code and by git hooks, not by hand)",
		UsageText: "git exarchos hook claude < payload.json\ngit exarchos hook git <pre-push|post-checkout|post-merge> [hook arguments]",
		Subcommands: []*cli.Command{
			{
				Name:  "claude",
				Usage: "answer a Claude Code hook event: the payload on stdin, the decision on stdout; always exits 0",
				UsageText: `git exarchos hook claude < payload.json

Installed by ` + "`git exarchos hooks install --claude`" + `. Reads the hook JSON Claude Code sends
(hook_event_name, cwd, tool_name, tool_input, …) and answers for the workflow bound to the branch
checked out at cwd. Malformed input gets a message on stderr and the event's safe default.

Examples:
   echo '{"hook_event_name":"PreToolUse","cwd":".","tool_name":"Write","tool_input":{"file_path":"main.go"}}' | git exarchos hook claude`,
				Action: func(c *cli.Context) error {
					return app.ClaudeHook(app.ClaudeHookOptions{Stdin: c.App.Reader, Stdout: c.App.Writer, Stderr: c.App.ErrWriter})
				},
			},
		},
	}
}

func rehydrateCommand() *cli.Command {
	return &cli.Command{
		Name:      "rehydrate",
		Usage:     "print the context a fresh agent session needs: phase, what is needed to move on, tasks in progress, rules",
		ArgsUsage: "[<feature>]",
		UsageText: `git exarchos rehydrate [<feature>] [--json]

The same document the SessionStart hook gives a new Claude Code session (at most about 2,000
characters). The feature may be left out: the workflow bound to the current branch, or the only
active one.

Examples:
   git exarchos rehydrate
   git exarchos rehydrate login --json`,
		Flags: []cli.Flag{jsonFlag},
		Action: func(c *cli.Context) error {
			if c.NArg() > 1 {
				return usageErrf("rehydrate takes at most one feature, got %d arguments", c.NArg())
			}
			r, err := openRepo()
			if err != nil {
				return err
			}
			res, err := app.Rehydrate(r, app.RehydrateOptions{Feature: c.Args().First()})
			if err != nil {
				return err
			}
			return emit(c, res, func(w io.Writer) { io.WriteString(w, res.Context) })
		},
	}
}
