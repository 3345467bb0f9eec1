package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/urfave/cli/v3"

	"github.com/exarchos/git-exarchos/app"
	"github.com/exarchos/git-exarchos/project"
	"github.com/exarchos/git-exarchos/workflow"
)

func stageCommand() *cli.Command {
	done := &cli.Command{
		Name:      "done",
		Arguments: onFeature(req("stage")),
		Usage:     "complete a running stage of the fan-out the workflow is in (its completion, when it has a schema)",
		UsageText: "git exarchos stage done [<feature>] <stage> [--file F] [--json]\n\n" +
			"A stage with a completion schema hands in a JSON payload (--file, or stdin without it), validated\n" +
			"like submit's; one without hands in nothing. A stage cancelled by a sibling's failure is refused.\n\nExamples:\n" +
			"   git exarchos stage done login lint\n" +
			"   git exarchos stage done login test --file results.json",
		Flags: []cli.Flag{&cli.StringFlag{Name: "file", Aliases: []string{"f"}, Usage: "the completion (JSON; - or none: stdin) of a stage with a schema"}, jsonFlag},
		Action: func(_ context.Context, c *cli.Command) error {
			feature, args := splitFeature(c)
			r, err := openRepo()
			if err != nil {
				return err
			}
			var stdin io.Reader = os.Stdin
			if f := c.String("file"); (f == "" || f == "-") && terminal(os.Stdin) {
				stdin = nil // a person at a terminal: ask for --file rather than wait on the keyboard
			}
			res, err := app.StageDone(r, app.StageDoneOptions{Feature: feature, Stage: args[0], File: c.String("file"), Stdin: stdin})
			if err != nil {
				return err
			}
			return emit(c, res, func(w io.Writer) { printResult(w, res, "stage "+args[0]+" completed") })
		},
	}
	fail := workflowCommand("fail", "fail a running stage: its running siblings are cancelled with it (recorded)",
		"git exarchos stage fail [<feature>] <stage> --reason R [--json]\n\n"+
			"A fan-out stops at its first failure: the stages still running are cancelled, and what they hand\n"+
			"in later is refused. Leave the fan-out phase another way (git exarchos transitions) to run its\n"+
			"stages again on re-entry.\n\nExamples:\n"+
			"   git exarchos stage fail login test --reason \"TestLogin fails\"",
		[]cli.Argument{req("stage")}, []cli.Flag{&cli.StringFlag{Name: "reason", Usage: "why the stage failed (recorded)"}},
		func(c *cli.Command, args []string) (workflow.Command, error) {
			return workflow.FailStage{Stage: args[0], Reason: c.String("reason")}, nil
		},
		func(r *project.Result) string {
			return fmt.Sprintf("stage failed, %d running stage(s) cancelled", max(0, len(r.Appended)-1))
		})
	return &cli.Command{
		Name:  "stage",
		Usage: "complete or fail a parallel stage of a fan-out phase (definitions' stages: and fanouts:)",
		UsageText: `git exarchos stage done|fail [<feature>] <stage> [--file F | --reason R] [--json]

The stages of the fan-out phase the workflow is in, and their status, are in git exarchos status.

Examples:
   git exarchos stage done login lint
   git exarchos stage fail login test --reason "TestLogin fails"`,
		Commands: []*cli.Command{done, fail},
	}
}
