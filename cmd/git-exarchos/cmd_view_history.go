package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/exarchos/git-exarchos/app"
	"github.com/exarchos/git-exarchos/views"
)

// formatFlag is the --format of the views a pull request's description can carry.
var formatFlag = &cli.StringFlag{Name: "format", Aliases: []string{"f"}, Value: "text", Usage: "text | json | markdown | mermaid"}

// drawn is a view that can be printed for a pull request.
type drawn interface {
	Markdown() string
	Mermaid() string
}

// drawnAction is the action of a view a pull request's description can carry: the format and
// arguments checked before any work, the repository opened, the view made by show, then printed
// as JSON, Markdown, Mermaid, or by text.
func drawnAction[V drawn](show func(r *app.Repo, c *cli.Command) (V, error), text func(w io.Writer, v V)) cli.ActionFunc {
	return func(_ context.Context, c *cli.Command) error {
		format := c.String("format")
		if c.Bool("json") {
			format = "json"
		}
		if !slices.Contains([]string{"text", "json", "markdown", "mermaid"}, format) {
			return usageErrf("--format %q: use text, json, markdown or mermaid", format)
		}
		r, err := openRepo()
		if err != nil {
			return err
		}
		v, err := show(r, c)
		if err != nil {
			return err
		}
		w := c.Root().Writer
		switch format {
		case "json":
			return emitJSON(c, v)
		case "markdown":
			_, err = fmt.Fprint(w, v.Markdown())
		case "mermaid":
			_, err = fmt.Fprint(w, v.Mermaid())
		default:
			text(w, v)
		}
		return err
	}
}

func viewTimelineCommand() *cli.Command {
	const usage = "git exarchos view timeline [<feature>] [--format text|json|markdown|mermaid] [--json]"
	return &cli.Command{
		Name:      "timeline",
		Arguments: onFeature(),
		Usage:     "who did what, when: every step of a workflow, each task's span, counts per agent and subagent",
		UsageText: usage + `

"who" is the subagent the client reported for the call that recorded a step (its type and id),
"main" for the session's own agent, "human" for a human decision. --format mermaid draws the tasks
as a Gantt chart; --format markdown is a table for the pull request's description.

Examples:
   git exarchos view timeline login
   git exarchos view timeline login --format markdown
   git exarchos view timeline login --json | jq '.byWho'`,
		Flags: []cli.Flag{formatFlag, jsonFlag},
		Action: drawnAction(func(r *app.Repo, c *cli.Command) (*views.Timeline, error) {
			return views.ShowTimeline(r.Hook(), views.TimelineOptions{Feature: c.StringArg("feature")})
		}, func(w io.Writer, tl *views.Timeline) {
			printf(w, "%s (%s), now in %s\n", bold(w, tl.Feature), tl.Type, bold(w, tl.Phase))
			for _, e := range tl.Entries {
				printf(w, "%4d  %s  %-14.14s  %-12.12s  %s\n", e.Seq, e.Time.UTC().Format("2006-01-02 15:04:05Z"), e.Who, e.Phase, e.Summary)
			}
			for _, t := range tl.Tasks {
				printf(w, "task %s [%s] %s, by %s\n", t.ID, t.Status, time.Duration(t.Seconds)*time.Second, orNone(t.Who))
			}
		}),
	}
}

func viewConvergenceCommand() *cli.Command {
	const usage = "git exarchos view convergence [<feature>] [--format text|json|markdown|mermaid] [--json]"
	return &cli.Command{
		Name:      "convergence",
		Arguments: onFeature(),
		Usage:     "review findings per dimension per fix cycle: whether review is converging, and the files it keeps naming",
		UsageText: usage + `

Each review of a dimension is a round: what it found (per severity), how many findings were new,
repeated from an earlier round, or closed (open before, not repeated), and how many stay open. A
dimension converges when its open findings went down or none are left.

Examples:
   git exarchos view convergence login
   git exarchos view convergence login --format mermaid
   git exarchos view convergence login --json | jq '.dimensions[] | select(.converging | not)'`,
		Flags: []cli.Flag{formatFlag, jsonFlag},
		Action: drawnAction(func(r *app.Repo, c *cli.Command) (*views.Convergence, error) {
			return views.ShowConvergence(r.Hook(), views.ConvergenceOptions{Feature: c.StringArg("feature")})
		}, func(w io.Writer, cv *views.Convergence) {
			printf(w, "%s (%s): %d fix cycle(s)\n", bold(w, cv.Feature), cv.Phase, cv.FixCycles)
			if len(cv.Dimensions) == 0 {
				printf(w, "  no reviews recorded\n")
			}
			for _, d := range cv.Dimensions {
				state := "not converging"
				if d.Converging {
					state = "converging"
				}
				printf(w, "  %s (%s)\n", bold(w, d.Dimension), state)
				for i, rd := range d.Rounds {
					printf(w, "    round %d, fix cycle %d: %s, found %s; %d new, %d repeated, %d closed, %d open\n",
						i+1, rd.FixCycle, rd.Verdict, rd.FoundText(), rd.New, rd.Repeated, rd.Closed, rd.Open)
				}
			}
			for _, h := range cv.Hotspots {
				printf(w, "  hotspot %s: %d finding(s)\n", h.File, h.Findings)
			}
		}),
	}
}

func viewStackCommand() *cli.Command {
	const usage = "git exarchos view stack [--all] [--format text|json|markdown|mermaid] [--json]"
	return &cli.Command{
		Name:  "stack",
		Usage: "workflows stacked on each other's branches, bottom first, with what blocks each",
		UsageText: usage + `

A workflow is stacked on another when its branch was started from the other's: the two share
commits the base does not have (read from git, not recorded). Each stack is listed bottom first; a
workflow merges after those below it ("merges after"), and its own way out is evaluated as by
git exarchos transitions.

Examples:
   git exarchos view stack
   git exarchos view stack --format markdown
   git exarchos view stack --json | jq '.stacks[][] | {feature, on, waitsFor}'`,
		Flags: []cli.Flag{&cli.BoolFlag{Name: "all", Aliases: []string{"a"}, Usage: "include completed and cancelled workflows"}, formatFlag, jsonFlag},
		Action: drawnAction(func(r *app.Repo, c *cli.Command) (*views.Stack, error) {
			return views.ShowStack(r.Hook(), views.StackOptions{All: c.Bool("all")}, r.ViewWorkflows())
		}, func(w io.Writer, st *views.Stack) {
			if len(st.Stacks) == 0 {
				printf(w, "no workflow is stacked on another (%d on %s alone)\n", st.Alone, st.Base)
			}
			for _, stack := range st.Stacks {
				for _, e := range stack {
					printf(w, "%s%s (%s) on %s: %s%s\n", strings.Repeat("  ", e.Depth), bold(w, e.Feature), e.Type, e.Branch, e.Phase, e.Holds())
				}
			}
		}),
	}
}
