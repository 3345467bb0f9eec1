// Command git-exarchos is the CLI; git runs it as `git exarchos`. This package only wires: it parses
// flags into the app package's options, calls the app's Run functions, prints text or --json, and
// maps errors to exit codes (errors.go).
package main

import (
	"io"
	"os"
	"strings"

	"github.com/urfave/cli/v2"
)

func main() {
	os.Exit(run(os.Args, os.Stdin, os.Stdout, os.Stderr))
}

// commands is the list every command file adds itself to, in the order help shows them.
var commands []*cli.Command

// run executes one invocation and returns its exit code; tests and testscript call it directly.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	a := &cli.App{
		Name:      "git exarchos",
		HelpName:  "git exarchos",
		Usage:     "durable, enforced development workflows for AI agents and humans, stored in git",
		UsageText: "git exarchos <command> [options] [arguments]\n\nRun `git exarchos <command> -h` for a command's options and examples.\n(`git exarchos --help` asks git for a man page; use -h.)",
		Description: `Every workflow is a state machine whose transitions are guarded by facts (files committed on
the branch, PRs that exist, merges GitHub confirms). Every change is an event committed under
refs/exarchos/<feature>, so the state lives in the repository and survives any session.

Exit codes: 0 ok, 1 error, 2 usage, 3 rejected by the workflow, 4 GitHub auth or access,
5 concurrent update could not be applied after retries.`,
		Commands:             commands,
		Reader:               stdin,
		Writer:               stdout,
		ErrWriter:            stderr,
		EnableBashCompletion: true,
		HideHelpCommand:      true,
		ExitErrHandler:       func(*cli.Context, error) {},
		OnUsageError: func(c *cli.Context, err error, _ bool) error {
			return usageErr(err)
		},
		CommandNotFound: func(c *cli.Context, name string) {
			c.App.Metadata["notFound"] = name
		},
		Metadata: map[string]any{},
	}
	for _, c := range a.Commands {
		c.OnUsageError = a.OnUsageError
	}
	err := a.Run(intersperse(a.Commands, args))
	if name, ok := a.Metadata["notFound"].(string); ok && err == nil {
		err = usageErrf("unknown command %q: run `git exarchos -h` for the list", name)
	}
	if err == nil {
		return 0
	}
	if strings.HasPrefix(err.Error(), "Required flag") {
		err = usageErrf("%v: see `git exarchos %s -h`", err, strings.Join(args[1:min(len(args), 2)], " "))
	}
	return report(err, wantsJSON(args), stdout, stderr)
}
