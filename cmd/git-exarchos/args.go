package main

import (
	"fmt"
	"slices"
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
	positional, err := checkArgs(inv.cmd, inv.path, flags, positional)
	if err != nil {
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

// checkArgs enforces the command's argument specs (its urfave Arguments: a StringArg each, Required
// or not, then at most one StringArgs with its Min and Max) and its required flags, and places the
// arguments given in the specs' slots: the given ones fill the required slots first, and an optional
// slot before them (the leading [<feature>]) is taken only when there are more, so urfave's own
// left-to-right parse finds each value under its name; a left-out optional slot holds "" (for a
// feature: the one bound to the branch).
func checkArgs(cmd *cli.Command, path, flags, positional []string) ([]string, error) {
	given, tail := positional, []string(nil)
	if keepsSeparator(cmd) {
		if i := slices.Index(positional, "--"); i >= 0 {
			given, tail = positional[:i], positional[i:]
		}
	}
	lo, hi, required := argBounds(cmd)
	n := len(given)
	switch {
	case n > hi:
		return nil, usageError{msg: fmt.Sprintf("%s: unexpected argument %q", strings.Join(path, " "), strings.Join(given[hi:], " ")), usage: usageLine(cmd)}
	case n < lo:
		return nil, usageError{msg: fmt.Sprintf("%s: missing %s", strings.Join(path, " "), strings.Join(required[n:], " ")), usage: usageLine(cmd)}
	}
	for _, f := range cmd.Flags {
		if rf, ok := f.(cli.RequiredFlag); !ok || !rf.IsRequired() {
			continue
		}
		if !flagGiven(f, flags) {
			return nil, usageError{msg: fmt.Sprintf("%s needs --%s", strings.Join(path, " "), f.Names()[0]), usage: usageLine(cmd)}
		}
	}
	var placed []string
	extra := n - lo
	for _, a := range cmd.Arguments {
		switch a := a.(type) {
		case *cli.StringArg:
			switch {
			case a.Required || extra > 0:
				if !a.Required {
					extra--
				}
				placed, given = append(placed, given[0]), given[1:]
			case len(given)+len(tail) > 0:
				placed = append(placed, "")
			}
		case *cli.StringArgs:
			placed, given = append(placed, given...), nil
		}
	}
	return append(placed, tail...), nil
}

func flagGiven(f cli.Flag, flags []string) bool {
	for _, a := range flags {
		name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if strings.HasPrefix(a, "-") && slices.Contains(f.Names(), name) {
			return true
		}
	}
	return false
}

// argBounds: how many arguments the specs take, and the usage of each required one.
func argBounds(cmd *cli.Command) (lo, hi int, required []string) {
	for _, a := range cmd.Arguments {
		switch a := a.(type) {
		case *cli.StringArg:
			hi++
			if a.Required {
				lo++
				required = append(required, a.Usage())
			}
		case *cli.StringArgs:
			lo += a.Min
			if a.Min > 0 {
				required = append(required, a.Usage())
			}
			if hi += a.Max; a.Max < 0 {
				hi = 1 << 30
			}
		}
	}
	return lo, hi, required
}

// keepsSeparator: the command's arguments include a "--" of their own (validate's command, the
// StringArgs named "command").
func keepsSeparator(cmd *cli.Command) bool {
	return slices.ContainsFunc(cmd.Arguments, func(a cli.Argument) bool { return a.HasName("command") })
}

// The argument specs commands declare: opt and req are one argument (optional or required), many
// the rest (at least min); usage overrides the <name> shown in help.
func opt(name string, usage ...string) cli.Argument {
	return &cli.StringArg{Name: name, UsageText: orUsage(usage, "[<"+name+">]")}
}

func req(name string, usage ...string) cli.Argument {
	return &cli.StringArg{Name: name, Required: true, UsageText: orUsage(usage, "<"+name+">")}
}

func many(name string, min int, usage string) cli.Argument {
	return &cli.StringArgs{Name: name, Min: min, Max: -1, UsageText: usage}
}

// onFeature: an optional leading feature, then the given arguments.
func onFeature(more ...cli.Argument) []cli.Argument {
	return append([]cli.Argument{opt("feature")}, more...)
}

func orUsage(usage []string, def string) string {
	if len(usage) > 0 {
		return usage[0]
	}
	return def
}

// argsUsage is what help shows of the specs.
func argsUsage(args []cli.Argument) string {
	var out []string
	for _, a := range args {
		out = append(out, a.Usage())
	}
	return strings.Join(out, " ")
}

// argv is the arguments as given, in order: the values of the specs without the "" of a left-out
// optional one.
func argv(c *cli.Command) []string {
	var out []string
	for _, a := range c.Arguments {
		switch a := a.(type) {
		case *cli.StringArg:
			if v := a.Get().(string); v != "" || a.Required {
				out = append(out, v)
			}
		case *cli.StringArgs:
			out = append(out, a.Get().([]string)...)
		}
	}
	return out
}

// splitFeature: the leading feature (checkArgs placed "" when it was left out) and the values of
// the arguments after it.
func splitFeature(c *cli.Command) (string, []string) {
	var vals []string
	for _, a := range c.Arguments[1:] {
		switch v := a.Get().(type) {
		case string:
			vals = append(vals, v)
		case []string:
			vals = append(vals, v...)
		}
	}
	return c.StringArg("feature"), vals
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
