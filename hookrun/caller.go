package hookrun

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/exarchos/git-exarchos/gitrepo"
	"github.com/exarchos/git-exarchos/hooks"
	"github.com/exarchos/git-exarchos/internal/agentenv"
	"github.com/exarchos/git-exarchos/internal/atomicfile"
	"github.com/exarchos/git-exarchos/workflow"
)

// Who records a task or a review, as the agent's client reports it. Claude Code gives every
// command the Bash tool runs CLAUDE_CODE_SESSION_ID, but nothing that tells one subagent's command
// from another's or the main agent's: seen with the real client (2.1.332, a subagent's Bash call
// against a scripted model server), the command's environment has the parent's session id and
// AI_AGENT=claude-code_<version>_agent, no agent id; the hook's PreToolUse payload names it
// (agent_id, agent_type, with the parent's session_id). So the hook leaves a ticket for each Bash call that mentions exarchos, under the
// session, named by the call's tool_use_id and holding the agent it came from; PostToolUse takes
// it away. The CLI, run inside that call, reads its session's tickets: when every call in flight
// came from one agent, that agent is the caller; when they disagree, no subagent is named (a
// verdict then does not count as independent). This tells agents apart, it proves nothing: it is
// a guard against an agent reviewing its own work by mistake, not against a determined one.

// callerTicket is one Bash call in flight.
type callerTicket struct {
	Agent     string `json:"agent,omitempty"`
	AgentType string `json:"agentType,omitempty"`
	// Seal: the ticket's seal under the session store's key (gitrepo/seal.go): a ticket written
	// by anything but the hook names no one (issue 38 item 10).
	Seal string `json:"seal,omitempty"`
}

// sealData is what a ticket's seal covers: its session, its name and what it says.
func (t callerTicket) sealData(session, name string) []byte {
	return []byte(session + "\x00" + name + "\x00" + t.Agent + "\x00" + t.AgentType)
}

// ticketTTL bounds how long a ticket is believed: a call whose PostToolUse never came (the client
// was killed) must not name the caller of a later one.
const ticketTTL = 15 * time.Minute

func callerDir(session string) string {
	return strings.TrimSuffix(SessionFile(session), ".json") + ".callers"
}

// noteCaller keeps (PreToolUse) or drops (PostToolUse) the ticket of a Bash call that mentions
// exarchos. Any other call costs one string search. A failed call ends in PostToolUseFailure
// (installed for Bash and the exarchos MCP tools); a ticket whose end never came goes when its
// subagent stops (SubagentStop names it), else when it is older than ticketTTL.
func noteCaller(in hooks.Input) {
	if in.HookEventName == "SubagentStop" && in.AgentID != "" && in.SessionID != "" {
		dropAgentTickets(in.SessionID, in.AgentID)
		return
	}
	// A Bash command that mentions exarchos, or a call of the exarchos MCP server's tools (which
	// run the CLI in the server's process, a child of the session).
	mentions := (in.ToolName == "Bash" && strings.Contains(string(in.ToolInput), "exarchos")) || strings.Contains(in.ToolName, "exarchos")
	if !mentions || in.SessionID == "" || in.ToolUseID == "" || SessionsDir() == "" {
		return
	}
	name := filepath.Join(callerDir(in.SessionID), ticketName(in.ToolUseID))
	switch in.HookEventName {
	case "PreToolUse":
		key := sessionsKey(true)
		if key == nil {
			return // a ticket that cannot be sealed would not be believed
		}
		t := callerTicket{Agent: in.AgentID, AgentType: in.AgentType}
		t.Seal = gitrepo.Seal(key, t.sealData(in.SessionID, ticketName(in.ToolUseID)))
		b, _ := json.Marshal(t)
		_ = atomicfile.Write(name, b, 0o600)
	case "PostToolUse", "PostToolUseFailure":
		_ = os.Remove(name)
	}
}

// dropAgentTickets removes the tickets of one subagent of a session.
func dropAgentTickets(session, agent string) {
	dir := callerDir(session)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		var t callerTicket
		if b, err := os.ReadFile(filepath.Join(dir, e.Name())); err == nil && json.Unmarshal(b, &t) == nil && t.Agent == agent {
			_ = os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}

func ticketName(id string) string {
	if plainSessionID(id) {
		return id
	}
	return "h-" + strings.NewReplacer("/", "_", "\\", "_", ".", "_").Replace(id)
}

// callerFromEnv is who runs this command: the agent session from the environment the client gives
// its commands, and the subagent its tickets name (see above).
func CallerFromEnv(env agentenv.Env) workflow.Caller {
	session := env.Get("CLAUDE_CODE_SESSION_ID")
	if session == "" {
		session = env.Get("EXARCHOS_SESSION_ID")
	}
	if session == "" {
		return workflow.Caller{}
	}
	c := workflow.Caller{Session: session}
	entries, err := os.ReadDir(callerDir(session))
	if err != nil {
		return c
	}
	var found *callerTicket
	key := sessionsKey(false)
	for _, e := range entries {
		info, err := e.Info()
		if err != nil || time.Since(info.ModTime()) > ticketTTL || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(callerDir(session), e.Name()))
		var t callerTicket
		if err != nil || json.Unmarshal(b, &t) != nil || !gitrepo.Sealed(key, t.sealData(session, e.Name()), t.Seal) {
			continue
		}
		if found != nil && found.Agent != t.Agent {
			return c // calls of two agents in flight: no subagent can be named
		}
		found = &t
	}
	if found != nil {
		c.Agent, c.AgentType = found.Agent, found.AgentType
	}
	return c
}
