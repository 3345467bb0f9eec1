package main

import (
	"context"
	"io"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/exarchos/git-exarchos/app"
	"github.com/exarchos/git-exarchos/views"
	"github.com/exarchos/git-exarchos/workflow"
)

func viewCommand() *cli.Command {
	return &cli.Command{
		Name:  "view",
		Usage: "views across workflows: the pipeline, the task board, review findings, the timeline, review convergence, stacks",
		UsageText: `git exarchos view pipeline|tasks|findings|timeline|convergence|stack … [--json]

Examples:
   git exarchos view pipeline
   git exarchos view tasks login
   git exarchos view findings login
   git exarchos view timeline login --format markdown
   git exarchos view convergence login
   git exarchos view stack`,
		Commands: []*cli.Command{viewPipelineCommand(), viewTasksCommand(), viewFindingsCommand(), viewTimelineCommand(), viewConvergenceCommand(), viewStackCommand()},
	}
}

func viewPipelineCommand() *cli.Command {
	return &cli.Command{
		Name:  "pipeline",
		Usage: "every workflow: phase, branch, age, what blocks it, the next step, the pull request",
		UsageText: `git exarchos view pipeline [--all] [--json]

The way out of each phase is evaluated as by git exarchos transitions (guards run); "human" marks a
workflow waiting on a human decision.

Examples:
   git exarchos view pipeline
   git exarchos view pipeline --all --json`,
		Flags: []cli.Flag{&cli.BoolFlag{Name: "all", Aliases: []string{"a"}, Usage: "include completed and cancelled workflows"}, jsonFlag},
		Action: func(_ context.Context, c *cli.Command) error {
			r, err := openRepo()
			if err != nil {
				return err
			}
			p, err := views.ShowPipeline(r.Hook(), views.PipelineOptions{All: c.Bool("all")}, r.ViewWorkflows())
			if err != nil {
				return err
			}
			return emit(c, p, func(w io.Writer) {
				if len(p.Workflows) == 0 {
					printf(w, "no workflows (start one with `git exarchos init <feature> --type feature`)\n")
				}
				for _, row := range p.Workflows {
					printf(w, "%s (%s) on %s: %s, age %s, idle %s%s\n", bold(w, row.Feature), row.Type, row.Branch, bold(w, row.Phase),
						duration(row.AgeSeconds), duration(row.IdleSeconds), taskCounts(row.Tasks))
					if pr := row.PR; pr != nil {
						state := pr.State
						if pr.Merged {
							state = "merged"
						}
						printf(w, "  pr:      #%d %s checks %s %s\n", pr.Number, state, orNone(pr.Checks), strings.ToLower(pr.ReviewDecision))
					}
					if row.Blocked != "" {
						who := ""
						if row.Human {
							who = " (waiting on a human)"
						}
						printf(w, "  blocked: %s%s\n", row.Blocked, who)
					}
					if row.Next != "" {
						printf(w, "  next:    %s\n", row.Next)
					}
				}
			})
		},
	}
}

func viewTasksCommand() *cli.Command {
	return &cli.Command{
		Name:      "tasks",
		Arguments: onFeature(),
		Usage:     "the task board of one workflow, or of every active one",
		UsageText: `git exarchos view tasks [<feature>] [--all] [--json]

Examples:
   git exarchos view tasks
   git exarchos view tasks login --json`,
		Flags: []cli.Flag{&cli.BoolFlag{Name: "all", Aliases: []string{"a"}, Usage: "without a feature: finished workflows too"}, jsonFlag},
		Action: func(_ context.Context, c *cli.Command) error {
			r, err := openRepo()
			if err != nil {
				return err
			}
			b, err := views.ShowTasks(r.Hook(), views.TasksOptions{Feature: c.StringArg("feature"), All: c.Bool("all")}, r.ViewWorkflows())
			if err != nil {
				return err
			}
			return emit(c, b, func(w io.Writer) {
				if len(b.Workflows) == 0 {
					printf(w, "no workflows\n")
				}
				for _, wt := range b.Workflows {
					printf(w, "%s (%s)%s\n", bold(w, wt.Feature), wt.Phase, taskCounts(wt.Counts))
					if len(wt.Tasks) == 0 {
						printf(w, "  no tasks (add one with `git exarchos task add %s <task-id> --title …`)\n", wt.Feature)
					}
					for _, t := range wt.Tasks {
						printf(w, "  [%s] %s %s", t.Status, t.ID, t.Title)
						if t.Reason != "" {
							printf(w, " — %s", t.Reason)
						}
						printf(w, "\n")
					}
					printFindings(w, "fix", wt.Findings)
				}
			})
		},
	}
}

