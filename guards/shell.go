package guards

import (
	"github.com/exarchos/git-exarchos/workflow"
)

// ShellRunner runs a shell guard's command (with its timeout) where the workflow's code is, and
// reports whether it exited 0, with a short excerpt of its output.
type ShellRunner interface {
	RunGuard(g workflow.ShellGuard, s workflow.State) (passed bool, output string, err error)
}

// shell evaluates shell:<name>. The command comes from the definition the decision is taken
// under, which the caller read from the protected base branch: a workflow ref names its type,
// never its guards' commands.
func (e *Evaluator) shell(def *workflow.Definition, id, name string, s workflow.State) *workflow.GuardFailure {
	var g workflow.ShellGuard
	ok := false
	if def != nil && def.Type == s.Type {
		g, ok = def.ShellGuards[name]
	}
	if !ok {
		return fail(id, "guard "+id+" is not defined by the "+s.Type+" definition on the base branch",
			"a guards: entry named "+name+" in .exarchos/workflows/*.yaml at the base branch's tip", "git exarchos describe "+s.Type)
	}
	if e.Shell == nil {
		return fail(id, "shell guards are not run here", "a command that runs shell guards", "git exarchos transitions "+s.Feature)
	}
	passed, out, err := e.Shell.RunGuard(g, s)
	switch {
	case err != nil:
		return fail(id, "`"+g.Run+"` could not run: "+err.Error(), "the command to exit 0", "git exarchos transitions "+s.Feature)
	case !passed:
		reason := "`" + g.Run + "` failed"
		if out != "" {
			reason += ": " + out
		}
		return fail(id, reason, "the command to exit 0", "fix what it reports, then git exarchos transitions "+s.Feature)
	}
	return nil
}
