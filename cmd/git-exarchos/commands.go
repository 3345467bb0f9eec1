package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/urfave/cli/v3"
)

// The command tree, in the groups and order `git exarchos -h` shows. Adding a command is one entry
// here; the help, the man page, the completion and the command list in docs/commands.md all come from it.
func commandGroups() []struct {
	Name     string
	Commands func() []*cli.Command
} {
	return []struct {
		Name     string
		Commands func() []*cli.Command
	}{
		{"start and inspect", func() []*cli.Command {
			return []*cli.Command{initCommand(), statusCommand(), listCommand(), transitionsCommand(), describeCommand(),
				logCommand(), auditCommand(), rehydrateCommand(), viewCommand()}
		}},
		{"move a workflow", func() []*cli.Command {
			return []*cli.Command{transitionCommand(), setCommand(), submitCommand(), stageCommand(), validateCommand(), eventCommand(),
				loopCommand(), requestSynthesisCommand(), checkpointCommand(), runbookCommand(), cancelCommand()}
		}},
		{"human decisions", func() []*cli.Command {
			return []*cli.Command{approveCommand(), rejectCommand(), overrideCommand(), unblockCommand(), grantCommand(), budgetCommand(), acknowledgeCommand()}
		}},
		{"trust", func() []*cli.Command { return []*cli.Command{signersCommand(), verifyCommand()} }},
		{"tasks and reviews", func() []*cli.Command {
			return []*cli.Command{taskCommand(), reviewCommand(), rescueCommand()}
		}},
		{"GitHub", func() []*cli.Command { return []*cli.Command{prCommand(), cleanupCommand()} }},
		{"team", func() []*cli.Command {
			return []*cli.Command{pullCommand(), pushCommand(), syncCommand(), remoteCommand()}
		}},
		{"hooks", func() []*cli.Command {
			return []*cli.Command{setupCommand(), hooksCommand(), hookCommand(), mcpCommand()}
		}},
		{"maintenance", func() []*cli.Command {
			return []*cli.Command{doctorCommand(), fsckCommand(), pruneCommand(), lintCommand(), hiddenAlias(lintCommand(), "lint-workflow"), versionCommand(), helpCommand(), completionCommand(),
				manCommand()}
		}},
	}
}

// hiddenAlias is cmd under a name it had before, so that scripts using it keep working; help,
// completion and the docs show only the current name. Command names are single words (a verb or a
// noun), a group's subcommands name what is done to it (task add, hooks install), and a name of two
// words is hyphenated as git's are (request-synthesis, loop fail-now; git request-pull).
func hiddenAlias(cmd *cli.Command, old string) *cli.Command {
	cmd.Name, cmd.Hidden = old, true
	return cmd
}

// group is one heading of the root help: its name and its visible commands.
type group struct {
	Name     string
	Commands []*cli.Command
}

// commandTree builds the commands afresh (a cli.Command is mutated by running it) and prepares
// every one of them the same way: its category, and no implicit `help` subcommand on a command
// without subcommands, so that `h` and `help` are ordinary arguments (valid feature ids).
func commandTree() ([]*cli.Command, []group) {
	var all []*cli.Command
	var shown []group
	for _, g := range commandGroups() {
		cmds := g.Commands()
		visible := group{Name: g.Name}
		for _, c := range cmds {
			c.Category = g.Name
			prepare(c)
			if !c.Hidden {
				visible.Commands = append(visible.Commands, c)
			}
		}
		all = append(all, cmds...)
		shown = append(shown, visible)
	}
	return all, shown
}

func prepare(c *cli.Command) {
	c.OnUsageError = onUsageError
	if len(c.Commands) == 0 {
		c.HideHelpCommand = true
		c.ArgsUsage = argsUsage(c.Arguments)
		if c.ShellComplete == nil {
			c.ShellComplete = completeArgs
		}
		return
	}
	if c.Action == nil {
		// A group run without a subcommand is a usage error (one JSON object with --json, exit 2).
		c.Action = func(_ context.Context, c *cli.Command) error {
			return usageError{msg: "name a subcommand of " + c.FullName() + ": " + strings.Join(names(c.Commands), ", "),
				usage: usageLine(c)}
		}
	}
	for _, s := range c.Commands {
		prepare(s)
	}
}

