package main

import (
	"context"
	"io"

	"github.com/urfave/cli/v3"

	"github.com/exarchos/git-exarchos/app"
)

func checkpointCommand() *cli.Command {
	return &cli.Command{
		Name:      "checkpoint",
		Arguments: onFeature(),
		Usage:     "record what a fresh session needs to go on (phase, open tasks, the rehydrate document)",
		UsageText: `git exarchos checkpoint [<feature>] [--note TEXT] [--json]

Records checkpoint.recorded with the phase, the open tasks and the document rehydrate prints now.
With checkpointAfter: N in .exarchos/config.yaml (workflows.<type>), a transition after N events
since the last checkpoint is refused (CHECKPOINT_REQUIRED) until one is recorded. The PreCompact
hook records one before Claude Code compacts the context.

Examples:
   git exarchos checkpoint
   git exarchos checkpoint login --note "the session store is half migrated; t3 next"`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "note", Usage: "what the next session should know"},
			jsonFlag,
		},
		Action: func(_ context.Context, c *cli.Command) error {
			r, err := openRepo()
			if err != nil {
				return err
			}
			res, err := app.Checkpoint(r, app.CheckpointOptions{Feature: c.StringArg("feature"), Note: c.String("note")})
			if err != nil {
				return err
			}
			return emit(c, res, func(w io.Writer) { printResult(w, res, "checkpoint recorded") })
		},
	}
}
