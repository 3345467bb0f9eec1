package main

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/exarchos/git-exarchos/workflow"
)

// invocation is a command line made ready for urfave/cli, which treats `h`/`help` as a command of
// every group and lets a flag missing its value swallow the next word. normalize resolves the
// command path, checks every flag and the number of arguments against the command tree the way git
// and gh do, and hands urfave flags first, then "--", then the positional arguments, which it then
// takes literally (urfave consumes that first "--" and parses nothing after it).
type invocation struct {
	args []string     // for the root command's Run
	cmd  *cli.Command // the command run (nil: the root)
	path []string     // its names from the root
	help bool         // -h/--help or `help <command>`: show cmd's help
}

func normalize(root []*cli.Command, args []string) (invocation, error) {
	inv := invocation{}
	rest := args[1:]
	cmds := root
	for len(rest) > 0 {
		a := rest[0]
		switch {
		case a == "-h" || a == "--help":
			return invocation{args: append([]string{args[0]}, append(inv.path, "-h")...), cmd: inv.cmd, path: inv.path, help: true}, nil
		case a == "--version" && inv.cmd == nil:
			rest = append([]string{"version"}, rest[1:]...)
			continue
		case a == "--json" || a == "--json=true":
			// --json before the command name applies to it.
			if len(rest) > 1 && !strings.HasPrefix(rest[1], "-") {
				rest = append(append([]string{rest[1]}, a), rest[2:]...)
				continue
			}
		}
		if inv.cmd != nil && len(inv.cmd.Commands) == 0 {
			break
		}
		if strings.HasPrefix(a, "-") {
			if inv.cmd == nil {
				return inv, usageError{msg: fmt.Sprintf("unknown option %s", flagName(a)), usage: "git exarchos <command> [options] [arguments]"}
			}
			break // a group's own flags (-h); urfave reports the rest
		}
		if inv.cmd == nil && a == "help" {
			var words []string
			for _, w := range rest[1:] {
				if !strings.HasPrefix(w, "-") {
					words = append(words, w)
				}
			}
			return helpFor(root, args[0], words)
		}
		if inv.cmd != nil && (a == "help" || a == "h") && find(cmds, a) == nil {
			// urfave's help subcommand of a group, given its words only: --json wraps the text as for -h.
			inv.args, inv.help = append(append([]string{args[0]}, inv.path...), a), true
			for _, w := range rest[1:] {
				if !strings.HasPrefix(w, "-") {
					inv.args = append(inv.args, w)
				}
			}
			return inv, nil
		}
		next := find(cmds, a)
		if next == nil {
			where, usage := "git exarchos", "git exarchos <command> [options] [arguments]"
			if inv.cmd != nil {
				where, usage = "git exarchos "+strings.Join(inv.path, " "), usageLine(inv.cmd)
			}
			return inv, usageError{msg: fmt.Sprintf("unknown command %q for %s", a, where), hint: suggestCommand(cmds, a), usage: usage}
		}
		inv.cmd, inv.path, cmds = next, append(inv.path, a), next.Commands
		rest = rest[1:]
	}
	head := append([]string{args[0]}, inv.path...)
	if inv.cmd == nil || len(inv.cmd.Commands) > 0 || inv.cmd.SkipFlagParsing {
		inv.args = append(head, rest...)
		return inv, nil
	}
	var flags, positional []string
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		if a == "--" {
			if keepsSeparator(inv.cmd) {
				positional = append(positional, rest[i:]...)
			} else {
				positional = append(positional, rest[i+1:]...)
			}
			break
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			positional = append(positional, a)
			continue
		}
		if a == "-h" || a == "--help" {
			return invocation{args: append(head, "-h"), cmd: inv.cmd, path: inv.path, help: true}, nil
		}
		name, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		f := lookupFlag(inv.cmd, name)
		if f == nil {
			return inv, usageError{msg: fmt.Sprintf("unknown flag %s for git exarchos %s", flagName(a), strings.Join(inv.path, " ")),
				hint: suggestFlag(inv.cmd, name), usage: usageLine(inv.cmd)}
		}
		flags = append(flags, a)
		if takesValue(f) && !hasValue {
			if i+1 >= len(rest) || rest[i+1] == "--" {
				return inv, usageError{msg: fmt.Sprintf("flag %s needs a value", flagName(a)), usage: usageLine(inv.cmd)}
			}
			flags = append(flags, rest[i+1])
			i++
		}
	}
	if err := checkArgs(inv.cmd, inv.path, flags, positional); err != nil {
		return inv, err
	}
	inv.args = append(append(head, flags...), "--")
	inv.args = append(inv.args, positional...)
	return inv, nil
}

