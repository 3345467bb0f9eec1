package main

import (
	"context"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/urfave/cli/v3"

	gitexarchos "github.com/exarchos/git-exarchos"
	"github.com/exarchos/git-exarchos/app"
)

// help, completion and the man page: all read the command tree (commands.go).

func helpCommand() *cli.Command {
	return &cli.Command{
		Name:      "help",
		Arguments: []cli.Argument{many("commands", 0, "[<command> [<subcommand>]]")},
		Usage:     "show the commands, or one command's options and examples",
		UsageText: "git exarchos help [<command> [<subcommand>]]\n\nThe same as `git exarchos <command> -h`. `git exarchos --help` and `git help exarchos` open the man page.\n\nExamples:\n   git exarchos help\n   git exarchos help transition\n   git exarchos help task start",
		Flags:     []cli.Flag{jsonFlag},
		Action:    func(_ context.Context, c *cli.Command) error { return cli.ShowRootCommandHelp(c.Root()) }, // `help <command>` is rewritten to `<command> -h` (args.go)
	}
}

func completionCommand() *cli.Command {
	return &cli.Command{
		Name:      "completion",
		Usage:     "print the shell completion script for bash, zsh or fish",
		Arguments: []cli.Argument{req("shell", "bash|zsh|fish")},
		UsageText: `git exarchos completion bash|zsh|fish [--json]

Completes commands, subcommands, flags, feature ids, the phases of the workflow and workflow types.
The scripts are urfave/cli's, which ask the binary for the candidates (--generate-shell-completion),
with the lines that hook them into git's own completion for ` + "`git exarchos <TAB>`" + `.

Install:
   bash: git exarchos completion bash > ~/.local/share/bash-completion/completions/git-exarchos
         (or: echo 'source <(git exarchos completion bash)' >> ~/.bashrc, after git's completion)
   zsh:  git exarchos completion zsh > "${fpath[1]}/_git-exarchos"
   fish: git exarchos completion fish > ~/.config/fish/completions/git-exarchos.fish`,
		Flags: []cli.Flag{jsonFlag},
		ShellComplete: func(_ context.Context, c *cli.Command) {
			if c.NArg() == 0 {
				printLines(c.Root().Writer, slices.Sorted(maps.Keys(gitGlue)))
			}
		},
		Action: func(_ context.Context, c *cli.Command) error {
			shell := c.StringArg("shell")
			glue, ok := gitGlue[shell]
			if !ok {
				return usageErrf("no completion for shell %q: use bash, zsh or fish", shell)
			}
			var b strings.Builder
			gen := &cli.Command{Name: "git-exarchos", EnableShellCompletion: true, Writer: &b}
			if err := gen.Run(context.Background(), []string{"git-exarchos", "completion", shell}); err != nil { // not ctx: it would make gen a subcommand
				return fmt.Errorf("generate the %s completion script: %w", shell, err)
			}
			script := b.String() + glue
			if at := strings.LastIndex(b.String(), "\n# Don't run the completion function"); shell == "zsh" && at >= 0 {
				script = b.String()[:at] + glue + b.String()[at:] // before the script's own first call
			}
			return emit(c, map[string]string{"shell": shell, "script": script}, func(w io.Writer) { io.WriteString(w, script) })
		},
	}
}

// gitGlue follows urfave's script for each shell: what makes git's own completion (which runs
// _git_exarchos, or _git-exarchos in zsh, for `git exarchos <TAB>`) use it. urfave's functions run
// the words typed, `git exarchos …` included, with --generate-shell-completion.
var gitGlue = map[string]string{
	"bash": "\n# git's completion calls _git_exarchos for \"git exarchos <TAB>\".\n_git_exarchos() { __git-exarchos_bash_autocomplete; }\n",
	"zsh": `
# zsh's git completion calls _git-exarchos with the words from "exarchos" on: complete them as the
# command line "git exarchos …" that urfave's function runs.
functions[_git_exarchos_urfave]=$functions[_git-exarchos]
_git-exarchos() {
	if [[ ${words[1]} == exarchos ]]; then
		words=(git "${words[@]}")
		(( CURRENT++ ))
	fi
	_git_exarchos_urfave
}
`,
	"fish": "\n# git exarchos <TAB>\ncomplete -c git -n '__fish_seen_subcommand_from exarchos' -f -a '(__git-exarchos_perform_completion)'\n",
}

