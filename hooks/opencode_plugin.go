package hooks

import (
	"encoding/json"
	"strings"
)

// OpencodePluginMarker is the first line of the plugin `hooks install --opencode` writes: the file
// is exarchos's own, recognised by it.
const OpencodePluginMarker = "// exarchos: git exarchos's hooks for opencode"

// OpencodeEvents are the events the plugin sends the handler (its entries, for hooks status).
var OpencodeEvents = []string{"tool.execute.before", "tool.execute.after"}

// OpencodePlugin is opencode's plugin (.opencode/plugins/exarchos.js): opencode blocks a tool only
// from a JavaScript plugin, so the plugin sends each call to the handler (command, the program
// and its arguments: `git-exarchos hook opencode`) in Claude Code's payload with opencode's names,
// and does what it answers: a refusal is thrown before the call (opencode gives the model the
// error as the tool's result), a block after it is appended to the tool's output. A handler that
// cannot run or answers what cannot be read refuses: the hook fails closed.
func OpencodePlugin(command string) []byte {
	argv, _ := json.Marshal(strings.Fields(command))
	return []byte(OpencodePluginMarker + ` (written by ` + "`git exarchos hooks install --opencode`" + `; ` + "`hooks uninstall --opencode`" + ` removes it).
import { spawnSync } from "node:child_process"

const handler = ` + string(argv) + `

function ask(event, payload) {
  const r = spawnSync(handler[0], handler.slice(1), {
    input: JSON.stringify({ hook_event_name: event, ...payload }),
    encoding: "utf8",
    timeout: 20000,
  })
  if (r.error || r.status !== 0) {
    const why = r.error ? r.error.message : (r.stderr || "exit " + r.status).trim()
    return { decision: "deny", reason: "git exarchos: the hook could not judge this call (" + why + "), so it is refused" }
  }
  try {
    return JSON.parse(r.stdout || "{}")
  } catch {
    return { decision: "deny", reason: "git exarchos: the hook's answer could not be read, so the call is refused" }
  }
}

export const Exarchos = async ({ directory, worktree }) => {
  const cwd = directory || worktree || process.cwd()
  return {
    "tool.execute.before": async (input, output) => {
      const a = ask("tool.execute.before", { session_id: input.sessionID, cwd, tool_name: input.tool, tool_input: output.args ?? {} })
      if (a.decision === "deny" || a.decision === "block") throw new Error(a.reason)
    },
    "tool.execute.after": async (input, output) => {
      const a = ask("tool.execute.after", { session_id: input.sessionID, cwd, tool_name: input.tool, tool_input: input.args ?? {} })
      if (a.decision === "deny" || a.decision === "block") output.output = (output.output ?? "") + "\n\n" + a.reason
    },
  }
}
`)
}
