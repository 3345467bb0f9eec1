package main

import (
	"context"
	"io"

	"github.com/urfave/cli/v3"

	"github.com/exarchos/git-exarchos/app"
	"github.com/exarchos/git-exarchos/project"
	"github.com/exarchos/git-exarchos/workflow"
)

// workflowCommand builds a command that runs one workflow.Command against an optional feature:
// args are the arguments after the feature, build makes the command from their values.
func workflowCommand(name, usage, usageText string, args []cli.Argument, flags []cli.Flag, build func(c *cli.Command, args []string) (workflow.Command, error), what func(*project.Result) string) *cli.Command {
	return &cli.Command{
		Name:      name,
		Usage:     usage,
		UsageText: usageText,
		Arguments: onFeature(args...),
		Flags:     append(flags, jsonFlag),
		Action: func(_ context.Context, c *cli.Command) error {
			feature, args := splitFeature(c)
			cmd, err := build(c, args)
			if err != nil {
				return err
			}
			r, err := openRepo()
			if err != nil {
				return err
			}
			res, err := app.Run(r, feature, cmd)
			if err != nil {
				return err
			}
			return emit(c, res, func(w io.Writer) { printResult(w, res, what(res)) })
		},
	}
}

func said(s string) func(*project.Result) string { return func(*project.Result) string { return s } }

func transitionsCommand() *cli.Command {
	return &cli.Command{
		Name:      "transitions",
		Arguments: onFeature(),
		Usage:     "list the ways out of the current phase, each guard's verdict and the fix",
		UsageText: "git exarchos transitions [<feature>] [--json]\n\nExamples:\n   git exarchos transitions\n   git exarchos transitions login --json",
		Flags:     []cli.Flag{jsonFlag},
		Action: func(_ context.Context, c *cli.Command) error {
			r, err := openRepo()
			if err != nil {
				return err
			}
			res, err := app.ListTransitions(r, app.TransitionsOptions{Feature: c.StringArg("feature")})
			if err != nil {
				return err
			}
			return emit(c, res, func(w io.Writer) {
				printf(w, "%s is in %s\n", bold(w, res.Feature), bold(w, res.Phase))
				for _, t := range res.Transitions {
					mark := "✗"
					if t.Allowed {
						mark = "✓"
					}
					printf(w, "%s %-22s %s\n", mark, t.To, t.Command)
					if t.Blocked != "" {
						printf(w, "    blocked: %s\n", t.Blocked)
					}
					for _, g := range t.Guards {
						if g.Failure == nil {
							printf(w, "    ✓ %s\n", g.Guard)
							continue
						}
						printf(w, "    ✗ %s: %s\n      fix: %s\n", g.Guard, g.Failure.Reason, g.Failure.Fix)
					}
				}
			})
		},
	}
}

func transitionCommand() *cli.Command {
	return workflowCommand("transition", "move a workflow to another phase, if its guards pass",
		`git exarchos transition [<feature>] <phase> [--json]

A rejected transition exits 3 and prints the valid targets and each failed guard's fix.

Examples:
   git exarchos transition login plan
   git exarchos transition plan-review          # the workflow bound to this branch`,
		[]cli.Argument{req("phase")}, nil, func(c *cli.Command, args []string) (workflow.Command, error) {
			return workflow.TransitionTo{Phase: args[0]}, nil
		}, func(r *project.Result) string { return "transitioned" })
}

func setCommand() *cli.Command {
	return &cli.Command{
		Name:      "set",
		Arguments: onFeature(many("assignments", 0, "<path>=<value>...")),
		Usage:     "set fields at dot paths (artifacts, track, free-form fields)",
		UsageText: `git exarchos set [<feature>] <path>=<value>... [--inline] [--json]

Values are JSON when they look like JSON, else plain strings. Artifacts are paths to files committed
on the workflow's branch; --inline records literal text instead (and marks it so). Reserved fields
(phase, type, feature, branch, ...) are refused.

Examples:
   git exarchos set login artifacts.design=docs/login-design.md
   git exarchos set crash-42 track=hotfix
   git exarchos set login notes.owner='"sam"' notes.priority=2
   git exarchos set login artifacts.plan="1. do X 2. do Y" --inline`,
		Flags: []cli.Flag{&cli.BoolFlag{Name: "inline", Usage: "artifact values are literal text, not paths"}, jsonFlag},
		Action: func(_ context.Context, c *cli.Command) error {
			args := argv(c)
			feature := ""
			if len(args) > 0 && !containsEq(args[0]) {
				feature, args = args[0], args[1:]
			}
			r, err := openRepo()
			if err != nil {
				return err
			}
			res, err := app.Set(r, app.SetOptions{Feature: feature, Assignments: args, Inline: c.Bool("inline")})
			if err != nil {
				return err
			}
			return emit(c, res, func(w io.Writer) { printResult(w, res, "set") })
		},
	}
}

