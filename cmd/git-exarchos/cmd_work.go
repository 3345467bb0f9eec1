package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/exarchos/git-exarchos/app"
	"github.com/exarchos/git-exarchos/ghevidence"
	"github.com/exarchos/git-exarchos/project"
	"github.com/exarchos/git-exarchos/workflow"
)

func taskCommand() *cli.Command {
	sub := func(name, usage, example string, flags []cli.Flag, build func(c *cli.Command, id string) workflow.Command) *cli.Command {
		var opts string
		for _, f := range flags {
			opts += fmt.Sprintf(" [--%s %s]", f.Names()[0], strings.ToUpper(f.Names()[0][:1]))
		}
		return workflowCommand(name, usage, fmt.Sprintf("git exarchos task %s [<feature>] <task-id>%s [--json]\n\nExamples:\n   %s", name, opts, example),
			[]cli.Argument{req("task-id")}, flags, func(c *cli.Command, args []string) (workflow.Command, error) { return build(c, args[0]), nil },
			func(r *project.Result) string { return "task " + name })
	}
	return &cli.Command{
		Name:  "task",
		Usage: "manage the task board: add, start, done, fail",
		UsageText: `git exarchos task add|start|done|fail [<feature>] <task-id> [--title T] [--json]

Examples:
   git exarchos task add login t1 --title "session store"
   git exarchos task start login t1 --worktree
   git exarchos task done login t1`,
		Commands: []*cli.Command{
			sub("add", "add a task", `git exarchos task add login t1 --title "session store"`,
				[]cli.Flag{&cli.StringFlag{Name: "title", Usage: "what the task is"}},
				func(c *cli.Command, id string) workflow.Command {
					return workflow.AddTask{ID: id, Title: c.String("title")}
				}),
			taskStartCommand(), // cmd_worktree.go: --worktree
			taskDoneCommand(),  // cmd_worktree.go: records the task branch head
			sub("fail", "mark a task failed", `git exarchos task fail login t1 --reason "blocked on API"`,
				[]cli.Flag{&cli.StringFlag{Name: "reason", Usage: "why it failed"}},
				func(c *cli.Command, id string) workflow.Command {
					return workflow.FailTask{ID: id, Reason: c.String("reason")}
				}),
		},
	}
}

