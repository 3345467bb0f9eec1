package main

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/exarchos/git-exarchos/app"
	"github.com/exarchos/git-exarchos/views"
	"github.com/exarchos/git-exarchos/workflow"
)

// version is set at release time with -ldflags "-X main.version=v1.2.3".
var version = "dev"

// openRepo opens the repository enclosing the working directory (git -C has already chdir'ed).
func openRepo() (*app.Repo, error) {
	return app.Open(".")
}

type versionInfo struct {
	Version   string `json:"version"`
	Commit    string `json:"commit,omitempty"`
	Go        string `json:"go"`
	Format    int    `json:"storageFormat"`
	Projector string `json:"projector"`
	// JSONSchema is the version of the --json contract (docs/json.md).
	JSONSchema int `json:"jsonSchema"`
}

// jsonSchema is the version of the --json contract in docs/json.md: it changes when a field is
// removed or renamed or its meaning changes (new fields do not change it).
const jsonSchema = 1

func versionCommand() *cli.Command {
	return &cli.Command{
		Name:      "version",
		Usage:     "print the version, storage format and projector version",
		UsageText: "git exarchos version [--json]",
		Flags:     []cli.Flag{jsonFlag},
		Action: func(_ context.Context, c *cli.Command) error {
			info := versionInfo{Version: version, Go: runtime.Version(), Format: app.StoreFormatVersion, Projector: workflow.ProjectorVersion, JSONSchema: jsonSchema}
			if bi, ok := debug.ReadBuildInfo(); ok {
				if info.Version == "dev" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
					info.Version = bi.Main.Version
				}
				for _, s := range bi.Settings {
					if s.Key == "vcs.revision" {
						info.Commit = s.Value
					}
				}
			}
			return emit(c, info, func(w io.Writer) {
				printf(w, "git exarchos %s (storage format %d, projector %s, %s)\n", info.Version, info.Format, info.Projector, info.Go)
			})
		},
	}
}

func logCommand() *cli.Command {
	return &cli.Command{
		Name:      "log",
		Arguments: onFeature(),
		Usage:     "show a workflow's events",
		UsageText: `git exarchos log [<feature>] [--type T]... [--since-seq N] [--limit N] [--json]

Examples:
   git exarchos log login                      # every event of workflow "login"
   git exarchos log login --type workflow.transitioned
   git exarchos log --since-seq 120 --limit 10 --json`,
		Flags: []cli.Flag{
			&cli.StringSliceFlag{Name: "type", Usage: "only events of this type (repeatable)"},
			&cli.Int64Flag{Name: "since-seq", Usage: "only events with seq `N` or later"},
			&cli.IntFlag{Name: "limit", Usage: "at most `N` events"},
			jsonFlag,
		},
		Action: func(_ context.Context, c *cli.Command) error {
			r, err := openRepo()
			if err != nil {
				return err
			}
			res, err := views.Log(r.Hook(), views.LogOptions{Feature: c.StringArg("feature"), Types: c.StringSlice("type"), SinceSeq: c.Int64("since-seq"), Limit: c.Int("limit")})
			if err != nil {
				return err
			}
			return emit(c, res, func(w io.Writer) {
				for _, e := range res.Events {
					data := string(e.Data)
					if len(data) > 100 {
						data = data[:97] + "..."
					}
					printf(w, "%s %s %s %s %s\n", bold(w, fmt.Sprintf("#%d", e.Seq)), e.Time.Format("2006-01-02 15:04:05"), e.Type, strings.TrimSpace(e.Actor), data)
				}
				if len(res.Events) == 0 {
					printf(w, "no events match (the workflow has %d)\n", res.Total)
				}
			})
		},
	}
}

func fsckCommand() *cli.Command {
	return &cli.Command{
		Name:      "fsck",
		Arguments: onFeature(),
		Usage:     "verify stored workflows: segments parse, seq is dense, ids are unique, the snapshot equals the fold",
		UsageText: `git exarchos fsck [<feature>] [--json]

Exits 1 when a problem is found; each problem names its commit and path.

Examples:
   git exarchos fsck            # every workflow
   git exarchos fsck login --json`,
		Flags: []cli.Flag{jsonFlag},
		Action: func(_ context.Context, c *cli.Command) error {
			r, err := openRepo()
			if err != nil {
				return err
			}
			res, err := views.Fsck(r.Hook(), views.FsckOptions{Feature: c.StringArg("feature")})
			if err != nil {
				return err
			}
			var failure error
			if !res.OK() {
				failure = fmt.Errorf("%w: %d problem(s)", errFsckFailed, len(res.Problems))
			}
			return emitResult(c, res, func(w io.Writer) {
				for _, p := range res.Problems {
					where := p.Path
					if p.Feature != "" && p.Commit != "" {
						where = fmt.Sprintf("%s %s %s", p.Feature, p.Commit[:12], p.Path)
					} else if p.Feature != "" {
						where = p.Feature + " " + p.Path
					}
					printf(w, "%s: %s\n", where, p.Message)
					if p.Fix != "" {
						printf(w, "  fix: %s\n", p.Fix)
					}
				}
				printf(w, "checked %d workflow(s), %d problem(s)\n", len(res.Checked), len(res.Problems))
			}, failure)
		},
	}
}