func containsEq(s string) bool {
	for _, ch := range s {
		if ch == '=' {
			return true
		}
	}
	return false
}

func approveCommand() *cli.Command {
	return workflowCommand("approve", "approve the plan in plan-review (a human decision, recorded with the actor)",
		"git exarchos approve [<feature>] [--note N] [--json]\n\nExamples:\n   git exarchos approve login --note \"scope is right\"",
		nil, []cli.Flag{&cli.StringFlag{Name: "note", Usage: "why"}}, func(c *cli.Command, _ []string) (workflow.Command, error) {
			return workflow.Approve{Note: c.String("note")}, nil
		}, said("plan approved"))
}

func rejectCommand() *cli.Command {
	return workflowCommand("reject", "send the plan back with gaps; counts a revision (human)",
		"git exarchos reject [<feature>] --gaps \"…\" [--json]\n\nExamples:\n   git exarchos reject login --gaps \"no rollback plan; tests for expiry missing\"",
		nil, []cli.Flag{&cli.StringFlag{Name: "gaps", Required: true, Usage: "what the plan is missing"}}, func(c *cli.Command, _ []string) (workflow.Command, error) {
			return workflow.Reject{Gaps: c.String("gaps")}, nil
		}, said("plan rejected"))
}

func unblockCommand() *cli.Command {
	return workflowCommand("unblock", "reset an open circuit breaker or leave blocked (human, recorded)",
		"git exarchos unblock [<feature>] --reason R [--json]\n\nExamples:\n   git exarchos unblock login --reason \"reviewed the loop; one more try\"",
		nil, []cli.Flag{&cli.StringFlag{Name: "reason", Required: true, Usage: "why it is safe to go on"}}, func(c *cli.Command, _ []string) (workflow.Command, error) {
			return workflow.Unblock{Reason: c.String("reason")}, nil
		}, said("unblocked"))
}

func acknowledgeCommand() *cli.Command {
	return workflowCommand("acknowledge", "acknowledge a refused decision so verify passes again, reporting both (human, signed)",
		"git exarchos acknowledge [<feature>] <event-id|seq> --reason R [--json]\n\nExamples:\n   git exarchos status login --json   # refused[]: the seq and id of each refused decision\n   git exarchos acknowledge login 14 --reason \"my old key; re-approved with the new one\"",
		[]cli.Argument{req("event", "<event-id|seq>")}, []cli.Flag{&cli.StringFlag{Name: "reason", Required: true, Usage: "why the refused decision is harmless"}}, func(c *cli.Command, args []string) (workflow.Command, error) {
			return workflow.Acknowledge{Event: args[0], Reason: c.String("reason")}, nil
		}, said("refused decision acknowledged"))
}

func overrideCommand() *cli.Command {
	return workflowCommand("override", "make one guard pass for the current phase visit (human, recorded)",
		"git exarchos override [<feature>] <guard> --reason R [--json]\n\nExamples:\n   git exarchos override login tests-validated --reason \"CI is down; ran the suite by hand\"",
		[]cli.Argument{req("guard")}, []cli.Flag{&cli.StringFlag{Name: "reason", Required: true, Usage: "why the guard may be skipped"}}, func(c *cli.Command, args []string) (workflow.Command, error) {
			return workflow.OverrideGuard{Guard: args[0], Reason: c.String("reason")}, nil
		}, said("guard overridden"))
}

// cancelCommand is in cmd_cancel.go: cancel runs the saga.

func requestSynthesisCommand() *cli.Command {
	return workflowCommand("request-synthesis", "ask for a pull request: a oneshot with the on-request policy, or a debug hotfix, then ends through synthesize",
		"git exarchos request-synthesis [<feature>] [--reason R] [--json]\n\nExamples:\n   git exarchos request-synthesis tidy --reason \"touches the public API; wants review\"",
		nil, []cli.Flag{&cli.StringFlag{Name: "reason", Usage: "why a pull request is wanted"}}, func(c *cli.Command, _ []string) (workflow.Command, error) {
			return workflow.RequestSynthesis{Reason: c.String("reason")}, nil
		}, said("synthesis requested"))
}