func reviewCommand() *cli.Command {
	usageLine := "review [<feature>] <dimension> [pass|fail] [--finding SEVERITY:FILE:LINE:TEXT]... [--findings-file F|-] [--note N] [--human] [--resolve ID] [--dry-run] [--json]"
	return &cli.Command{
		Name:      "review",
		Arguments: onFeature(req("dimension"), opt("verdict", "[pass|fail]")),
		Usage:     "record a review verdict for one dimension, with its findings; or resolve a finding",
		UsageText: `git exarchos ` + usageLine + `
git exarchos review [<feature>] --resolve ID --note WHY [--human] [--json]
git exarchos review import [<feature>] [--dry-run] [--json]

Dimensions: feature needs spec and quality; refactor overhaul needs quality; debug thorough needs review.
The verdict is bound to the branch tip it judged: only verdicts on the current tip, given since
the workflow entered the review phase, count. A fix cycle (back to delegate) needs a fail.

Findings (repeat --finding, or a JSON array in --findings-file, - for stdin; at most 100 a call):
severity critical, high, medium, low or info; a file of the judged commit; a line (0: the whole
file); the text. Findings of high and above (the definition's findingsBlockAt) block: without a
verdict the findings decide it (fail when one blocks), a pass with one is refused, and the way out
of review stays shut until each is fixed and a review of the new tip does not repeat it, or a
reviewer resolves it (--resolve ID --note WHY). The rest are listed for the pull request
(git exarchos view findings --markdown).

Examples:
   git exarchos review login spec pass
   git exarchos review login quality fail --note "error paths untested"
   git exarchos review login quality --finding 'high:app/login.go:42:the error from Close is dropped' \
       --finding 'low:app/login.go:0:the file name says nothing'
   git exarchos review login quality --findings-file findings.json
   git exarchos review login --resolve f3a9c01b2 --note "false positive: checked by the caller"
   git exarchos review import login       # the pull request's review threads as findings

review import reads the linked pull request's review comments (every page) and which threads are
resolved, and records each open thread as a finding of dimension github (so "import" is no
dimension's name): CodeRabbit's tiers map to severities (Critical: critical; Major or a potential
issue: high; Minor or a refactor suggestion: medium; Trivial or a nitpick: low), Copilot's
suggestions are medium, a person's comment is medium unless it starts with its weight ("blocking:",
"nit:", "high:", "question:"). A thread's finding keeps its id, so importing again adds only what
changed; a thread resolved (or deleted) on GitHub closes its finding. Blocking ones keep review shut
and, in synthesize, open the fix cycle. --dry-run reads GitHub and records nothing.`,
		Flags: []cli.Flag{&cli.StringFlag{Name: "note", Usage: "what the reviewer found; with --resolve, why the finding is closed"},
			&cli.BoolFlag{Name: "human", Usage: "a human's decision (definitions with reviewBy: human)"},
			&cli.StringSliceFlag{Name: "finding", Usage: "a finding, SEVERITY:FILE:LINE:TEXT (repeatable)"},
			&cli.StringFlag{Name: "findings-file", Usage: "a JSON array of {severity, file, line, text}; - reads stdin"},
			&cli.StringFlag{Name: "resolve", Usage: "close the finding with this id (--note says why)"},
			&cli.BoolFlag{Name: "dry-run", Usage: "with import: read GitHub and say what would be recorded; record nothing"},
			jsonFlag},
		Action: func(_ context.Context, c *cli.Command) error {
			if a := argv(c); len(a) > 0 && a[0] == "import" {
				return reviewImport(c)
			}
			if c.Bool("dry-run") {
				return usageErrf("--dry-run goes with git exarchos review import [<feature>]")
			}
			o := app.ReviewOptions{Note: c.String("note"), Human: c.Bool("human"), Findings: c.StringSlice("finding"),
				FindingsFile: c.String("findings-file"), Stdin: c.Root().Reader, Resolve: c.String("resolve")}
			args := argv(c)
			switch {
			case o.Resolve != "" && len(args) <= 1:
				o.Feature = c.StringArg("feature")
			case o.Resolve != "":
				return usageErrf("--resolve closes one finding: give it alone, git exarchos review [<feature>] --resolve ID --note WHY")
			case len(args) == 3:
				o.Feature, o.Dimension, o.Verdict = args[0], args[1], args[2]
			case len(args) == 2 && (args[1] == "pass" || args[1] == "fail"):
				o.Dimension, o.Verdict = args[0], args[1]
			case len(args) == 2:
				o.Feature, o.Dimension = args[0], args[1]
			case len(args) == 1:
				o.Dimension = args[0]
			default:
				return usageErrf("usage: git exarchos %s", usageLine)
			}
			if o.FindingsFile == "-" && terminal(os.Stdin) {
				// A person at a terminal would otherwise see nothing happen.
				fmt.Fprintf(c.Root().ErrWriter, "reading the findings (a JSON array) from the terminal; end them with Ctrl-D, or pass --findings-file F\n")
			}
			r, err := openRepo()
			if err != nil {
				return err
			}
			res, err := app.Review(r, o)
			if err != nil {
				return err
			}
			return emit(c, res, func(w io.Writer) {
				what := "review recorded"
				if o.Resolve != "" {
					what = "finding " + o.Resolve + " resolved"
				}
				printResult(w, res.Result, what)
				if f := res.Findings; len(f.Blocking)+len(f.Open) > 0 {
					printf(w, "open findings: %d blocking (%s and above), %d for the pull request (git exarchos view findings %s)\n", len(f.Blocking), f.BlockAt, len(f.Open), f.Feature)
					printFindings(w, "blocking", f.Blocking)
				}
			})
		},
	}
}

