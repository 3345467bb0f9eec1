package main

import (
	"context"
	"fmt"
	"io"

	"github.com/urfave/cli/v3"

	"github.com/exarchos/git-exarchos/engine"
	"github.com/exarchos/git-exarchos/teamsync"
)

var (
	pruneFlag   = &cli.BoolFlag{Name: "prune", Usage: "delete local workflows that were deleted on the remote (those changed here since are kept)"}
	retriesFlag = &cli.IntFlag{Name: "retries", Value: 3, Usage: "how often a rejected workflow is pulled, merged and pushed again"}
)

func pullCommand() *cli.Command {
	return &cli.Command{
		Name:      "pull",
		Arguments: []cli.Argument{opt("remote")},
		Usage:     "fetch teammates' workflows and merge them into yours",
		UsageText: `git exarchos pull [<remote>] [--prune] [--json]

Fetches refs/exarchos/* of the remote (default: the current branch's upstream remote, else origin)
into refs/exarchos-remotes/<remote>/*, then for each workflow creates it, fast-forwards it, or
writes a merge commit holding the events of both sides. Conflicts the merge brings in (two
transitions from one phase, a task completed here and failed there, a field set to two values) are
settled by the fold, listed here and in ` + "`git exarchos status`" + `.

Examples:
   git exarchos pull
   git exarchos pull upstream --json
   git exarchos pull --prune          # also delete workflows deleted on the remote`,
		Flags: []cli.Flag{pruneFlag, jsonFlag},
		Action: func(_ context.Context, c *cli.Command) error {
			remote := c.StringArg("remote")
			r, err := openRepo()
			if err != nil {
				return err
			}
			res, err := engine.Follow(r.Engine, func() (*teamsync.PullResult, error) {
				return teamsync.Pull(r.Repo, teamsync.PullOptions{Remote: remote, Prune: c.Bool("prune")})
			})
			if err != nil {
				return err
			}
			return emitResult(c, res, func(w io.Writer) { teamsync.WritePull(w, res, boldIn(w)) }, pullFailure(res))
		},
	}
}

func pushCommand() *cli.Command {
	return &cli.Command{
		Name:      "push",
		Arguments: []cli.Argument{opt("remote")},
		Usage:     "push your workflows that are ahead of the remote (never forced)",
		UsageText: `git exarchos push [<remote>] [--retries N] [--json]

Pushes every workflow whose local tip is ahead of the remote's, never forced. A workflow the remote
rejects because a teammate pushed first is fetched, merged and pushed again, up to --retries times.
Exits 5 when one is still rejected.

Examples:
   git exarchos push
   git exarchos push origin --json`,
		Flags: []cli.Flag{retriesFlag, jsonFlag},
		Action: func(_ context.Context, c *cli.Command) error {
			remote := c.StringArg("remote")
			r, err := openRepo()
			if err != nil {
				return err
			}
			res, err := engine.Follow(r.Engine, func() (*teamsync.PushResult, error) {
				return teamsync.Push(r.Repo, teamsync.PushOptions{Remote: remote, Retries: c.Int("retries")})
			})
			if err != nil {
				return err
			}
			return emitResult(c, res, func(w io.Writer) { teamsync.WritePush(w, res, boldIn(w)) }, pushFailure(res))
		},
	}
}

func syncCommand() *cli.Command {
	return &cli.Command{
		Name:      "sync",
		Arguments: []cli.Argument{opt("remote")},
		Usage:     "pull, then push",
		UsageText: `git exarchos sync [<remote>] [--prune] [--retries N] [--json]

Examples:
   git exarchos sync
   git exarchos sync origin --json`,
		Flags: []cli.Flag{pruneFlag, retriesFlag, jsonFlag},
		Action: func(_ context.Context, c *cli.Command) error {
			remote := c.StringArg("remote")
			r, err := openRepo()
			if err != nil {
				return err
			}
			res, err := engine.Follow(r.Engine, func() (*teamsync.SyncResult, error) {
				return teamsync.Sync(r.Repo, teamsync.SyncOptions{Remote: remote, Prune: c.Bool("prune"), Retries: c.Int("retries")})
			})
			if err != nil {
				return err
			}
			failure := pullFailure(res.Pull)
			if failure == nil {
				failure = pushFailure(res.Push)
			}
			return emitResult(c, res, func(w io.Writer) {
				teamsync.WritePull(w, res.Pull, boldIn(w))
				teamsync.WritePush(w, res.Push, boldIn(w))
			}, failure)
		},
	}
}

func remoteCommand() *cli.Command {
	return &cli.Command{
		Name:      "remote",
		Usage:     "configure remotes for workflows",
		UsageText: "git exarchos remote setup [<remote>] [--json]",
		Commands: []*cli.Command{{
			Name:      "setup",
			Arguments: []cli.Argument{opt("remote")},
			Usage:     "make a plain `git fetch` bring workflows too",
			UsageText: `git exarchos remote setup [<remote>] [--json]

Adds the fetch refspec +refs/exarchos/*:refs/exarchos-remotes/<remote>/* to the remote, so
` + "`git fetch`" + ` brings teammates' workflows next to yours (` + "`git exarchos pull`" + ` merges them).
Running it again changes nothing.

Examples:
   git exarchos remote setup
   git exarchos remote setup upstream`,
			Flags: []cli.Flag{jsonFlag},
			Action: func(_ context.Context, c *cli.Command) error {
				remote := c.StringArg("remote")
				r, err := openRepo()
				if err != nil {
					return err
				}
				res, err := teamsync.RemoteSetup(r.Repo, teamsync.RemoteSetupOptions{Remote: remote})
				if err != nil {
					return err
				}
				return emit(c, res, func(w io.Writer) {
					if res.Added {
						printf(w, "remote %s now fetches workflows: %s\n", res.Remote, res.Refspec)
					} else {
						printf(w, "remote %s already fetches workflows (%s)\n", res.Remote, res.Refspec)
					}
				})
			},
		}},
	}
}

func pullFailure(res *teamsync.PullResult) error {
	if n := res.Failures(); n > 0 {
		return fmt.Errorf("%w: %d workflow(s) could not be pulled (see above); the others were", errSyncFailed, n)
	}
	return nil
}

func pushFailure(res *teamsync.PushResult) error {
	if n := res.Counts[teamsync.Rejected]; n > 0 {
		return fmt.Errorf("%w: %d workflow(s) still rejected by %s after retries: run `git exarchos sync %s` again", errPushRejected, n, res.Remote, res.Remote)
	}
	if n := res.Counts[teamsync.Failed]; n > 0 {
		return fmt.Errorf("%w: %d workflow(s) could not be merged before pushing (see above)", errSyncFailed, n)
	}
	return nil
}
