package main

import (
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
