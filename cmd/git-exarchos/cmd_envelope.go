package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/urfave/cli/v3"

	"github.com/exarchos/git-exarchos/app"
	"github.com/exarchos/git-exarchos/workflow"
)

func grantCommand() *cli.Command {
	return workflowCommand("grant", "let the next matching tool call outside the phase's envelope through, once (human, recorded)",
		"git exarchos grant [<feature>] --tool T [--match PATTERN] --once --reason R [--json]\n\n"+
			"--match is the call's file path (a glob: docs/**, src/*.go) or its command (exact, or prefix:* as in\n"+
			"Bash(go test:*)); without it the grant matches any call of the tool. The next matching call\n"+
			"consumes it; a later call needs a new grant. The agent may not run this command.\n\nExamples:\n"+
			"   git exarchos grant login --tool Bash --match 'rm -rf build' --once --reason \"stale build dir\"\n"+
			"   git exarchos grant login --tool Write --match 'src/config.go' --once --reason \"one config fix\"",
		nil, []cli.Flag{
			&cli.StringFlag{Name: "tool", Required: true, Usage: "the tool, as Claude Code names it (Bash, Edit, Write, …)"},
			&cli.StringFlag{Name: "match", Usage: "file path glob or command (prefix:* or exact) the call must match"},
			&cli.BoolFlag{Name: "once", Usage: "the grant is consumed by one call (the only kind there is; required to say so)"},
			&cli.StringFlag{Name: "reason", Required: true, Usage: "why the call is needed (recorded)"},
		}, func(c *cli.Command, _ []string) (workflow.Command, error) {
			if !c.Bool("once") {
				return nil, usageErrf("grants are one-shot: say so with --once (git exarchos grant <feature> --tool %s --once --reason R)", c.String("tool"))
			}
			return workflow.GrantTool{Tool: c.String("tool"), Match: c.String("match"), Reason: c.String("reason")}, nil
		}, said("granted one call"))
}

func budgetCommand() *cli.Command {
	extend := workflowCommand("extend", "give the current stay in the phase N more tool calls (human, recorded)",
		"git exarchos budget extend [<feature>] N --reason R [--json]\n\nExamples:\n"+
			"   git exarchos budget extend login 20 --reason \"the migration touches 30 files\"",
		[]cli.Argument{req("turns", "N")}, []cli.Flag{&cli.StringFlag{Name: "reason", Required: true, Usage: "why the phase needs more calls (recorded)"}},
		func(c *cli.Command, args []string) (workflow.Command, error) {
			n, err := strconv.Atoi(args[0])
			if err != nil || n <= 0 {
				return nil, usageErrf("budget extend: %q is not a positive number of tool calls", args[0])
			}
			return workflow.ExtendBudget{Turns: n, Reason: c.String("reason")}, nil
		}, said("budget extended"))
	return &cli.Command{
		Name:      "budget",
		Usage:     "give a phase with a turnCap more tool calls (human, recorded)",
		UsageText: "git exarchos budget extend [<feature>] N --reason R [--json]",
		Commands:  []*cli.Command{extend},
	}
}

func submitCommand() *cli.Command {
	return &cli.Command{
		Name:      "submit",
		Arguments: onFeature(req("phase")),
		Usage:     "hand in a phase's completion: validated against the phase's JSON Schema, recorded as an event and an artifact",
		UsageText: "git exarchos submit [<feature>] <phase> [--file F] [--json]\n\n" +
			"Without --file (or with --file -) the payload is read from stdin. An invalid payload records\n" +
			"nothing and lists every schema error with its JSON path (exit 3).\n\nExamples:\n" +
			"   git exarchos submit login research --file findings.json\n" +
			"   echo '{\"summary\":\"done\"}' | git exarchos submit login research",
		Flags: []cli.Flag{&cli.StringFlag{Name: "file", Aliases: []string{"f"}, Usage: "the JSON payload (- or none: stdin)"}, jsonFlag},
		Action: func(_ context.Context, c *cli.Command) error {
			feature, args := splitFeature(c)
			r, err := openRepo()
			if err != nil {
				return err
			}
			var stdin io.Reader = os.Stdin
			if f := c.String("file"); (f == "" || f == "-") && terminal(os.Stdin) {
				// A person at a terminal would otherwise see nothing happen.
				fmt.Fprintf(c.Root().ErrWriter, "reading the completion of %s (a JSON object) from the terminal; end it with Ctrl-D, or pass --file F\n", args[0])
			}
			res, err := app.Submit(r, app.SubmitOptions{Feature: feature, Phase: args[0], File: c.String("file"), Stdin: stdin})
			if err != nil {
				return err
			}
			return emit(c, res, func(w io.Writer) { printResult(w, res, "completion of "+args[0]+" submitted") })
		},
	}
}
