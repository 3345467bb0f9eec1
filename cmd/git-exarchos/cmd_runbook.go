package main

import (
	"context"
	"io"

	"github.com/urfave/cli/v3"

	"github.com/exarchos/git-exarchos/app"
)

func runbookCommand() *cli.Command {
	return &cli.Command{
		Name:      "runbook",
		Arguments: onFeature(req("name")),
		Usage:     "run a runbook of the workflow's definition, step by step, recording each; stop at the first failure",
		UsageText: `git exarchos runbook [<feature>] <name> [--from N] [--json]

Runs the steps the definition names under runbooks.<name> (on the base branch), each with sh -c in
the worktree of the workflow's branch (EXARCHOS_FEATURE, EXARCHOS_RUNBOOK and EXARCHOS_STEP set),
and records each run (runbook.step). The first failing step stops the run (exit 1) with the
command that resumes there.

Examples:
   git exarchos runbook login release
   git exarchos runbook login release --from 3`,
		Flags: []cli.Flag{
			&cli.IntFlag{Name: "from", Usage: "start at step `N` (1-based)"},
			jsonFlag,
		},
		Action: func(_ context.Context, c *cli.Command) error {
			feature, args := splitFeature(c)
			r, err := openRepo()
			if err != nil {
				return err
			}
			res, err := app.Runbook(r, app.RunbookOptions{Feature: feature, Name: args[0], From: int(c.Int("from")), Output: c.Root().ErrWriter})
			if err != nil {
				return err
			}
			return emit(c, res, func(w io.Writer) {
				for _, s := range res.Steps {
					printf(w, "step %d ok: %s\n", s.Index, s.Step)
				}
				printf(w, "runbook %s of %s: done\n", res.Runbook, res.Feature)
			})
		},
	}
}