func validateCommand() *cli.Command {
	return &cli.Command{
		Name:      "validate",
		Arguments: onFeature(many("command", 0, "-- <cmd> [args...]")),
		Usage:     "run a validation command on the workflow's branch and record its result",
		UsageText: `git exarchos validate [<feature>] -- <cmd> [args...] [--json before --]

With no command (git exarchos validate [<feature>]), the declared validation runs: the phase's commands in the workflow definition,
else one command a line from .exarchos/validate on the base branch; only a declared command on
the branch tip satisfies the validation guard. A command after -- that is not declared is
recorded as ad hoc.

The command runs in the worktree where the workflow's branch is checked out; its exit status,
duration and the commit it ran on are recorded. Only a run on the current branch tip counts for
guards. The command's own output goes to stderr. Exits 1 when the command failed.

Examples:
   git exarchos validate login -- go test ./...
   git exarchos validate --json -- make check`,
		Flags: []cli.Flag{jsonFlag},
		Action: func(_ context.Context, c *cli.Command) error {
			args := argv(c)
			feature := ""
			sep := -1
			for i, a := range args {
				if a == "--" {
					sep = i
					break
				}
			}
			var command []string
			if sep >= 0 {
				if sep == 1 {
					feature = args[0]
				} else if sep > 1 {
					return usageErrf("usage: git exarchos validate [<feature>] -- <cmd> [args...]")
				}
				command = args[sep+1:]
			} else if len(args) <= 1 {
				feature = c.StringArg("feature") // no command: run the declared validation
			} else {
				return usageErrf("put the command after --: git exarchos validate [<feature>] -- <cmd> [args...]")
			}
			r, err := openRepo()
			if err != nil {
				return err
			}
			res, err := app.Validate(r, app.ValidateOptions{Feature: feature, Command: command, Output: c.Root().ErrWriter})
			if err != nil {
				return err
			}
			var failure error
			if v := res.Validation; v.ExitCode != 0 {
				failure = fmt.Errorf("%w: `%s` exited %d (recorded)", errValidationFailed, v.Command, v.ExitCode)
			}
			return emitResult(c, res, func(w io.Writer) {
				v := res.Validation
				adHoc := ""
				if v.AdHoc {
					adHoc = ", ad hoc: not a declared validation, it satisfies no guard"
				}
				printf(w, "%s: `%s` exited %d in %d ms on %s (recorded%s)\n", res.Feature, v.Command, v.ExitCode, v.DurationMs, v.Commit[:12], adHoc)
			}, failure)
		},
	}
}

func eventCommand() *cli.Command {
	return &cli.Command{
		Name:      "event",
		Arguments: onFeature(req("event-type")),
		Usage:     "append a custom event (the engine's own types are refused)",
		UsageText: `git exarchos event [<feature>] <event-type> [--data JSON] [--idempotency-key K] [--json]

With --idempotency-key, an event with that key already in the log is not appended again.

Examples:
   git exarchos event login note.added --data '{"text":"spoke to security"}'
   git exarchos event login ci.run --data '{"url":"..."}' --idempotency-key ci-4711`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "data", Usage: "payload (JSON)"},
			&cli.StringFlag{Name: "idempotency-key", Usage: "record at most once under this `key`"},
			jsonFlag,
		},
		Action: func(_ context.Context, c *cli.Command) error {
			feature, args := splitFeature(c)
			r, err := openRepo()
			if err != nil {
				return err
			}
			res, err := app.AppendEvent(r, app.EventOptions{Feature: feature, Type: args[0], Data: c.String("data"), IdempotencyKey: c.String("idempotency-key")})
			if err != nil {
				return err
			}
			return emit(c, res, func(w io.Writer) { printResult(w, res, "event "+args[0]) })
		},
	}
}

