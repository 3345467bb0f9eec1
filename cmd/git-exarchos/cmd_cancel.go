package main

import (
	"context"
	"errors"
	"io"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/exarchos/git-exarchos/saga"
)

func cancelCommand() *cli.Command {
	const usage = "cancel [<feature>] [--reason R] [--human] [--dry-run] [--skip-pr] [--json]"
	return &cli.Command{
		Name:      "cancel",
		Arguments: onFeature(),
		Usage:     "cancel a workflow: undo what it created (worktrees, branches, PRs) without losing work",
		UsageText: `git exarchos ` + usage + `

Records the request (the workflow enters cancelling), then compensates every recorded resource in
reverse creation order, one compensation.step event per step:
  - a task worktree with changes (modified, staged or untracked files) is first committed under
    refs/exarchos-rescue/<feature>/<task>, then removed (git worktree remove, git worktree prune);
  - a task branch is deleted only once merged into the workflow's branch or kept under that ref;
  - a linked open pull request is closed on GitHub with a comment naming the workflow and the
    reason (one already merged or closed is left alone); --skip-pr leaves it as it is.
    The token comes from GH_TOKEN, GITHUB_TOKEN or ` + "`gh auth token`" + `; GITHUB_API_URL overrides the API.
Then the workflow is cancelled. A step that fails (a locked worktree, a branch checked out
elsewhere) is recorded with the reason and the fix; the workflow stays cancelling and the next
cancel retries it. A cancel that was killed resumes where it stopped. See git exarchos rescue.

Past its planning phases a cancel drops the process the workflow is in, which is the user's
decision: the user runs it with --human. --dry-run needs no --human (it decides nothing) and says
when the cancel itself will need it.

Exits 1 with code CANCEL_INCOMPLETE when a step failed, 4 when it failed for want of GitHub access
(no token, a bad token, no write access, rate limited).

Examples:
   git exarchos cancel login --reason "superseded by sso"
   git exarchos cancel login --human --reason "superseded by sso"   # the user's, past planning
   git exarchos cancel login --dry-run          # the plan, and what each step would do
   git exarchos cancel login --skip-pr          # no GitHub access: leave the pull request open
   git exarchos cancel login --json`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "reason", Usage: "why"},
			&cli.BoolFlag{Name: "dry-run", Aliases: []string{"n"}, Usage: "print the plan and change nothing"},
			&cli.BoolFlag{Name: "human", Usage: "the user's decision (required once the workflow is past its planning phases)"},
			&cli.BoolFlag{Name: "skip-pr", Usage: "leave a linked pull request as it is (recorded as skipped by the user)"},
			jsonFlag,
		},
		Action: func(_ context.Context, c *cli.Command) error {
			r, err := openRepo()
			if err != nil {
				return err
			}
			res, err := saga.Cancel(r.Saga(), saga.CancelOptions{Feature: c.StringArg("feature"), Reason: c.String("reason"), DryRun: c.Bool("dry-run"), SkipPR: c.Bool("skip-pr"), Human: c.Bool("human")})
			var inc *saga.CancelIncompleteError
			if errors.As(err, &inc) && !c.Bool("json") {
				saga.WriteCancel(c.Root().Writer, inc.Result, boldIn(c.Root().Writer)) // the steps that ran; the error follows on stderr
			}
			if err != nil {
				return err
			}
			return emit(c, res, func(w io.Writer) { saga.WriteCancel(w, res, boldIn(w)) })
		},
	}
}

func pruneCommand() *cli.Command {
	const usage = "prune [--older-than AGE] [--dry-run | --apply] [--json]"
	return &cli.Command{
		Name:  "prune",
		Usage: "cancel stale workflows (branch gone, or idle) through the cancel saga; a dry run unless --apply",
		UsageText: `git exarchos ` + usage + `

Looks at every active workflow. One whose branch is gone (no local branch and no remote-tracking
branch), or that has recorded nothing and whose branch has had no commit for longer than
--older-than (default 14d), is stale. A stale workflow with an open pull request (as last observed:
git exarchos pr refresh), or whose branch has a commit on a remote within that time, is skipped.
Without --apply (or with --dry-run, the same, said aloud) nothing changes; with --apply each stale workflow is cancelled as git exarchos cancel
would (its worktrees preserved under refs/exarchos-rescue/ and removed, its branches kept or
deleted only when merged), with the reason "pruned: …".

Examples:
   git exarchos prune                       # what would be cancelled, and why
   git exarchos prune --dry-run --json      # the same, as JSON ("dryRun":true)
   git exarchos prune --older-than 30d --apply
   git exarchos prune --json`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "older-than", Value: "14d", Usage: "idle for longer than `AGE` (e.g. 14d, 36h)"},
			&cli.BoolFlag{Name: "apply", Usage: "cancel the stale workflows (default: a dry run)"},
			&cli.BoolFlag{Name: "dry-run", Aliases: []string{"n"}, Usage: "say what would be cancelled and change nothing (the default)"},
			jsonFlag,
		},
		Action: func(_ context.Context, c *cli.Command) error {
			if c.Bool("dry-run") && c.Bool("apply") {
				return usageErrf("--dry-run and --apply contradict each other: drop one (usage: git exarchos %s)", usage)
			}
			age, err := saga.ParseAge(c.String("older-than"))
			if err != nil {
				return err
			}
			r, err := openRepo()
			if err != nil {
				return err
			}
			res, err := saga.Prune(r.Saga(), saga.PruneOptions{OlderThan: age, Apply: c.Bool("apply")})
			if err != nil {
				return err
			}
			return emit(c, res, func(w io.Writer) {
				if len(res.Workflows) == 0 {
					printf(w, "no active workflows\n")
				}
				for _, it := range res.Workflows {
					verb := it.Action
					switch {
					case it.Cancelled:
						verb = "cancelled"
					case it.Error != "":
						verb = "cancel failed"
					case it.Action == "cancel":
						verb = "would cancel"
					}
					printf(w, "%-13s %s (%s, %s, branch %s): %s\n", verb, bold(w, it.Feature), it.Type, it.Phase, it.Branch, it.Reason)
					if it.Error != "" {
						printf(w, "  %s\n", strings.ReplaceAll(it.Error, "\n", "\n  "))
					}
				}
				if !res.Apply {
					printf(w, "dry run: nothing changed; run with --apply to cancel\n")
				}
			})
		},
	}
}
