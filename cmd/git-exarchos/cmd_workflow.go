package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/exarchos/git-exarchos/app"
	"github.com/exarchos/git-exarchos/project"
	"github.com/exarchos/git-exarchos/views"
	"github.com/exarchos/git-exarchos/workflow"
)

// printResult is the text rendering shared by commands that change a workflow.
func printResult(w io.Writer, res *project.Result, what string) {
	st := res.State
	printf(w, "%s: %s; the %s workflow is in %s", bold(w, st.Feature), what, st.Type, bold(w, st.Phase))
	if n := len(res.Appended); n > 0 {
		printf(w, " (%d event(s) recorded at %s)\n", n, res.Head[:12])
	} else {
		printf(w, " (nothing to record)\n")
	}
	if len(res.Duplicates) > 0 {
		printf(w, "%d event(s) were already recorded (idempotency key) and were not written again\n", len(res.Duplicates))
	}
}

func initCommand() *cli.Command {
	return &cli.Command{
		Name:      "init",
		Arguments: []cli.Argument{req("feature")},
		Usage:     "start a workflow bound to a branch",
		UsageText: `git exarchos init <feature> --type T [--branch B] [--synthesis P] [--completion P] [--max-iterations N] [--human] [--json]

Types: ` + strings.Join(workflow.BuiltinTypes(), ", ") + ` (see git exarchos describe).
The feature id is 1-64 of a-z 0-9 . _ - ; the workflow lives in refs/exarchos/<feature>.

Examples:
   git exarchos init login --type feature               # bound to the current branch
   git exarchos init crash-42 --type debug --branch fix/crash-42
   git exarchos init tidy --type oneshot --synthesis on-request
   git exarchos init pairing --type loop --completion both --max-iterations 10`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "type", Aliases: []string{"t"}, Required: true, Usage: "workflow type: " + strings.Join(workflow.BuiltinTypes(), "|")},
			&cli.StringFlag{Name: "branch", Aliases: []string{"b"}, Usage: "branch the workflow works on (default: the current branch)"},
			&cli.StringFlag{Name: "synthesis", Usage: "oneshot only: always | never | on-request"},
			&cli.StringFlag{Name: "completion", Usage: "loop only: worker-done | reviewer-pass | both"},
			&cli.IntFlag{Name: "max-iterations", Usage: "loop only: fail after `N` iterations (default 20)"},
			&cli.BoolFlag{Name: "human", Usage: "the user's decision to start a workflow on a branch that had one (signed when the base branch lists allowed signers)"},
			jsonFlag,
		},
		Action: func(_ context.Context, c *cli.Command) error {
			if c.IsSet("max-iterations") && c.Int("max-iterations") < 1 {
				// 0 would otherwise read as "not given" and silently become the default.
				return usageErrf("--max-iterations must be a positive number (got %d); leave it out for the default (20)", c.Int("max-iterations"))
			}
			r, err := openRepo()
			if err != nil {
				return err
			}
			res, err := app.Init(r, app.InitOptions{Feature: c.StringArg("feature"), Type: c.String("type"), Branch: c.String("branch"),
				Synthesis: c.String("synthesis"), Completion: c.String("completion"), MaxIterations: c.Int("max-iterations"), Human: c.Bool("human")})
			if err != nil {
				return err
			}
			return emit(c, res, func(w io.Writer) {
				printf(w, "started %s (%s) on branch %s, phase %s\n", bold(w, res.Feature), res.State.Type, res.State.Branch, bold(w, res.State.Phase))
				printf(w, "next: git exarchos transitions %s\n", res.Feature)
			})
		},
	}
}

func statusCommand() *cli.Command {
	return &cli.Command{
		Name:      "status",
		Arguments: onFeature(),
		Usage:     "show a workflow's phase, artifacts, tasks, reviews and conflicts",
		UsageText: `git exarchos status [<feature>] [--fields a,b] [--format text|mermaid] [--json]

The feature may be left out: the active workflow bound to the current branch (never one bound to
another branch), or, on a detached HEAD, the only active one.
--format mermaid prints the type's state diagram with the path taken and the current phase marked.

Examples:
   git exarchos status
   git exarchos status login --json
   git exarchos status login --json --fields phase,tasks
   git exarchos status login --format mermaid > login.mmd`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "fields", Usage: "comma-separated top-level fields to print (JSON)"},
			&cli.StringFlag{Name: "format", Value: "text", Usage: "text | mermaid (the diagram, path taken marked)"},
			jsonFlag,
		},
		Action: func(_ context.Context, c *cli.Command) error {
			switch c.String("format") {
			case "text", "json":
			case "mermaid":
				return statusMermaid(c)
			default:
				return usageErrf("--format %q: use text or mermaid", c.String("format"))
			}
			var fields []string
			if f := c.String("fields"); f != "" {
				fields = strings.Split(f, ",")
			}
			o := app.StatusOptions{Feature: c.StringArg("feature"), Fields: fields}
			if c.Bool("json") || fields != nil { // a field selection only makes sense as JSON
				return printStatusJSON(c.Root().Writer, o)
			}
			r, err := openRepo()
			if err != nil {
				return err
			}
			o.Text = true
			res, err := app.ShowStatus(r, o)
			if err != nil {
				return err
			}
			res.Status.WriteText(c.Root().Writer, boldIn(c.Root().Writer))
			printTrust(c.Root().Writer, res.Status)
			return nil
		},
	}
}

