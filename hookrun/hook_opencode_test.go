package hookrun_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/exarchos/git-exarchos/app"
	"github.com/exarchos/git-exarchos/hooks"
	"github.com/exarchos/git-exarchos/internal/agentenv"
	"github.com/exarchos/git-exarchos/internal/gittest"
)

// opencodeCalls runs the installed opencode plugin under node as opencode runs it (its hooks with
// opencode's input and output objects) and prints what each call came to: "denied: <reason>",
// "allowed", or the tool's output after the after-hook.
const opencodeCalls = `
const { Exarchos } = await import(process.argv[1])
const hooks = await Exarchos({ directory: process.argv[2] })
const before = async (tool, args) => {
  try { await hooks["tool.execute.before"]({ tool, sessionID: "ses_1", callID: "c" }, { args }); return "allowed" }
  catch (e) { return "denied: " + e.message }
}
console.log(await before("write", { filePath: process.argv[2] + "/src/a.go", content: "x" }))
console.log(await before("read", { filePath: process.argv[2] + "/main.go" }))
console.log(await before("bash", { command: "git exarchos approve login" }))
const fs = await import("node:fs")
fs.mkdirSync(process.argv[2] + "/src", { recursive: true })
fs.writeFileSync(process.argv[2] + "/src/b.go", "x\n") // what the command wrote
const out = { title: "", output: "ran", metadata: {} }
await hooks["tool.execute.after"]({ tool: "bash", sessionID: "ses_1", callID: "d", args: { command: "echo x > src/b.go" } }, out)
console.log("after: " + out.output.replace(/\n/g, " "))
`

// TestOpencodePluginRunsTheHooks: `hooks install --opencode` writes opencode's plugin; run as
// opencode runs it (node here, Bun in opencode) against the real binary, it refuses a file write
// and a human decision in a planning phase with the rules' reasons, lets a read through, and adds
// an after-the-fact block to the tool's output; uninstall removes it, and a plugin of the user's
// by that name is never overwritten.
func TestOpencodePluginRunsTheHooks(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed (npm ci installs the test tools with it)")
	}
	dir, _ := loginRepo(t)
	t.Setenv("HOME", t.TempDir())
	res, err := app.HooksInstall(app.HooksOptions{Dir: dir, Clients: []string{hooks.ClientOpencode}})
	require.NoError(t, err)
	plugin := filepath.Join(dir, ".opencode", "plugins", "exarchos.js")
	require.Equal(t, plugin, res.Clients[0].Path)
	assert.Equal(t, hooks.OpencodeEvents, res.Clients[0].Events)

	// node reads ECMAScript modules from .mjs; opencode loads the .js as one.
	b, err := os.ReadFile(plugin)
	require.NoError(t, err)
	mjs := filepath.Join(t.TempDir(), "exarchos.mjs")
	require.NoError(t, os.WriteFile(mjs, b, 0o644))
	bin := filepath.Dir(gittest.FaultsBinary(t))
	cmd := exec.Command(node, "--input-type=module", "-e", opencodeCalls, mjs, dir)
	cmd.Dir = dir
	cmd.Env = append(agentenv.Strip(gittest.Env()), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	require.Len(t, lines, 4, "%s", out)
	assert.Contains(t, lines[0], "denied: ", "a write in ideate")
	assert.Contains(t, lines[0], "is not allowed while workflow login (feature) is in phase ideate")
	assert.Equal(t, "allowed", lines[1], "a read")
	assert.Contains(t, lines[2], "denied: ", "a human decision")
	assert.Contains(t, lines[2], "`git exarchos approve` is a human decision")
	assert.True(t, strings.HasPrefix(lines[3], "after: ran "), "the block is added to the tool's output: %s", lines[3])

	// A handler that cannot run refuses.
	cmd = exec.Command(node, "--input-type=module", "-e", opencodeCalls, mjs, dir)
	cmd.Dir = dir
	cmd.Env = append(agentenv.Strip(gittest.Env()), "PATH=/nonexistent")
	out, err = cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	assert.Contains(t, string(out), "denied: git exarchos: the hook could not judge this call")

	_, err = app.HooksUninstall(app.HooksOptions{Dir: dir, Clients: []string{hooks.ClientOpencode}, Environ: []string{}})
	require.NoError(t, err)
	assert.NoFileExists(t, plugin)
	gittest.WriteFile(t, dir, ".opencode/plugins/exarchos.js", "export const Mine = async () => ({})\n")
	_, err = app.HooksInstall(app.HooksOptions{Dir: dir, Clients: []string{hooks.ClientOpencode}})
	assert.ErrorContains(t, err, "is not the file git exarchos writes")
}
