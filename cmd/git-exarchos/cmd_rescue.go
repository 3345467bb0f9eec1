package main

import (
	"context"
	"io"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/exarchos/git-exarchos/saga"
)

func rescueCommand() *cli.Command {
	return &cli.Command{
		Name:  "rescue",
		Usage: "show and restore work that cancel preserved under refs/exarchos-rescue/",
		UsageText: `git exarchos rescue list [<feature>] [--json]
git exarchos rescue restore <feature> <task> [--path P] [--branch B] [--json]

Examples:
   git exarchos rescue list
   git exarchos rescue restore login t1                 # into .worktrees/login/t1
   git exarchos rescue restore login t1 --path ../t1-back`,
		Commands: []*cli.Command{rescueListCommand(), rescueRestoreCommand()},
	}
}

func rescueListCommand() *cli.Command {
	return &cli.Command{
		Name:      "list",
		Arguments: onFeature(),
		Usage:     "list rescued work, of one workflow or all",
		UsageText: "git exarchos rescue list [<feature>] [--json]\n\nExamples:\n   git exarchos rescue list\n   git exarchos rescue list login --json",
		Flags:     []cli.Flag{jsonFlag},
		Action: func(_ context.Context, c *cli.Command) error {
			r, err := openRepo()
			if err != nil {
				return err
			}
			res, err := saga.RescueList(r.Saga(), saga.RescueListOptions{Feature: c.StringArg("feature")})
			if err != nil {
				return err
			}
			return emit(c, res, func(w io.Writer) {
				if len(res.Rescues) == 0 {
					printf(w, "no rescued work\n")
					return
				}
				for _, x := range res.Rescues {
					printf(w, "%s %s/%s (%s, %s) on %s", bold(w, x.Commit[:12]), x.Feature, x.Task, x.Kind, x.Date, x.Head[:12])
					if x.Branch != "" {
						printf(w, " [%s]", x.Branch)
					}
					printf(w, "\n")
					if len(x.Changed) > 0 {
						printf(w, "    %s\n", strings.Join(x.Changed, ", "))
					}
					for _, k := range x.Kept {
						printf(w, "    also keeps %s\n", k[:12])
					}
					printf(w, "    restore: git exarchos rescue restore %s %s\n", x.Feature, x.Task)
					for _, e := range x.Earlier {
						printf(w, "    version %d: %s (%s, %s) on %s", e.Version, e.Commit[:12], e.Kind, e.Date, e.Head[:12])
						if len(e.Changed) > 0 {
							printf(w, ": %s", strings.Join(e.Changed, ", "))
						}
						printf(w, "\n      restore: git exarchos rescue restore %s %s --version %d\n", x.Feature, x.Task, e.Version)
					}
				}
			})
		},
	}
}

func rescueRestoreCommand() *cli.Command {
	return &cli.Command{
		Name:      "restore",
		Arguments: []cli.Argument{req("feature"), req("task")},
		Usage:     "check rescued work out into a new worktree, untracked and staged changes as they were",
		UsageText: `git exarchos rescue restore <feature> <task> [--path P] [--branch B] [--version N] [--json]

The new worktree's HEAD is the commit the work sat on, on the task branch again when that name is
free (else --branch, else detached); its files and index are as they were when preserved.

Examples:
   git exarchos rescue restore login t1
   git exarchos rescue restore login t1 --path ../t1-back --branch t1-again`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "path", Usage: "where to put the worktree (default .worktrees/<feature>/<task>)"},
			&cli.StringFlag{Name: "branch", Usage: "branch to create for it (default: the task branch)"},
			&cli.IntFlag{Name: "version", Usage: "which of the kept versions `rescue list` shows (default 0: the latest complete one)"},
			jsonFlag,
		},
		Action: func(_ context.Context, c *cli.Command) error {
			r, err := openRepo()
			if err != nil {
				return err
			}
			res, err := saga.RescueRestore(r.Saga(), saga.RescueRestoreOptions{Feature: c.StringArg("feature"), Task: c.StringArg("task"), Path: c.String("path"), Branch: c.String("branch"), Version: c.Int("version")})
			if err != nil {
				return err
			}
			return emit(c, res, func(w io.Writer) {
				where := "on " + res.Branch
				if res.Detached {
					where = "detached"
				}
				printf(w, "restored %s/%s into %s (%s at %s)\n", c.StringArg("feature"), c.StringArg("task"), res.Path, where, res.Head[:12])
				for _, k := range res.Kept {
					printf(w, "the rescue ref also keeps %s: git switch -c <name> %s\n", k[:12], k)
				}
			})
		},
	}
}
