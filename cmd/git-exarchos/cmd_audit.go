package main

import (
	"context"
	"fmt"

	"github.com/urfave/cli/v3"

	"github.com/exarchos/git-exarchos/views"
)

func auditCommand() *cli.Command {
	return &cli.Command{
		Name:      "audit",
		Arguments: onFeature(),
		Usage:     "the timeline of every boundary: transitions, guard failures and overrides, denials, grants, budgets, compensation",
		UsageText: "git exarchos audit [<feature>] [--format text|json|mermaid] [--json]\n\n" +
			"Each entry has its actor, time and the commit of the workflow ref that recorded it. --format mermaid\n" +
			"draws the path the workflow took over its definition (edges numbered in order).\n\nExamples:\n" +
			"   git exarchos audit login\n" +
			"   git exarchos audit login --format mermaid > login-path.mmd\n" +
			"   git exarchos audit login --json | jq '.entries[] | select(.type == \"tool.denied\")'",
		Flags: []cli.Flag{&cli.StringFlag{Name: "format", Aliases: []string{"f"}, Value: "text", Usage: "text | json | mermaid"}, jsonFlag},
		Action: func(_ context.Context, c *cli.Command) error {
			format := c.String("format")
			if c.Bool("json") {
				format = "json"
			}
			if format != "text" && format != "json" && format != "mermaid" {
				return usageErrf("--format %q: use text, json or mermaid", format)
			}
			r, err := openRepo()
			if err != nil {
				return err
			}
			a, err := views.ShowAudit(r.Hook(), views.AuditOptions{Feature: c.StringArg("feature")})
			if err != nil {
				return err
			}
			switch format {
			case "json":
				return emitJSON(c, a)
			case "mermaid":
				_, err := fmt.Fprint(c.Root().Writer, a.Mermaid())
				return err
			}
			w := c.Root().Writer
			printf(w, "%s (%s), now in %s; %d tool call(s) counted against turn caps\n", bold(w, a.Feature), a.Type, bold(w, a.Phase), a.ToolCalls)
			for _, e := range a.Entries {
				printf(w, "%4d  %s  %-10.10s  %-12.12s  %-20s  %s\n", e.Seq, e.Time.Format("2006-01-02 15:04:05Z"), e.Commit, e.Actor, e.Type, e.Summary)
			}
			for _, l := range a.DenialsLost {
				printf(w, "denials lost (event %d): %s\n", l.Seq, l.Message)
			}
			return nil
		},
	}
}
