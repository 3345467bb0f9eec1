package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v3"

	gitexarchos "github.com/exarchos/git-exarchos"
	"github.com/exarchos/git-exarchos/app"
)

// help, completion and the man page: all read the command tree (commands.go).

func helpCommand() *cli.Command {
	return &cli.Command{
		Name:      "help",
		Usage:     "show the commands, or one command's options and examples",
		ArgsUsage: "[<command>...]",
		UsageText: "git exarchos help [<command> [<subcommand>]]\n\nThe same as `git exarchos <command> -h`. `git exarchos --help` and `git help exarchos` open the man page.\n\nExamples:\n   git exarchos help\n   git exarchos help transition\n   git exarchos help task start",
		Flags:     []cli.Flag{jsonFlag},
		Action:    func(_ context.Context, c *cli.Command) error { return cli.ShowRootCommandHelp(c.Root()) }, // `help <command>` is rewritten to `<command> -h` (args.go)
	}
}

func completionCommand() *cli.Command {
	return &cli.Command{
		Name:  "completion",
		Usage: "print the shell completion script for bash, zsh or fish",
		UsageText: `git exarchos completion bash|zsh|fish [--json]

Completes commands, subcommands, flags, feature ids, the phases of the workflow and workflow types.
The bash script defines _git_exarchos, which git's own completion calls for ` + "`git exarchos <TAB>`" + `.

Install:
   bash: git exarchos completion bash > ~/.local/share/bash-completion/completions/git-exarchos
         (or: echo 'source <(git exarchos completion bash)' >> ~/.bashrc, after git's completion)
   zsh:  git exarchos completion zsh > "${fpath[1]}/_git-exarchos"
   fish: git exarchos completion fish > ~/.config/fish/completions/git-exarchos.fish`,
		Flags: []cli.Flag{jsonFlag},
		Action: func(_ context.Context, c *cli.Command) error {
			script, ok := completionScripts[c.Args().First()]
			if !ok {
				return usageErrf("no completion for shell %q: use bash, zsh or fish", c.Args().First())
			}
			return emit(c, map[string]string{"shell": c.Args().First(), "script": script}, func(w io.Writer) { io.WriteString(w, script) })
		},
	}
}

// The scripts ask the binary for candidates (`git exarchos __complete <words> <current word>`), so
// they never drift from the command tree.
var completionScripts = map[string]string{
	"bash": `# bash completion for git exarchos (git exarchos completion bash)
# git's completion calls _git_exarchos for "git exarchos <TAB>".
_git_exarchos() {
	local -a ws
	local cw
	if [[ -n ${words+x} && -n ${cword+x} ]]; then ws=("${words[@]}"); cw=$cword; else ws=("${COMP_WORDS[@]}"); cw=$COMP_CWORD; fi
	local i start=0
	for ((i = 1; i < cw; i++)); do
		if [[ ${ws[i]} == exarchos ]]; then start=$((i + 1)); break; fi
	done
	((start == 0)) && start=1
	local cur=${ws[cw]}
	local IFS=$'\n'
	local -a cands
	if declare -F __git >/dev/null; then
		cands=($(__git exarchos __complete -- "${ws[@]:start:cw-start}" "$cur"))
	else
		cands=($(git exarchos __complete -- "${ws[@]:start:cw-start}" "$cur" 2>/dev/null))
	fi
	COMPREPLY=($(compgen -W "${cands[*]}" -- "$cur"))
}
_git_exarchos_standalone() { _git_exarchos; }
complete -o default -o nospace -F _git_exarchos_standalone git-exarchos 2>/dev/null
`,
	"zsh": `#compdef git-exarchos
# zsh completion for git exarchos (git exarchos completion zsh). zsh's git completion calls
# _git-exarchos for "git exarchos <TAB>"; the same function completes git-exarchos.
_git-exarchos() {
	local -a cands
	local first=2
	[[ ${words[1]} == git ]] && first=3
	cands=("${(@f)$(git exarchos __complete -- "${(@)words[first,CURRENT-1]}" "${words[CURRENT]}" 2>/dev/null)}")
	compadd -a cands
}
compdef _git-exarchos git-exarchos
`,
	"fish": `# fish completion for git exarchos (git exarchos completion fish)
function __git_exarchos_complete
	set -l tokens (commandline -opc)
	set -l i (contains -i exarchos $tokens)
	set -l words
	if test -n "$i"; and test (count $tokens) -gt $i
		set words $tokens[(math $i + 1)..-1]
	end
	git exarchos __complete -- $words (commandline -ct) 2>/dev/null
end
complete -c git -n '__fish_seen_subcommand_from exarchos' -f -a '(__git_exarchos_complete)'
complete -c git -n '__fish_git_needs_command' -f -a exarchos -d 'enforced development workflows'
`,
}