// printStatusJSON is status's JSON: the snapshot's own JSON with head and trust (app.StatusJSON).
func printStatusJSON(w io.Writer, o app.StatusOptions) error {
	r, err := openRepo()
	if err != nil {
		return err
	}
	out, err := app.StatusJSON(r, o)
	if err != nil {
		return err
	}
	_, err = w.Write(append(out, '\n'))
	return err
}

// statusJSON answers `status --json [<feature>]` (the two words in either order) before the
// command tree is built, as main does for the hook: hooks and prompts ask for it constantly, and
// building the tree of every command to parse three words was a twentieth of the call. Any other
// shape (another flag, --fields, a second argument) goes through run; both print with
// printStatusJSON and report errors with report, so the output is one.
func statusJSON(args []string, stdout io.Writer) (int, bool) {
	if len(args) < 3 || len(args) > 4 || args[1] != "status" {
		return 0, false
	}
	feature, asJSON := "", false
	for _, a := range args[2:] {
		switch {
		case a == "--json" && !asJSON:
			asJSON = true
		case strings.HasPrefix(a, "-") || feature != "" || a == "help" || a == "h":
			return 0, false
		default:
			feature = a
		}
	}
	if !asJSON {
		return 0, false
	}
	if err := printStatusJSON(stdout, app.StatusOptions{Feature: feature}); err != nil {
		return report(err, true, stdout, io.Discard), true
	}
	return exitOK, true
}

// statusMermaid is status --format mermaid: the diagram, or with --json an object carrying it.
func statusMermaid(c *cli.Command) error {
	if c.String("fields") != "" {
		return usageErrf("--fields selects JSON fields; it does not combine with --format mermaid")
	}
	r, err := openRepo()
	if err != nil {
		return err
	}
	d, err := views.ShowStatusDiagram(r.Hook(), views.StatusDiagramOptions{Feature: c.StringArg("feature")})
	if err != nil {
		return err
	}
	return emit(c, d, func(w io.Writer) { printf(w, "%s", d.Mermaid) })
}

func listCommand() *cli.Command {
	return &cli.Command{
		Name:      "list",
		Usage:     "list workflows (active ones unless --all)",
		UsageText: "git exarchos list [--all] [--json]\n\nExamples:\n   git exarchos list\n   git exarchos list --all --json",
		Flags:     []cli.Flag{&cli.BoolFlag{Name: "all", Aliases: []string{"a"}, Usage: "include completed and cancelled workflows"}, jsonFlag},
		Action: func(_ context.Context, c *cli.Command) error {
			r, err := openRepo()
			if err != nil {
				return err
			}
			list, err := app.ListWorkflows(r, app.ListOptions{All: c.Bool("all")})
			if err != nil {
				return err
			}
			return emit(c, list, func(w io.Writer) {
				if len(list.Workflows) == 0 {
					printf(w, "%s\n", list.EmptyHint)
				}
				for _, s := range list.Workflows {
					printf(w, "%-24s %-10s %-22s %-20s %6d events\n", s.Feature, s.Type, s.Phase, s.Branch, s.Events)
				}
			})
		},
	}
}

func describeCommand() *cli.Command {
	return &cli.Command{
		Name:      "describe",
		Arguments: []cli.Argument{opt("type")},
		Usage:     "print workflow definitions: phases, transitions, guards, limits",
		UsageText: `git exarchos describe [<type>] [--format text|json|mermaid] [--json]

Examples:
   git exarchos describe                      # every type
   git exarchos describe feature --format mermaid > feature.mmd
   git exarchos describe debug --json

Inside a repository, the types it defines in .exarchos/workflows/*.yaml (at the tip of the base branch) are listed too.`,
		Flags: []cli.Flag{&cli.StringFlag{Name: "format", Aliases: []string{"f"}, Value: "text", Usage: "text | json | mermaid"}, jsonFlag},
		Action: func(_ context.Context, c *cli.Command) error {
			format := c.String("format")
			if c.Bool("json") {
				format = "json"
			}
			// Inside a repository, its own types (.exarchos/workflows at the base branch) are described too.
			r, _ := openRepo()
			res, err := app.Describe(r, app.DescribeOptions{Type: c.StringArg("type"), Format: format})
			if err != nil {
				return err
			}
			if format == "json" {
				return emitJSON(c, res)
			}
			_, err = fmt.Fprint(c.Root().Writer, res.Text)
			return err
		},
	}
}