func names(cmds []*cli.Command) []string {
	var out []string
	for _, c := range cmds {
		if !c.Hidden && c.Name != "help" {
			out = append(out, c.Name)
		}
	}
	return out
}

// appHelpTemplate is urfave's root help with the commands in the groups above, in their order
// (urfave sorts categories by name).
var appHelpTemplate = `NAME:
   {{.Name}} - {{.Usage}}

USAGE:
   {{wrap .UsageText 3}}

DESCRIPTION:
   {{wrap .Description 3}}

COMMANDS:{{range $g := index .Metadata "groups"}}

   {{$g.Name}}:{{range $g.Commands}}
     {{join .Names ", "}}{{"\t"}}{{.Usage}}{{end}}{{end}}

OPTIONS:
   --help, -h   show help (git exarchos --help opens the man page)
   --version    print the version (as git exarchos version)
`

// groupHelpTemplate is v2's help of a command with subcommands, as it read before: the usage
// line's fallback, and the library's `help, h` subcommand listed last (v3 runs it but lists it nowhere).
var groupHelpTemplate = `NAME:
   {{template "helpNameTemplate" .}}

USAGE:
   {{if .UsageText}}{{wrap .UsageText 3}}{{else}}{{.FullName}}{{if .VisibleFlags}} [command options]{{end}}{{if .ArgsUsage}} {{.ArgsUsage}}{{end}}{{end}}{{if .Category}}

CATEGORY:
   {{.Category}}{{end}}{{if .Description}}

DESCRIPTION:
   {{template "descriptionTemplate" .}}{{end}}{{if .VisibleCommands}}

COMMANDS:{{$cv := offsetCommands .VisibleCommands 5}}{{if lt $cv 12}}{{$cv = 12}}{{end}}{{range .VisibleCommands}}
   {{$s := join .Names ", "}}{{$s}}{{$sp := subtract $cv (offset $s 3)}}{{indent $sp ""}}{{wrap .Usage $cv}}{{end}}
   help, h{{indent (subtract $cv 10) ""}}Shows a list of commands or help for one command{{end}}{{if .VisibleFlagCategories}}

OPTIONS:{{template "visibleFlagCategoryTemplate" .}}{{else if .VisibleFlags}}

OPTIONS:{{template "visibleFlagTemplate" .}}{{end}}
`

// flagString renders a flag in -h as urfave/cli v2 did, so that help reads as before: the
// placeholder is the usage's `word` or "value", and every default is shown (a bool's too) unless
// the flag hides it.
func flagString(f cli.Flag) string {
	df, ok := f.(cli.DocGenerationFlag)
	if !ok {
		return ""
	}
	placeholder, usage := unquoteUsage(df.GetUsage())
	if df.TakesValue() && placeholder == "" {
		placeholder = "value"
	}
	if def := df.GetDefaultText(); df.IsDefaultVisible() {
		if def == "" {
			def = df.GetValue()
		}
		if def != "" {
			usage += " (default: " + def + ")"
		}
	}
	var names []string
	for _, n := range f.Names() {
		names = append(names, strings.TrimSpace(dashes(n)+n+" "+placeholder))
	}
	tag := strings.Join(names, ", ")
	if m, ok := f.(cli.DocGenerationMultiValueFlag); ok && m.IsMultiValueFlag() {
		tag += " [ " + tag + " ]"
	}
	return fmt.Sprintf("%s\t%s", tag, strings.TrimSpace(usage))
}

// unquoteUsage takes a flag's placeholder out of its usage: the first `word`, kept as the word.
func unquoteUsage(usage string) (placeholder, unquoted string) {
	before, rest, ok := strings.Cut(usage, "`")
	if !ok {
		return "", usage
	}
	name, after, ok := strings.Cut(rest, "`")
	if !ok {
		return "", usage
	}
	return name, before + name + after
}

// dashes is the prefix of a flag name: - for a letter, -- for a word.
func dashes(name string) string {
	if len(name) == 1 {
		return "-"
	}
	return "--"
}