// completeArgs is every command's ShellComplete: the values of a flag that takes one, the flags
// when a flag is being typed, else the values of the next argument in the command's specs.
func completeArgs(ctx context.Context, c *cli.Command) {
	words := c.Args().Slice()
	var positional []string
	for i := 0; i < len(words); i++ {
		w := words[i]
		if !strings.HasPrefix(w, "-") || w == "-" {
			positional = append(positional, w)
			continue
		}
		name, _, hasValue := strings.Cut(strings.TrimLeft(w, "-"), "=")
		f := lookupFlag(c, name)
		takes := f != nil && takesValue(f) && !hasValue
		switch {
		case i == len(words)-1 && takes:
			printLines(c.Root().Writer, slotValues(name, ""))
			return
		case i == len(words)-1:
			cli.DefaultCompleteWithFlags(ctx, c)
			return
		case takes:
			i++ // the flag's value
		}
	}
	var out []string
	for i := len(positional); i < len(c.Arguments); i++ {
		var name string
		required := false
		switch a := c.Arguments[i].(type) {
		case *cli.StringArg:
			name, required = a.Name, a.Required
		case *cli.StringArgs:
			name = a.Name
		}
		feature := ""
		if len(positional) > 0 && c.Arguments[0].HasName("feature") {
			feature = positional[0]
		}
		out = append(out, slotValues(name, feature)...)
		if required {
			break // a required argument: later ones cannot come yet
		}
	}
	printLines(c.Root().Writer, out)
}

// slotValues: what an argument (or a flag's value) named name can be.
func slotValues(name, feature string) []string {
	switch name {
	case "verdict":
		return []string{"pass", "fail"}
	case "type", "t", "feature", "features", "phase":
		if name == "t" {
			name = "type"
		}
		r, err := openRepo()
		if err != nil {
			r = nil // outside a repository: the built-in types
		}
		return app.Complete(r, app.CompleteOptions{Slot: name, Feature: feature})
	}
	return nil
}

func printLines(w io.Writer, lines []string) {
	for _, l := range lines {
		fmt.Fprintln(w, l)
	}
}

func manCommand() *cli.Command {
	return &cli.Command{
		Name:  "man",
		Usage: "print the man page, or install it where man and git help find it",
		UsageText: `git exarchos man [--install [--dir D]] [--json]

--install writes git-exarchos.1 to D (default: share/man/man1 beside the directory of this binary,
e.g. ~/go/share/man/man1 for ~/go/bin/git-exarchos). man searches <dir>/../share/man for each
directory on PATH, so ` + "`git exarchos --help`" + ` and ` + "`git help exarchos`" + ` then open it; else add the
share/man directory to MANPATH.

Examples:
   git exarchos man | man -l -
   git exarchos man --install`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "install", Usage: "write the page instead of printing it"},
			&cli.StringFlag{Name: "dir", Usage: "with --install: the man1 directory `D`"},
			jsonFlag,
		},
		Action: func(_ context.Context, c *cli.Command) error {
			page := gitexarchos.ManPage
			if !c.Bool("install") {
				if c.Bool("json") {
					return emitJSON(c, map[string]string{"page": page})
				}
				_, err := io.WriteString(c.Root().Writer, page)
				return err
			}
			dir := c.String("dir")
			if dir == "" {
				self, err := os.Executable()
				if err != nil {
					return fmt.Errorf("find this binary to install the man page beside it: %w (use --dir)", err)
				}
				dir = filepath.Join(filepath.Dir(filepath.Dir(self)), "share", "man", "man1")
			}
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return fmt.Errorf("install the man page: %w", err)
			}
			path := filepath.Join(dir, "git-exarchos.1")
			if err := os.WriteFile(path, []byte(page), 0o644); err != nil {
				return fmt.Errorf("install the man page: %w", err)
			}
			return emit(c, map[string]string{"installed": path}, func(w io.Writer) { printf(w, "installed %s\n", path) })
		},
	}
}
