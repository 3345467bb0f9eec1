package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/exarchos/git-exarchos/app"
)

func setupCommand() *cli.Command {
	return &cli.Command{
		Name:  "setup",
		Usage: "set a repository up in one step: hooks, MCP server, remote, CI verify workflow, your signing key",
		UsageText: `git exarchos setup [--plugin] [--remote <name>] [--signer] [--commit] [--auto-push] [--github] [--dry-run] [--json]

Does what a new repository needs, each step only if it is not done yet, so running it again
changes nothing: the Claude Code hooks (.claude/settings.json; with --plugin, none: the plugin
carries them and the MCP server), the MCP server (.mcp.json), the remote's fetch refspec for
workflows, and the CI verify workflow (.github/workflows/exarchos-verify.yml, as this version
ships it). It then offers what only a human should do: adding your SSH signing key (git config
gpg.format ssh, user.signingkey) to .exarchos/allowed_signers, and committing the files it wrote
on the base branch (never on a feature branch, where a planning phase counts them against the
workflow). On a terminal it asks; otherwise --signer and --commit say yes. In an agent's
environment (CLAUDECODE, CLAUDE_CODE_SESSION_ID, CLAUDE_CODE_ENTRYPOINT or AI_AGENT set) those
two are refused and left for the user to run in their own terminal. Last it offers
exarchos.autoPush (git push pushes the workflow refs too, so refusals reach CI) and, when the
remote is on GitHub, a ruleset on the base branch that requires the "exarchos verify" check and
refuses direct and force pushes (an admin's token; --github says yes). GitHub has no protection
for refs/exarchos/*: setup says so, and what stands in (verify --remember).

Each step prints done, already, skipped or left for a human, with its command; --dry-run changes
nothing and says what it would do.

Examples:
   git exarchos setup --dry-run
   git exarchos setup --signer --commit
   GH_TOKEN=<admin token> git exarchos setup --github --auto-push
   git exarchos setup --plugin --json`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "plugin", Usage: "the exarchos Claude Code plugin carries the hooks and the MCP server: write neither"},
			&cli.StringFlag{Name: "remote", Usage: "the remote `name` to set up (default: the upstream's, else origin)"},
			&cli.BoolFlag{Name: "signer", Usage: "add your signing key to .exarchos/allowed_signers without asking (a human's step)"},
			&cli.BoolFlag{Name: "commit", Usage: "commit the files setup wrote on the base branch without asking (a human's step)"},
			&cli.BoolFlag{Name: "auto-push", Usage: "set exarchos.autoPush without asking: git push pushes the workflow refs too"},
			&cli.BoolFlag{Name: "github", Usage: "add the base branch's ruleset on GitHub without asking (needs an admin's token; a human's step)"},
			&cli.BoolFlag{Name: "dry-run", Usage: "change nothing; say what would be done"},
			jsonFlag,
		},
		Action: func(_ context.Context, c *cli.Command) error {
			r, err := openRepo()
			if err != nil {
				return err
			}
			o := app.SetupOptions{Plugin: c.Bool("plugin"), Remote: c.String("remote"), Signer: c.Bool("signer"),
				Commit: c.Bool("commit"), DryRun: c.Bool("dry-run"), AutoPush: c.Bool("auto-push"), GitHub: c.Bool("github")}
			if !c.Bool("json") && terminal(os.Stdin) && terminal(c.Root().Writer) {
				o.Confirm = askYesNo(c.Root().Writer)
			}
			res, err := app.Setup(r, o)
			if err != nil {
				return err
			}
			return emit(c, res, func(w io.Writer) { printSetup(w, res) })
		},
	}
}

// askYesNo asks on the terminal; anything but y or yes is no.
func askYesNo(w io.Writer) func(string) bool {
	in := bufio.NewReader(os.Stdin)
	return func(q string) bool {
		printf(w, "%s [y/N] ", q)
		line, _ := in.ReadString('\n')
		a := strings.ToLower(strings.TrimSpace(line))
		return a == "y" || a == "yes"
	}
}

func printSetup(w io.Writer, res *app.SetupResult) {
	if res.DryRun {
		printf(w, "dry run: nothing changed\n")
	}
	for _, st := range res.Steps {
		line := fmt.Sprintf("%-7s %-14s", st.Step, st.Status)
		if len(st.Files) > 0 {
			line += " " + strings.Join(st.Files, ", ") + ":"
		}
		printf(w, "%s %s\n", line, st.Detail)
	}
	if len(res.Human) == 0 {
		printf(w, "nothing is left for a human\n")
		return
	}
	printf(w, "left for a human (in their own terminal):\n")
	for _, h := range res.Human {
		printf(w, "  %s\n", h)
	}
}