// helpFor turns `help [<command>...]` into that command's -h.
func helpFor(root []*cli.Command, prog string, words []string) (invocation, error) {
	inv := invocation{help: true}
	cmds := root
	for _, w := range words {
		next := find(cmds, w)
		if next == nil {
			return inv, usageError{msg: fmt.Sprintf("no help for %q: not a command", strings.Join(append(inv.path, w), " ")),
				hint: suggestCommand(cmds, w), usage: "git exarchos help [<command>]"}
		}
		inv.cmd, inv.path, cmds = next, append(inv.path, w), next.Commands
	}
	inv.args = append(append([]string{prog}, inv.path...), "-h")
	return inv, nil
}

// checkArgs enforces the number of arguments the command's ArgsUsage documents, and its required flags.
func checkArgs(cmd *cli.Command, path, flags, positional []string) error {
	lo, hi := argBounds(cmd.ArgsUsage)
	n := len(positional)
	if keepsSeparator(cmd) {
		n = 0
		for _, p := range positional {
			if p == "--" {
				break
			}
			n++
		}
	}
	switch {
	case n > hi:
		extra := positional[hi:]
		return usageError{msg: fmt.Sprintf("%s: unexpected argument %q", strings.Join(path, " "), strings.Join(extra, " ")), usage: usageLine(cmd)}
	case n < lo:
		// The arguments given fill the required ones from the left (an optional [<feature>] is
		// taken only once all required ones are there), so the missing ones are the last lo-n.
		var required []string
		for _, w := range strings.Fields(cmd.ArgsUsage) {
			if !strings.HasPrefix(w, "[") && w != "--" {
				required = append(required, w)
			}
		}
		return usageError{msg: fmt.Sprintf("%s: missing %s", strings.Join(path, " "), strings.Join(required[n:], " ")), usage: usageLine(cmd)}
	}
	for _, f := range cmd.Flags {
		if rf, ok := f.(cli.RequiredFlag); !ok || !rf.IsRequired() {
			continue
		}
		if !given(f, flags) {
			return usageError{msg: fmt.Sprintf("%s needs --%s", strings.Join(path, " "), f.Names()[0]), usage: usageLine(cmd)}
		}
	}
	return nil
}

func given(f cli.Flag, flags []string) bool {
	for _, a := range flags {
		name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		for _, n := range f.Names() {
			if strings.HasPrefix(a, "-") && n == name {
				return true
			}
		}
	}
	return false
}

// argBounds reads ArgsUsage: <x> is required, [<x>] optional, and "..." or "--" allows any number.
func argBounds(usage string) (lo, hi int) {
	for _, w := range strings.Fields(usage) {
		if w == "--" || strings.HasSuffix(w, "...") || strings.HasSuffix(w, "...]") {
			return lo, 1 << 30
		}
		hi++
		if !strings.HasPrefix(w, "[") {
			lo++
		}
	}
	return lo, hi
}

// keepsSeparator: the command's arguments include a "--" of their own (validate's command).
func keepsSeparator(cmd *cli.Command) bool {
	return strings.Contains(" "+cmd.ArgsUsage+" ", " -- ")
}

func find(cmds []*cli.Command, name string) *cli.Command {
	for _, c := range cmds {
		if c.HasName(name) {
			return c
		}
	}
	return nil
}

func lookupFlag(cmd *cli.Command, name string) cli.Flag {
	for _, f := range cmd.Flags {
		for _, n := range f.Names() {
			if n == name {
				return f
			}
		}
	}
	return nil
}

// takesValue reports whether the flag consumes the next argument.
func takesValue(f cli.Flag) bool {
	_, isBool := f.(*cli.BoolFlag)
	return !isBool
}

// flagName is a flag as the user typed it, without its value.
func flagName(a string) string {
	name, _, _ := strings.Cut(a, "=")
	return name
}

// usageLine is the first line of a command's UsageText.
func usageLine(cmd *cli.Command) string {
	line, _, _ := strings.Cut(cmd.UsageText, "\n")
	if line == "" {
		line = "git exarchos " + cmd.FullName() + " " + cmd.ArgsUsage
	}
	return strings.TrimSpace(line)
}

func suggestFlag(cmd *cli.Command, name string) string {
	var candidates []string
	for _, f := range cmd.Flags {
		for _, n := range f.Names() {
			if len(n) > 1 {
				candidates = append(candidates, n)
			}
		}
	}
	if best := closest(candidates, name); best != "" {
		return "did you mean --" + best + "?"
	}
	return ""
}

func suggestCommand(cmds []*cli.Command, name string) string {
	if best := closest(names(cmds), name); best != "" {
		return "did you mean " + best + "?"
	}
	return ""
}

// closest is workflow.Closest: one "did you mean" for commands, flags, phases, fields and types.
func closest(candidates []string, name string) string { return workflow.Closest(candidates, name) }