// completeCommand answers the completion scripts: the candidates for the last word, one a line.
func completeCommand() *cli.Command {
	return &cli.Command{
		Name:            "__complete",
		Hidden:          true,
		Usage:           "completion candidates for the last word (used by the completion scripts)",
		ArgsUsage:       "[<word>...]",
		SkipFlagParsing: true,
		Action: func(_ context.Context, c *cli.Command) error {
			words := c.Args().Slice()
			if len(words) > 0 && words[0] == "--" {
				words = words[1:]
			}
			if len(words) == 0 {
				words = []string{""}
			}
			for _, s := range candidates(c.Root().Commands, words[:len(words)-1], words[len(words)-1]) {
				fmt.Fprintln(c.Root().Writer, s)
			}
			return nil
		},
	}
}

// candidates completes cur after the words before it.
func candidates(root []*cli.Command, before []string, cur string) []string {
	cmds := root
	var cmd *cli.Command
	var positional []string
	for i := 0; i < len(before); i++ {
		w := before[i]
		if cmd == nil || len(cmd.Commands) > 0 {
			if next := find(cmds, w); next != nil {
				cmd, cmds = next, next.Commands
				continue
			}
		}
		if w == "--" {
			return nil // validate's command: the shell's own completion would be better than ours
		}
		if strings.HasPrefix(w, "-") && cmd != nil {
			name, _, hasValue := strings.Cut(strings.TrimLeft(w, "-"), "=")
			if f := lookupFlag(cmd, name); f != nil && takesValue(f) && !hasValue {
				if i == len(before)-1 {
					return flagValues(name)
				}
				i++
			}
			continue
		}
		positional = append(positional, w)
	}
	if cmd == nil || len(cmd.Commands) > 0 {
		if cmd != nil && strings.HasPrefix(cur, "-") {
			return []string{"--help"}
		}
		return names(cmds)
	}
	if strings.HasPrefix(cur, "-") {
		var out []string
		for _, f := range cmd.Flags {
			out = append(out, "--"+f.Names()[0])
		}
		return append(out, "--help")
	}
	return argValues(cmd, positional)
}

// argValues: what the next positional argument of cmd can be, from its ArgsUsage.
func argValues(cmd *cli.Command, positional []string) []string {
	slots := strings.Fields(cmd.ArgsUsage)
	var out []string
	for i := len(positional); i < len(slots); i++ {
		slot := slots[i]
		switch {
		case strings.Contains(slot, "feature"):
			out = append(out, features()...)
		case strings.Contains(slot, "phase"):
			feature := ""
			if len(positional) > 0 {
				feature = positional[0]
			}
			out = append(out, phases(feature)...)
		case slot == "<type>" || slot == "[<type>]":
			out = append(out, flagValues("type")...)
		case strings.Contains(slot, "|"):
			out = append(out, strings.Split(strings.Trim(slot, "[]"), "|")...)
		}
		if !strings.HasPrefix(slot, "[") {
			break // a required slot: later ones cannot come yet
		}
	}
	return out
}

func flagValues(name string) []string {
	if name == "type" || name == "t" {
		r, _ := openRepo() // nil outside a repository: the built-in types
		res, err := app.Describe(r, app.DescribeOptions{Format: "json"})
		if err != nil {
			return nil
		}
		var out []string
		for _, d := range res.Definitions {
			out = append(out, d.Type)
		}
		return out
	}
	return nil
}

func features() []string {
	r, err := openRepo()
	if err != nil {
		return nil
	}
	list, err := app.ListWorkflows(r, app.ListOptions{All: true})
	if err != nil {
		return nil
	}
	var out []string
	for _, s := range list.Workflows {
		out = append(out, s.Feature)
	}
	return out
}

// phases of the named workflow (or the one bound to the branch).
func phases(feature string) []string {
	r, err := openRepo()
	if err != nil {
		return nil
	}
	st, err := app.ShowStatus(r, app.StatusOptions{Feature: feature})
	if err != nil {
		return nil
	}
	res, err := app.Describe(r, app.DescribeOptions{Type: st.Status.Type, Format: "json"})
	if err != nil || len(res.Definitions) == 0 {
		return nil
	}
	return res.Definitions[0].PhaseIDs()
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
