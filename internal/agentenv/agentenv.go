// Package agentenv is the one place that reads the variables an agent's client sets in the
// environment of every process it starts (a Bash command, and whatever that runs: make, a script,
// python, a git alias, the MCP server). A human decision refuses to run where one is set: a guard
// against drift, not a boundary (a process can always clear its environment; the hook refuses the
// commands that do, and signatures with verify are what hold at the boundary).
//
// It may import the standard library only.
package agentenv

import (
	"os"
	"strings"
)

// Var is one variable that marks an agent's process, with the client that sets it and where that
// is documented or seen.
type Var struct {
	Name   string
	Client string
	Source string
}

// Vars are the variables that mark an agent's process. A variable counts when it is set and not
// empty, as other tools read them; an agent that empties or unsets one (`CLAUDECODE= cmd`,
// `env -u`, `unset`) is refused by the hook before the command runs.
var Vars = []Var{
	{"CLAUDECODE", "Claude Code", "set to 1 in the Bash tool's environment since 0.2.47 (anthropics/claude-code#531)"},
	{"CLAUDE_CODE_SESSION_ID", "Claude Code", "seen with the real client (2.1.x) in the Bash tool's environment"},
	{"CLAUDE_CODE_ENTRYPOINT", "Claude Code", "seen with the real client (2.1.x): cli, sdk-ts, …"},
	{"AI_AGENT", "an agent's client", "the AI_AGENT convention (vercel/vercel packages/detect-agent); Claude Code 2.1.x sets it"},
	{"GEMINI_CLI", "Gemini CLI", "set to 1 in its shell tool (seen in gitlab-org/cli's agent detection, MR 3293)"},
	{"CODEX_SANDBOX", "OpenAI Codex", "set in its sandboxed shell (aws/aws-cdk-cli detect-agent.ts)"},
	{"CODEX_THREAD_ID", "OpenAI Codex", "set in its shell (aws/aws-cdk-cli detect-agent.ts)"},
	{"CURSOR_AGENT", "Cursor", "set by the Cursor agent (aws/aws-cdk-cli detect-agent.ts)"},
	// Seen with the real clients (issue 39: Codex CLI 0.171.0, Qwen Code 0.24.4, Copilot CLI 1.0.102)
	// in their shell tool's environment.
	{"CODEX_CI", "OpenAI Codex", "set to 1 in its shell (0.171.0)"},
	{"CODEX_SESSION_ID", "OpenAI Codex", "set in its shell (0.171.0)"},
	{"CODEX_TOOL_CALL_ID", "OpenAI Codex", "set in its shell (0.171.0)"},
	{"QWEN_CODE", "Qwen Code", "set to 1 in its shell tool (0.24.4)"},
	{"COPILOT_CLI", "GitHub Copilot CLI", "set to 1 in its shell tool (1.0.102)"},
	{"COPILOT_AGENT_SESSION_ID", "GitHub Copilot CLI", "set in its shell tool (1.0.102)"},
	{"OPENCODE", "opencode", "set to 1 by opencode for the processes it starts (not by every version's shell tool: anomalyco/opencode#32689)"},
}

// Env is a process environment, KEY=VALUE entries as os.Environ gives them.
type Env []string

// Process is this process's environment; callers take it once and pass it down, so tests choose.
func Process() Env { return os.Environ() }

// IsAgentVar reports whether name is one of Vars.
func IsAgentVar(name string) bool {
	for _, v := range Vars {
		if v.Name == name {
			return true
		}
	}
	return false
}

// Detect returns the first of Vars set in e, and whether there is one.
func (e Env) Detect() (Var, bool) {
	for _, v := range Vars {
		for _, kv := range e {
			if name, value, _ := strings.Cut(kv, "="); name == v.Name && value != "" {
				return v, true
			}
		}
	}
	return Var{}, false
}

// Strip is env without the agent variables: what a test gives the processes it starts.
func Strip(env []string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if !IsAgentVar(name) && !isSessionVar(name) {
			out = append(out, kv)
		}
	}
	return out
}

// Mark is env with AI_AGENT set (to who, unless one is set already): the processes an agent's tool
// runs on its behalf (the MCP server's) carry the mark even when the client did not pass it down.
func Mark(env []string, who string) []string {
	if _, ok := Env(env).Detect(); ok {
		return env
	}
	return append(env, "AI_AGENT="+who)
}

// ClearProcess removes the agent variables (and CLAUDE_PROJECT_DIR) from this process's own
// environment, and stops the ancestry walk at this process, so a test binary run inside an
// agent's session behaves as it does in CI; a package's TestMain calls it first.
func ClearProcess() {
	SetAncestryTop(os.Getpid()) // and its ancestors' (the developer's agent session) are not looked at
	for _, v := range Vars {
		_ = os.Unsetenv(v.Name)
	}
	for _, v := range sessionVars {
		_ = os.Unsetenv(v)
	}
}

// sessionVars name a session without marking an agent: the client's project directory, and the
// session id a client without Claude Code's variables gives git exarchos (EXARCHOS_SESSION_ID).
// Tests clear them with the agent variables.
var sessionVars = []string{"CLAUDE_PROJECT_DIR", "EXARCHOS_SESSION_ID"}

func isSessionVar(name string) bool { return name == sessionVars[0] || name == sessionVars[1] }

// Get is the value of name in e ("" when unset).
func (e Env) Get(name string) string {
	for i := len(e) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(e[i], "="); ok && k == name {
			return v
		}
	}
	return ""
}

// RunTests is a package's TestMain: the agent variables cleared (ClearProcess), then the tests.
func RunTests(m interface{ Run() int }) {
	ClearProcess()
	os.Exit(m.Run())
}