func loopCommand() *cli.Command {
	sig := func(name, usage string) *cli.Command {
		return workflowCommand(name, usage, fmt.Sprintf("git exarchos loop %s [<feature>] [--json]", name), nil, nil,
			func(*cli.Command, []string) (workflow.Command, error) { return workflow.Signal{Signal: name}, nil },
			said("loop "+name))
	}
	// fail-now and error end the loop as failed and say why.
	failing := func(name, usage string) *cli.Command {
		return workflowCommand(name, usage, fmt.Sprintf("git exarchos loop %s [<feature>] --reason R [--json]", name), nil,
			[]cli.Flag{&cli.StringFlag{Name: "reason", Required: true, Usage: "why the loop fails"}},
			func(c *cli.Command, _ []string) (workflow.Command, error) {
				return workflow.Signal{Signal: name, Reason: c.String("reason")}, nil
			},
			said("loop "+name))
	}
	return &cli.Command{
		Name:  "loop",
		Usage: "signal a loop workflow: the worker is done, the reviewer passes or fails",
		UsageText: `git exarchos loop done|pass|fail|fail-now|error [<feature>] [--reason R] [--json]

Signals are explicit commands, never parsed from text. The completion policy (reviewer-pass,
worker-done, both, any) and the iteration limit are fixed at init. fail-now (worker or reviewer)
fails the loop at once; error says an agent failed, to start (in init) or while working.

Examples:
   git exarchos loop done pairing      # worker: ready for review
   git exarchos loop fail pairing      # reviewer: back to work (one iteration)
   git exarchos loop pass pairing      # reviewer: accepted
   git exarchos loop fail-now pairing --reason "the approach cannot work"
   git exarchos loop error pairing --reason "the worker agent crashed"`,
		Commands: []*cli.Command{sig("done", "worker: the work is ready for review"), sig("pass", "reviewer: accept"), sig("fail", "reviewer: send back to work"),
			failing("fail-now", "worker or reviewer: the loop fails now"), failing("error", "an agent failed (to start, or while working): the loop fails")},
	}
}

// reviewImport is `git exarchos review import [<feature>]` (a word of review's, not a subcommand:
// review's own first argument is a feature or a dimension).
func reviewImport(c *cli.Command) error {
	args := argv(c)
	if len(args) > 2 {
		return usageErrf("usage: git exarchos review import [<feature>] [--dry-run]")
	}
	if c.String("note") != "" || c.Bool("human") || len(c.StringSlice("finding")) > 0 || c.String("findings-file") != "" || c.String("resolve") != "" {
		return usageErrf("review import takes only --dry-run and --json: the findings come from the pull request")
	}
	r, err := openRepo()
	if err != nil {
		return err
	}
	res, err := ghevidence.ImportReviews(r.GitHub(), ghevidence.ReviewImportOptions{Feature: append(args, "")[1], DryRun: c.Bool("dry-run")})
	if err != nil {
		return err
	}
	for _, w := range res.Warnings {
		fmt.Fprintf(c.Root().ErrWriter, "warning: %s\n", w)
	}
	return emit(c, res, func(w io.Writer) {
		open := 0
		for _, t := range res.Threads {
			state := "open    "
			if t.Resolved {
				state = "resolved"
			} else {
				open++
			}
			printf(w, "  %s %s %-8s %s:%d (%s) %s\n", state, t.ID, t.Severity, t.File, t.Line, t.Source, t.Text)
		}
		verb := "recorded"
		if res.DryRun {
			verb = "would record"
		}
		if res.Changed {
			printf(w, "%s: %d thread(s) on pull request #%d, %d open; %s the changes (git exarchos view findings %s)\n", bold(w, res.Feature), len(res.Threads), res.PR, open, verb, res.Feature)
		} else {
			printf(w, "%s: %d thread(s) on pull request #%d, %d open; nothing new since the last import\n", bold(w, res.Feature), len(res.Threads), res.PR, open)
		}
	})
}
