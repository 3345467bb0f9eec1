package main

import (
	"context"
	"io"

	"github.com/urfave/cli/v3"

	"github.com/exarchos/git-exarchos/app"
	"github.com/exarchos/git-exarchos/saga"
)

// task start and task done, which know about task worktrees (the rest of `task` is cmd_work.go).

func taskStartCommand() *cli.Command {
	const usage = "task start [<feature>] <task-id> [--worktree [--base REV] [--path P]] [--json]"
	return &cli.Command{
		Name:      "start",
		Arguments: onFeature(req("task-id")),
		Usage:     "mark a task in progress, optionally in its own linked worktree",
		UsageText: `git exarchos ` + usage + `

With --worktree the task gets a linked worktree (default .worktrees/<feature>/<task> under the
main worktree) on the branch <workflow-branch>--<task>, started at --base (default: the
workflow's branch). The folder is hidden from git status through .git/info/exclude (your
.gitignore is not edited). The worktree is recorded, so git exarchos cancel removes it and keeps
any work in it under refs/exarchos-rescue/<feature>/<task>. Running it again reuses the worktree.

Examples:
   git exarchos task start login t1
   git exarchos task start login t1 --worktree
   git exarchos task start login t2 --worktree --base main~3
   cd "$(git exarchos task start login t3 --worktree --json | jq -r .worktree.path)"`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "worktree", Aliases: []string{"w"}, Usage: "create (or reuse) the task's linked worktree"},
			&cli.StringFlag{Name: "base", Usage: "revision `REV` the task branch starts at (default: the workflow's branch)"},
			&cli.StringFlag{Name: "path", Usage: "put the worktree at `P` instead of .worktrees/<feature>/<task>"},
			jsonFlag,
		},
		Action: func(_ context.Context, c *cli.Command) error {
			feature, args := splitFeature(c)
			r, err := openRepo()
			if err != nil {
				return err
			}
			res, err := saga.StartTask(r.Saga(), saga.TaskStartOptions{Feature: feature, Task: args[0], Worktree: c.Bool("worktree"), Base: c.String("base"), Path: c.String("path")})
			if err != nil {
				return err
			}
			return emit(c, res, func(w io.Writer) {
				printResult(w, res.Result, "task start")
				if wt := res.Worktree; wt != nil {
					verb := "created"
					if !wt.Created {
						verb = "reusing"
					}
					printf(w, "worktree %s %s on %s (base %s)\n", verb, wt.Path, wt.Branch, wt.Base[:12])
				}
			})
		},
	}
}

func taskDoneCommand() *cli.Command {
	const usage = "task done [<feature>] <task-id> [--json]"
	return &cli.Command{
		Name:      "done",
		Arguments: onFeature(req("task-id")),
		Usage:     "mark a task completed at its commit, after the definition's task gates pass there",
		UsageText: "git exarchos " + usage + "\n\n" +
			"Records the task's commit: the tip of its worktree's branch, or of the workflow's branch. When the\n" +
			"definition (read from the base branch) names taskGates, each that has not passed on that commit\n" +
			"runs first, in a clean checkout of it; a failure keeps the task open (exit 3) with the gate's\n" +
			"output and the fix: commit the repair and run task done again. docs/peers.md#quality-gates.\n\n" +
			"Examples:\n   git exarchos task done login t1\n   git exarchos task done t1 --json",
		Flags: []cli.Flag{jsonFlag},
		Action: func(_ context.Context, c *cli.Command) error {
			feature, args := splitFeature(c)
			r, err := openRepo()
			if err != nil {
				return err
			}
			res, err := app.CompleteTask(r, app.TaskDoneOptions{Feature: feature, Task: args[0]})
			if err != nil {
				return err
			}
			return emit(c, res, func(w io.Writer) { printResult(w, res, "task done") })
		},
	}
}
