package main

import (
	"context"
	"fmt"
	"io"

	"github.com/urfave/cli/v3"

	"github.com/exarchos/git-exarchos/app"
)

func doctorCommand() *cli.Command {
	return &cli.Command{
		Name:  "doctor",
		Usage: "check the installation and the repository: git, the handler, hooks, the file-system monitor, remotes, GitHub, signing, the store, stuck workflows",
		UsageText: `git exarchos doctor [--json]

Each finding is ok, warn or fail, with the command that fixes it. Exits 1 when anything fails
(warnings alone exit 0). The GitHub token is never printed; one request asks GitHub what it may do.

Examples:
   git exarchos doctor
   git exarchos doctor --json`,
		Flags: []cli.Flag{jsonFlag},
		Action: func(_ context.Context, c *cli.Command) error {
			res, err := app.Doctor(app.DoctorOptions{})
			if err != nil {
				return err
			}
			var failure error
			if res.Failures > 0 {
				failure = fmt.Errorf("%w: %d failure(s), %d warning(s)", errDoctorFailed, res.Failures, res.Warnings)
			}
			return emitResult(c, res, func(w io.Writer) {
				for _, ch := range res.Checks {
					printf(w, "%-4s %-13s %s\n", ch.Status, ch.ID, ch.Message)
					if ch.Fix != "" {
						printf(w, "     %-13s fix: %s\n", "", ch.Fix)
					}
				}
				printf(w, "%d failure(s), %d warning(s)\n", res.Failures, res.Warnings)
			}, failure)
		},
	}
}
