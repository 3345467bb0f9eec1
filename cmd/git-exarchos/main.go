// Command git-exarchos is the CLI; git runs it as `git exarchos`. This package only wires: it parses
// flags into the app package's options, calls the app's Run functions, prints text or --json, and
// maps errors to exit codes (errors.go). The command tree is commands.go.
//
// It may import app and every package below it, and urfave/cli v3; never mcpserver (the binary
// every hook runs does not link the MCP SDK). internal/archtest holds the rule.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"runtime/debug"
	"strings"

	"github.com/exarchos/git-exarchos/hookrun"
	"github.com/urfave/cli/v3"
)

func main() {
	// A call lives milliseconds: collecting garbage at the default 4 MiB heap cost list a tenth of
	// its time, so the first collection waits for 16 MiB (a larger heap still collects, at 5x).
	debug.SetGCPercent(400)
	os.Exit(dispatch(os.Args, os.Stdin, os.Stdout, os.Stderr))
}

// dispatch runs one invocation and returns its exit code. What runs on every tool call or prompt
// is answered before the command tree is built, to keep that work off the hot path: Claude Code's
// `git-exarchos hook claude`, and `status --json`. Everything else goes through run.
func dispatch(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if code, ok := claudeHook(args, stdin, stdout, stderr); ok {
		return code
	}
	if code, ok := statusJSON(args, stdout); ok {
		return code
	}
	return run(args, stdin, stdout, stderr)
}

// claudeHook answers `hook claude [--json] [--plugin]`, and the other clients' `hook codex|gemini|
// qwen|copilot [--json] [event]`, and reports whether it did, with the exit code: 0 with one JSON
// object on stdout, or 2 when the hook could not read its input — Claude Code (and Codex, Gemini
// CLI, Qwen Code) read exit 2 as a block, and show stderr to the model (the hook fails closed).
func claudeHook(args []string, stdin io.Reader, stdout, stderr io.Writer) (int, bool) {
	if len(args) < 3 || args[1] != "hook" || !hookrun.IsClient(args[2]) || len(args) > 5 {
		return 0, false
	}
	o := hookrun.ClaudeHookOptions{Stdin: stdin, Stdout: stdout, Stderr: stderr, StartMonitor: monitorStarter()}
	if args[2] != "claude" {
		o.Client = args[2]
	}
	seen := map[string]bool{}
	for _, a := range args[3:] {
		switch {
		case a == "--json" && !seen[a], a == "--plugin" && !seen[a] && o.Client == "":
			seen[a] = true
		case o.Client != "" && o.Event == "" && a != "" && !strings.HasPrefix(a, "-"):
			o.Event = a // Copilot's payload does not name its event: the installed command does
		default:
			return 0, false // the command tree reports the usage error
		}
	}
	o.FromPlugin = seen["--plugin"]
	if err := hookrun.ClaudeHook(o); errors.Is(err, hookrun.ErrHookBlock) {
		body := classify(err) // Claude Code ignores stdout on exit 2; --json callers get the error object
		if body.Message == "" {
			body.Message = err.Error()
		}
		_ = json.NewEncoder(stdout).Encode(map[string]errorBody{"error": body})
		return body.Exit, true
	}
	return exitOK, true
}

// newApp is the CLI over the command tree: the root command.
func newApp(stdin io.Reader, stdout, stderr io.Writer) *cli.Command {
	cmds, shown := commandTree()
	cli.FlagStringer, cli.SubcommandHelpTemplate = flagString, groupHelpTemplate // help as v2 printed it (commands.go)
	return &cli.Command{
		Name:      "git exarchos",
		Usage:     "durable, enforced development workflows for AI agents and humans, stored in git",
		UsageText: "git exarchos <command> [options] [arguments]\n\nRun `git exarchos help <command>` (or `git exarchos <command> -h`) for a command's options and examples;\n`git exarchos --help` and `git help exarchos` open the man page.",
		Description: `Every workflow is a state machine whose transitions are guarded by facts (files committed on
the branch, PRs that exist, merges GitHub confirms). Every change is an event committed under
refs/exarchos/<feature>, so the state lives in the repository and survives any session.

Exit codes: 0 ok, 1 error, 2 usage, 3 rejected by the workflow, 4 GitHub auth or access,
5 concurrent update could not be applied after retries.`,
		Commands:                      cmds,
		Reader:                        stdin,
		Writer:                        stdout,
		ErrWriter:                     stderr,
		HideVersion:                   true, // --version runs the version command
		CustomRootCommandHelpTemplate: appHelpTemplate,
		ExitErrHandler:                func(context.Context, *cli.Command, error) {}, // run maps errors to exit codes; the library must not exit
		OnUsageError:                  onUsageError,
		Metadata:                      map[string]any{"groups": shown},
		DisableSliceFlagSeparator:     true,
	}
}

// onUsageError makes the library's flag errors usage errors (exit 2).
func onUsageError(_ context.Context, _ *cli.Command, err error, _ bool) error { return usageErr(err) }

// readsTree are the commands that read the whole command tree when they run.
var readsTree = map[string]bool{"help": true, "man": true}

// completing: the completion scripts ask for the candidates after the words typed by adding
// urfave's --generate-shell-completion; urfave answers through each command's ShellComplete
// (completeArgs, cmd_help.go), and the command line is not checked, as it is unfinished.
func completing(args []string) bool {
	return len(args) > 1 && args[len(args)-1] == "--generate-shell-completion"
}

// run executes one invocation and returns its exit code; tests and testscript call it directly.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	asJSON := wantsJSON(args)
	a := newApp(stdin, stdout, stderr)
	if completing(args) {
		a.EnableShellCompletion, a.ShellCompletionCommandName = true, "__completion-script" // urfave's own, hidden: ours is completion
		_ = a.Run(context.Background(), args)
		return exitOK
	}
	inv, err := normalize(a.Commands, args)
	if err != nil {
		return report(err, asJSON, stdout, stderr)
	}
	if inv.help && inv.cmd == nil {
		inv.args = []string{args[0], "help"} // the root's -h: the help command (urfave adds no -h flag beside it)
	}
	// urfave/cli v3 prepares every command of the tree it is given (help flags, name checks) before
	// it runs one: a third of a millisecond for the whole tree. A call that is not for help, nor to a
	// command that reads the tree, is given a root holding its own command only.
	if !inv.help && len(inv.path) > 0 {
		if top := find(a.Commands, inv.path[0]); !readsTree[top.Name] {
			a.Commands = []*cli.Command{top}
		}
	}
	if inv.help && asJSON {
		// One JSON object even for help: the text, under "help".
		var buf bytes.Buffer
		a.Writer = &buf
		if err := a.Run(context.Background(), inv.args); err != nil {
			return report(err, true, stdout, stderr)
		}
		b, _ := json.Marshal(map[string]string{"help": buf.String()})
		stdout.Write(append(b, '\n'))
		return exitOK
	}
	if err := a.Run(context.Background(), inv.args); err != nil {
		return report(err, asJSON, stdout, stderr)
	}
	return exitOK
}
