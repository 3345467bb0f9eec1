package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/urfave/cli/v3"

	"github.com/exarchos/git-exarchos/app"
)

// lintCommand is `lint`; `lint-workflow`, its name before issue 41, stays as a hidden alias.
func lintCommand() *cli.Command {
	return &cli.Command{
		Name:      "lint",
		Arguments: []cli.Argument{req("file")},
		Usage:     "check a workflow definition file (.exarchos/workflows/<name>.yaml) before committing it",
		UsageText: "git exarchos lint <file> [--json]\n\n" +
			"Reports, with line numbers: unknown phases in transitions, guards that do not exist, unreachable\n" +
			"phases, a missing final phase, bad tool rules, turn caps and completion schemas. Exit 1 when it\n" +
			"finds a problem. Notes (exit 0) say what a valid definition means where it may surprise: a phase\n" +
			"with allowedTools: [] allows no tools. Definitions take effect once on the base branch (they are read from its tip).\n\nExamples:\n" +
			"   git exarchos lint .exarchos/workflows/docs.yaml",
		Flags: []cli.Flag{jsonFlag},
		Action: func(_ context.Context, c *cli.Command) error {
			res, err := app.LintWorkflow(app.LintWorkflowOptions{File: c.StringArg("file")})
			if lint := (*app.LintError)(nil); errors.As(err, &lint) {
				return withDetails(err, lint.Problems)
			}
			if err != nil {
				return err
			}
			name, def, notes := res.File, res.Definition, res.Notes
			return emit(c, res, func(w io.Writer) {
				fanouts := ""
				if len(def.Fanouts) > 0 {
					fanouts = fmt.Sprintf(", %d stages in %d fan-out(s)", len(def.Stages), len(def.Fanouts))
				}
				printf(w, "%s: ok (type %s, %d phases, %d transitions%s)\n", name, def.Type, len(def.Phases), len(def.Transitions), fanouts)
				for _, n := range notes {
					printf(w, "note: %s\n", n)
				}
			})
		},
	}
}
