package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/urfave/cli/v3"
)

// TestArgumentsAreTheUsage: every command's argument specs (what is enforced and completed) are
// what the first line of its help documents, in order, and a command that documents arguments
// declares them.
func TestArgumentsAreTheUsage(t *testing.T) {
	cmds, _ := commandTree()
	var walk func(cs []*cli.Command)
	walk = func(cs []*cli.Command) {
		for _, c := range cs {
			if len(c.Commands) > 0 {
				walk(c.Commands)
				continue
			}
			line := strings.TrimPrefix(usageLine(c), "git exarchos "+c.FullName())
			rest := line
			for _, a := range c.Arguments {
				i := strings.Index(rest, " "+a.Usage())
				if i < 0 {
					t.Errorf("%s: the argument %s is not in its usage line %q, in that order", c.FullName(), a.Usage(), usageLine(c))
					break
				}
				rest = rest[i+1+len(a.Usage()):]
			}
			if len(c.Arguments) == 0 && strings.Contains(strings.Fields(line + " -")[0], "<") {
				t.Errorf("%s documents arguments (%q) but declares none", c.FullName(), usageLine(c))
			}
		}
	}
	walk(cmds)
}

// TestArgumentsPlaced: the arguments given fill the required slots first, an optional leading
// feature is taken only when there are more, and a left-out one holds "" when arguments follow
// it, so urfave's left-to-right parse finds each value under its name.
func TestArgumentsPlaced(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want []string // after the "--" normalize adds
	}{
		{[]string{"transition", "plan"}, []string{"", "plan"}},
		{[]string{"transition", "login", "plan"}, []string{"login", "plan"}},
		{[]string{"status"}, nil},
		{[]string{"status", "login"}, []string{"login"}},
		{[]string{"set", "a=1", "b=2"}, []string{"a=1", "b=2"}}, // the first is the feature only when it holds no "=" (set's action)
		{[]string{"review", "spec"}, []string{"", "spec"}},
		{[]string{"review", "spec", "pass"}, []string{"spec", "pass"}}, // review's action reads pass|fail as the verdict
		{[]string{"validate", "--", "go", "test"}, []string{"", "--", "go", "test"}},
		{[]string{"validate", "login", "--", "go", "test"}, []string{"login", "--", "go", "test"}},
		{[]string{"rescue", "restore", "login", "t1"}, []string{"login", "t1"}},
		{[]string{"budget", "extend", "3", "--reason", "r"}, []string{"", "3"}},
	} {
		cmds, _ := commandTree()
		inv, err := normalize(cmds, append([]string{"git-exarchos"}, tc.args...))
		if err != nil {
			t.Errorf("%q: %v", tc.args, err)
			continue
		}
		i := slices.Index(inv.args, "--")
		if i < 0 {
			t.Errorf("%q: no -- in %q", tc.args, inv.args)
			continue
		}
		if got := inv.args[i+1:]; !slices.Equal(got, tc.want) && len(got)+len(tc.want) > 0 {
			t.Errorf("%q: placed %q, want %q", tc.args, got, tc.want)
		}
	}
}
