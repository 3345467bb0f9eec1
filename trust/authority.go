package trust

// The agent's environment: a human decision refuses to run in a process an agent's client started
// (internal/agentenv reads the variables). Which commands are human decisions is said here once;
// the CLI, the MCP server's processes and in-process callers all reach one of these checks.

import (
	"fmt"

	"github.com/exarchos/git-exarchos/internal/agentenv"
	"github.com/exarchos/git-exarchos/workflow"
)

// AgentRefusal is a human decision asked for in an agent's environment: exit 3, AGENT_ENVIRONMENT.
type AgentRefusal struct {
	// Command is the decision as the user would type it (`approve f`, `cancel f --human`).
	Command string
	// Variable is the agent variable found, and the client that sets it.
	Variable, Client string
	// Ancestor names the ancestor process whose environment has it, when this process's own
	// environment did not (its variables were filtered on the way): "pid 1234 (python3)".
	Ancestor string
	// Why says why this is the user's decision when the command is not one by name (cleanup
	// --offline on a base the agent can move); Line is what the user runs when it is more than
	// `git exarchos <Command>` (a merge first).
	Why, Line string
}

func (e *AgentRefusal) Error() string {
	line := e.Line
	if line == "" {
		line = "git exarchos " + e.Command
	}
	why := ""
	if e.Why != "" {
		why = " (" + e.Why + ")"
	}
	if e.Ancestor != "" {
		return fmt.Sprintf("`git exarchos %s` is a human decision%s, and this process was started from an agent's session: its own environment has no agent variable, "+
			"but its ancestor process %s was started with %s set, as %s sets it for every command it runs (a filtered environment does not make a command the user's): "+
			"ask the user to run `%s` in their own terminal", e.Command, why, e.Ancestor, e.Variable, e.Client, line)
	}
	return fmt.Sprintf("`git exarchos %s` is a human decision%s, and this process runs in an agent's session (%s is set, as %s sets it for every command it runs): "+
		"ask the user to run `%s` in their own terminal", e.Command, why, e.Variable, e.Client, line)
}

// RefuseInAgent refuses command (a human decision, as the user would type it) when env says an
// agent's session runs it; nil otherwise.
//
// When env is this process's own, its ancestors' environments are looked at too
// (agentenv.InAncestry): a command whose variables were filtered on the way from the agent's
// client (python keeping all but CLA*, make's unexport, a shim, env -i) is refused all the same,
// with the ancestor that carried them.
func RefuseInAgent(env agentenv.Env, command string) error {
	if v, ok := env.Detect(); ok {
		return &AgentRefusal{Command: command, Variable: v.Name, Client: v.Client}
	}
	if env.IsProcess() {
		if a, ok := agentenv.InAncestry(); ok {
			return &AgentRefusal{Command: command, Variable: a.Var.Name, Client: a.Var.Client, Ancestor: fmt.Sprintf("pid %d (%s)", a.Pid, a.Command)}
		}
	}
	return nil
}

// refuseDecisions refuses, in an agent's environment, the commands among cmds that are human
// decisions. Every write of a workflow goes through Execute or CreateWorkflow, which call it first.
func (r *Repo) RefuseDecisions(feature string, cmds ...workflow.Command) error {
	for _, c := range cmds {
		if what := humanDecision(c); what != "" {
			return r.RefuseDecision(feature, what+" "+feature+decisionFlags(c))
		}
	}
	return nil
}

// humanDecision names the command a human decision is typed as ("" for an agent's command).
func humanDecision(c workflow.Command) string {
	switch c := c.(type) {
	case workflow.Approve:
		return "approve"
	case workflow.Reject:
		return "reject"
	case workflow.Unblock:
		return "unblock"
	case workflow.OverrideGuard:
		return "override"
	case workflow.GrantTool:
		return "grant"
	case workflow.ExtendBudget:
		return "budget extend"
	case workflow.Acknowledge:
		return "acknowledge"
	case workflow.DecideMerge:
		return "pr merge"
	case workflow.RecordReview:
		if c.Human {
			return "review"
		}
	case workflow.ResolveFinding:
		if c.Human {
			return "review"
		}
	case workflow.Cancel:
		if c.Human {
			return "cancel"
		}
	case workflow.Init:
		if c.Human {
			return "init"
		}
	}
	return ""
}

func decisionFlags(c workflow.Command) string {
	switch c := c.(type) {
	case workflow.OverrideGuard:
		return " " + c.Guard + " --reason …"
	case workflow.Cancel, workflow.Init:
		return " --human …"
	case workflow.RecordReview:
		return " " + c.Dimension + " " + map[bool]string{true: "pass", false: "fail"}[c.Pass] + " --human"
	case workflow.ResolveFinding:
		return " --resolve " + c.ID + " --human --note …"
	case workflow.Acknowledge:
		return " " + c.Event + " --reason …"
	case workflow.Unblock:
		return " --reason …"
	case workflow.Reject:
		return " --gaps …"
	case workflow.DecideMerge:
		return " --" + c.Method
	}
	return ""
}

// environOr is env, or the process's environment when the caller passed none (fail closed).
func EnvironOr(env agentenv.Env) agentenv.Env {
	if env == nil {
		return agentenv.Process()
	}
	return env
}