func viewFindingsCommand() *cli.Command {
	return &cli.Command{
		Name:      "findings",
		Arguments: onFeature(),
		Usage:     "a workflow's open review findings: those that block (the fix cycle's) and those for the pull request",
		UsageText: `git exarchos view findings [<feature>] [--all] [--markdown] [--json]

Findings of the definition's blocking severity and above (high by default) keep the workflow in its
fix cycle until each is fixed and a review of the new tip does not repeat it, or a reviewer resolves
it (git exarchos review --resolve ID --note WHY). --markdown prints the open findings as a list for
the pull request's description.

Examples:
   git exarchos view findings
   git exarchos view findings login --all --json
   git exarchos view findings login --markdown`,
		Flags: []cli.Flag{&cli.BoolFlag{Name: "all", Aliases: []string{"a"}, Usage: "the closed findings too"},
			&cli.BoolFlag{Name: "markdown", Usage: "the open findings as a Markdown list, for the pull request's description"}, jsonFlag},
		Action: func(_ context.Context, c *cli.Command) error {
			r, err := openRepo()
			if err != nil {
				return err
			}
			f, err := app.ShowFindings(r, app.FindingsOptions{Feature: c.StringArg("feature"), All: c.Bool("all")})
			if err != nil {
				return err
			}
			return emit(c, f, func(w io.Writer) {
				if c.Bool("markdown") {
					printf(w, "### Review findings\n\n")
					if len(f.Blocking)+len(f.Open) == 0 {
						printf(w, "None open.\n")
					}
					for _, x := range append(slices.Clone(f.Blocking), f.Open...) {
						printf(w, "- **%s** `%s` (%s, %s): %s\n", x.Severity, x.Where(), x.Dimension, x.ID, strings.ReplaceAll(x.Text, "\n", " "))
					}
					return
				}
				printf(w, "%s (%s): %d blocking (%s and above), %d for the pull request\n", bold(w, f.Feature), f.Phase, len(f.Blocking), f.BlockAt, len(f.Open))
				printFindings(w, "blocking", f.Blocking)
				printFindings(w, "open", f.Open)
				for _, x := range f.Closed {
					how := x.Closed.By
					if x.Closed.Note != "" {
						how += ": " + x.Closed.Note
					}
					printf(w, "  closed   %s %s %s: %s (%s)\n", x.ID, x.Severity, x.Where(), x.Text, how)
				}
				if len(f.Blocking) > 0 {
					printf(w, "next: fix each blocking finding in a task (the fix cycle: git exarchos transitions %s), then review again\n", f.Feature)
				}
			})
		},
	}
}

// printFindings lists findings, one a line, under a label.
func printFindings(w io.Writer, label string, fs []workflow.Finding) {
	for _, f := range fs {
		printf(w, "  %-8s %s %s %s: %s\n", label, f.ID, f.Severity, f.Where(), f.Text)
	}
}

func taskCounts(counts map[string]int) string {
	if len(counts) == 0 {
		return ""
	}
	var parts []string
	for s, n := range counts {
		parts = append(parts, s+" "+strconv.Itoa(n))
	}
	sort.Strings(parts)
	return ", tasks: " + strings.Join(parts, ", ")
}

func duration(sec int64) string {
	d := time.Duration(sec) * time.Second
	switch {
	case d >= 48*time.Hour:
		return strconv.Itoa(int(d/(24*time.Hour))) + "d"
	case d >= time.Hour:
		return strconv.Itoa(int(d/time.Hour)) + "h"
	case d >= time.Minute:
		return strconv.Itoa(int(d/time.Minute)) + "m"
	}
	return strconv.Itoa(int(sec)) + "s"
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}
