package main

import (
	"strings"

	"github.com/urfave/cli/v2"
)

// intersperse moves a command's flags in front of its positional arguments, because urfave/cli v2
// stops parsing flags at the first positional one and users type `git exarchos log login --json`.
// Everything after "--" stays as it is (validate runs that command verbatim).
func intersperse(cmds []*cli.Command, args []string) []string {
	if len(args) < 2 {
		return args
	}
	out := []string{args[0]}
	rest := args[1:]
	// Walk down the command path: leading global flags, then command and subcommand names.
	var cmd *cli.Command
	for len(rest) > 0 && strings.HasPrefix(rest[0], "-") {
		out, rest = append(out, rest[0]), rest[1:]
	}
	for len(rest) > 0 {
		next := find(cmds, rest[0])
		if next == nil {
			break
		}
		cmd, cmds = next, next.Subcommands
		out, rest = append(out, rest[0]), rest[1:]
	}
	if cmd == nil {
		return args
	}
	var flags, positional []string
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		if a == "--" {
			positional = append(positional, rest[i:]...)
			break
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			positional = append(positional, a)
			continue
		}
		flags = append(flags, a)
		if !strings.Contains(a, "=") && takesValue(cmd, strings.TrimLeft(a, "-")) && i+1 < len(rest) {
			flags = append(flags, rest[i+1])
			i++
		}
	}
	out = append(out, flags...)
	if len(positional) > 0 {
		// "--" ends flag parsing, so positionals stay literal; urfave consumes this one, and a "--"
		// the user typed (validate -- cmd) survives as an argument.
		out = append(out, "--")
	}
	return append(out, positional...)
}

func find(cmds []*cli.Command, name string) *cli.Command {
	for _, c := range cmds {
		if c.HasName(name) {
			return c
		}
	}
	return nil
}

// takesValue reports whether the named flag of cmd consumes the next argument.
func takesValue(cmd *cli.Command, name string) bool {
	for _, f := range cmd.Flags {
		for _, n := range f.Names() {
			if n != name {
				continue
			}
			if bf, ok := f.(*cli.BoolFlag); ok && bf != nil {
				return false
			}
			return true
		}
	}
	return false
}
