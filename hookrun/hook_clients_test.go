package hookrun_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/exarchos/git-exarchos/app"
	"github.com/exarchos/git-exarchos/hookrun"
	"github.com/exarchos/git-exarchos/hooks"
	"github.com/exarchos/git-exarchos/internal/gittest"
	"github.com/exarchos/git-exarchos/workflow"
)

// clientPayloads are the hook payloads of each client, in the shape its documentation gives
// (hooks/testdata/client-payloads.json: Gemini CLI's docs/hooks/reference.md shipped in its npm
// package, Qwen Code's docs/features/hooks.md likewise, Codex's and Copilot CLI's hooks
// references), with $CWD, $SESSION, $TOOL_ID and the tool's input filled in by the test.
type clientPayloads struct {
	Client string `json:"client"`
	// Events names each of the client's events for Claude Code's.
	Events map[string]string `json:"events"`
	// Tools names the client's shell, file-write and file-edit tools.
	Tools map[string]string `json:"tools"`
	// Payload is a template of a tool event's payload; PayloadSession one of a session start.
	Payload        json.RawMessage `json:"payload"`
	PayloadSession json.RawMessage `json:"payloadSession"`
}

func loadClientPayloads(t *testing.T) []clientPayloads {
	b, err := os.ReadFile(filepath.Join("..", "hooks", "testdata", "client-payloads.json"))
	require.NoError(t, err)
	var ps []clientPayloads
	require.NoError(t, json.Unmarshal(b, &ps))
	require.Len(t, ps, 4, "codex, gemini, qwen, copilot")
	return ps
}

// call runs `git exarchos hook <client> [event]` on one payload, as the client does, and returns
// the raw answer.
func (p clientPayloads) call(t *testing.T, session, cwd, event, tool string, input any) map[string]any {
	t.Helper()
	toolUse++
	ti, err := json.Marshal(input)
	require.NoError(t, err)
	tmpl := p.Payload
	if tool == "" {
		tmpl = p.PayloadSession
	}
	var m map[string]any
	require.NoError(t, json.Unmarshal(tmpl, &m))
	for k, v := range m {
		switch v {
		case "$CWD":
			m[k] = cwd
		case "$SESSION":
			m[k] = session
		case "$EVENT":
			m[k] = event
		case "$TOOL":
			m[k] = tool
		case "$TOOL_ID":
			m[k] = fmt.Sprintf("call_%d", toolUse)
		case "$INPUT":
			m[k] = json.RawMessage(ti)
		case "$INPUT_STRING": // the arguments as a JSON string, as Copilot CLI's docs give them
			m[k] = string(ti)
		}
	}
	payload, err := json.Marshal(m)
	require.NoError(t, err)
	var out, errOut bytes.Buffer
	require.NoError(t, hookrun.ClaudeHook(hookrun.ClaudeHookOptions{Client: p.Client, Event: event, Stdin: bytes.NewReader(payload),
		Stdout: &out, Stderr: &errOut, StartMonitor: testMonitor, Getenv: func(string) string { return "" }}))
	var a map[string]any
	require.NoError(t, json.Unmarshal(out.Bytes(), &a), "%s answer %q (stderr %q)", p.Client, out.String(), errOut.String())
	return a
}

// refusal is the text by which the client's answer refuses a call or adds a block to its result,
// or "": each client's shape (hooks.Output.WriteFor).
func refusal(a map[string]any) string {
	hso, _ := a["hookSpecificOutput"].(map[string]any)
	switch {
	case a["permissionDecision"] == "deny":
		return a["permissionDecisionReason"].(string)
	case hso != nil && hso["permissionDecision"] == "deny":
		return hso["permissionDecisionReason"].(string)
	case a["decision"] == "deny" || a["decision"] == "block":
		return a["reason"].(string)
	case hso != nil && hso["hookEventName"] == "AfterTool": // Gemini adds the block to the tool's result
		return hso["additionalContext"].(string)
	}
	return ""
}

// contextOf is the session-start context in the client's answer.
func contextOf(a map[string]any) string {
	if s, ok := a["additionalContext"].(string); ok {
		return s
	}
	hso, _ := a["hookSpecificOutput"].(map[string]any)
	s, _ := hso["additionalContext"].(string)
	return s
}

// TestClientHooksEnforceTheSameRules: every client's hook, on its own payloads, refuses what
// Claude Code's does, in the client's answer: a human decision through the shell, a file write in
// a planning phase (Codex's patch by the files it names), a shell call where the phase allows no
// shell, and blocks a write through the shell after the fact; its session start carries the
// workflow's context; and the workflow's state is unchanged by all of it.
func TestClientHooksEnforceTheSameRules(t *testing.T) {
	for _, p := range loadClientPayloads(t) {
		t.Run(p.Client, func(t *testing.T) {
			dir, r := loginRepo(t)
			_, err := app.Set(r, app.SetOptions{Feature: "login", Assignments: []string{"artifacts.design=docs/design.md"}})
			require.NoError(t, err)
			before, _, err := r.State("login")
			require.NoError(t, err)
			session := "s-" + p.Client
			ev := func(claude string) string { return p.Events[claude] }
			pre := func(tool string, input any) string {
				return refusal(p.call(t, session, dir, ev(hooks.PreToolUse), tool, input))
			}

			ctx := contextOf(p.call(t, session, dir, ev(hooks.SessionStart), "", nil))
			assert.Contains(t, ctx, "login", "the session-start context names the workflow")
			assert.Contains(t, ctx, "ideate")

			assert.Contains(t, pre(p.Tools["shell"], bash("git exarchos approve login")), "human", "a human decision through the shell")
			assert.Empty(t, pre(p.Tools["shell"], bash("git status")), "a read-only command passes")
			if p.Tools["read"] != "" { // Codex reads through its shell
				assert.Empty(t, pre(p.Tools["read"], map[string]string{"file_path": filepath.Join(dir, "main.go"), "path": filepath.Join(dir, "main.go")}), "reading passes")
			}

			code := filepath.Join(dir, "main.go")
			writeArgs := map[string]string{"file_path": code, "path": code, "content": "x", "file_text": "x"}
			if p.Client == hooks.ClientCodex {
				patch := "*** Begin Patch\n*** Update File: docs/design.md\n@@\n+ok\n*** Add File: main.go\n+package main\n*** End Patch\n"
				assert.Contains(t, pre("apply_patch", map[string]string{"command": patch}), "main.go", "a patch is judged by every file it names")
				docsOnly := "*** Begin Patch\n*** Add File: docs/design.md\n+# design\n*** End Patch\n"
				assert.Empty(t, pre("apply_patch", map[string]string{"command": docsOnly}), "a patch of the phase's documents passes")
				// Codex 0.171 without its apply_patch tool (a model it has no metadata for) runs the patch
				// through its shell tool, as it was seen to: the command is judged by the patch's files.
				heredoc := "apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: " + filepath.Join(dir, "src", "login.go") + "\n+package src\n*** End Patch\nEOF\n"
				assert.Contains(t, pre(p.Tools["shell"], bash(heredoc)), "login.go", "a patch through the shell is judged by its files")
				assert.Contains(t, pre(p.Tools["shell"], bash("applypatch <<'EOF'\n*** Begin Patch\n*** Update File: main.go\n@@\n+x\n*** End Patch\nEOF")), "main.go")
				assert.Empty(t, pre(p.Tools["shell"], bash("apply_patch <<'EOF'\n"+docsOnly+"EOF\n")), "a patch of the phase's documents through the shell passes")
				assert.Contains(t, pre(p.Tools["shell"], bash("cd docs && apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: ../main.go\n+x\n*** End Patch\nEOF\n")), "main.go", "a patch run from another directory")
				assert.Contains(t, pre(p.Tools["shell"], bash("cd src && apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: docs/design.md\n+x\n*** End Patch\nEOF\n")), "src/docs/design.md", "a patch's paths are the directory's it runs in")
				assert.Contains(t, pre(p.Tools["shell"], bash("cd src\napply_patch <<'EOF'\n*** Begin Patch\n*** Add File: docs/design.md\n+x\n*** End Patch\nEOF\n")), "src/docs/design.md")
				assert.Contains(t, pre(p.Tools["shell"], bash("cd src; cd ..; cd src && apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: docs/design.md\n@@\n+x\n*** End Patch\nEOF\n")), "src/docs/design.md")
			} else {
				assert.Contains(t, pre(p.Tools["write"], writeArgs), "main.go", "a file write in a planning phase")
				assert.Contains(t, pre(p.Tools["edit"], map[string]string{"file_path": code, "path": code, "old_string": "a", "new_string": "b"}), "main.go")
				docs := filepath.Join(dir, "docs", "design.md")
				assert.Empty(t, pre(p.Tools["write"], map[string]string{"file_path": docs, "path": docs, "content": "x"}), "the phase's documents pass")
			}

			// A write through the shell, caught after the fact.
			gittest.WriteFile(t, dir, "src/new.go", "package src\n")
			post := p.call(t, session, dir, ev(hooks.PostToolUse), p.Tools["shell"], bash("echo > src/new.go"))
			assert.Contains(t, refusal(post), "src/new.go (untracked)", "%v", post)
			if p.Client == hooks.ClientQwen || p.Client == hooks.ClientGemini {
				// They add to the tool's result only hookSpecificOutput.additionalContext (Qwen Code
				// 0.24.4 ignores decision "block" after the fact: seen in e2e/qwen_test.go).
				assert.Contains(t, contextOf(post), "src/new.go (untracked)", "%v", post)
			}
			require.NoError(t, os.Remove(filepath.Join(dir, "src", "new.go")))

			after, _, err := r.State("login")
			require.NoError(t, err)
			assert.Equal(t, "ideate", after.Phase, "the workflow's state is unchanged")
			assert.Equal(t, before.Artifacts, after.Artifacts)
			assert.Equal(t, before.Approvals, after.Approvals, "no human decision was taken")
		})
	}
}

// TestClientHooksRefuseTheShellWhereThePhaseAllowsNone: a phase whose allowedTools leave the shell
// out refuses every client's shell tool (mapped onto Bash), with the client's refusal.
func TestClientHooksRefuseTheShellWhereThePhaseAllowsNone(t *testing.T) {
	for _, p := range loadClientPayloads(t) {
		t.Run(p.Client, func(t *testing.T) {
			dir, _ := loginRepo(t)
			def := "type: look\ndescription: read only\ninitial: look\nphases:\n  - id: look\n    allowedTools: [Read, Grep]\n  - id: done\n    kind: final\ntransitions:\n  - from: look\n    to: done\n"
			gittest.Git(t, dir, "", "switch", "-q", "main")
			gittest.CommitFile(t, dir, ".exarchos/workflows/look.yaml", def)
			gittest.Git(t, dir, "", "switch", "-q", "-c", "look")
			r, err := app.Open(dir)
			require.NoError(t, err)
			_, err = r.CreateWorkflow(workflow.Init{Feature: "look", Type: "look", Branch: "look"})
			require.NoError(t, err)
			a := p.call(t, "s-look-"+p.Client, dir, p.Events[hooks.PreToolUse], p.Tools["shell"], bash("ls"))
			assert.Contains(t, refusal(a), "Bash", "%v", a)
			if p.Tools["read"] != "" {
				read := filepath.Join(dir, "main.go")
				assert.Empty(t, refusal(p.call(t, "s-look-"+p.Client, dir, p.Events[hooks.PreToolUse], p.Tools["read"], map[string]string{"file_path": read, "path": read})))
			}
		})
	}
}

// TestClientHooksInstall: each client's hooks go into its own file in the scope it reads, next to
// what the file already holds; a second install changes nothing; the project files are recorded
// as installed (no change of a phase's); uninstall removes exactly what install added.
func TestClientHooksInstall(t *testing.T) {
	dir, _ := loginRepo(t)
	t.Setenv("HOME", t.TempDir())
	t.Setenv("COPILOT_HOME", "")
	gittest.WriteFile(t, dir, ".gemini/settings.json", "{\n  \"theme\": \"dark\"\n}\n")
	o := app.HooksOptions{Dir: dir, Clients: []string{hooks.ClientCodex, hooks.ClientGemini, hooks.ClientQwen, hooks.ClientCopilot}}
	res, err := app.HooksInstall(o)
	require.NoError(t, err)
	require.Len(t, res.Clients, 4)
	home, _ := os.UserHomeDir()
	want := map[string]string{hooks.ClientCodex: filepath.Join(dir, ".codex", "hooks.json"), hooks.ClientGemini: filepath.Join(dir, ".gemini", "settings.json"),
		hooks.ClientQwen: filepath.Join(dir, ".qwen", "settings.json"), hooks.ClientCopilot: filepath.Join(home, ".copilot", "hooks", "exarchos.json")}
	for _, st := range res.Clients {
		assert.Equal(t, want[st.Client], st.Path, st.Client)
		assert.True(t, st.Changed, st.Client)
		assert.Len(t, st.Events, len(hooks.ClientEntries(st.Client)), st.Client)
	}
	gemini, err := os.ReadFile(want[hooks.ClientGemini])
	require.NoError(t, err)
	assert.Contains(t, string(gemini), `"theme": "dark"`, "the file's other keys are kept")
	assert.Contains(t, string(gemini), `hook gemini`)
	copilot, err := os.ReadFile(want[hooks.ClientCopilot])
	require.NoError(t, err)
	assert.Contains(t, string(copilot), `hook copilot preToolUse`, "Copilot's command names its event")
	assert.Contains(t, res.Warnings[0], "/hooks", "Codex's trust is said")
	// Each client's guidance, where it reads it: Codex's skills and AGENTS.md section in the
	// project, Gemini's extension and Copilot's skills in the home directory, Qwen's commands.
	guidanceFiles := []string{filepath.Join(dir, ".agents", "skills", "exarchos-feature", "SKILL.md"), filepath.Join(dir, "AGENTS.md"),
		filepath.Join(home, ".gemini", "extensions", "exarchos", "gemini-extension.json"), filepath.Join(home, ".gemini", "extensions", "exarchos", "commands", "exarchos", "feature.toml"),
		filepath.Join(dir, ".qwen", "commands", "exarchos", "feature.toml"), filepath.Join(dir, ".qwen", "skills", "exarchos-guide-tdd", "SKILL.md"), filepath.Join(dir, "QWEN.md"),
		filepath.Join(home, ".copilot", "skills", "exarchos-feature", "SKILL.md"), filepath.Join(home, ".copilot", "copilot-instructions.md")}
	for _, f := range guidanceFiles {
		assert.FileExists(t, f)
	}
	for _, st := range res.Clients {
		assert.NotEmpty(t, st.Guidance, "%s: the guidance written is listed", st.Client)
	}

	again, err := app.HooksInstall(o)
	require.NoError(t, err)
	for _, st := range again.Clients {
		assert.False(t, st.Changed, "%s: a second install changes nothing", st.Client)
		assert.Empty(t, st.Guidance, "%s: nor its guidance", st.Client)
	}
	// A guidance file that differs from what this version writes shows in hooks status.
	gittest.WriteFile(t, dir, ".qwen/commands/exarchos/feature.toml", "description = \"old\"\nprompt = \"old\"\n")
	status, err := app.HooksStatus(app.HooksOptions{Dir: dir, Clients: []string{hooks.ClientQwen}})
	require.NoError(t, err)
	assert.Equal(t, []string{filepath.Join(dir, ".qwen", "commands", "exarchos", "feature.toml")}, status.Clients[0].Guidance)
	_, err = app.HooksInstall(app.HooksOptions{Dir: dir, Clients: []string{hooks.ClientQwen}})
	require.NoError(t, err)
	// Installed files are no change of the planning phase's: the effects check passes.
	a := callHook(t, "inst", dir, "PostToolUse", "Bash", bash("git exarchos hooks install --codex"))
	assert.Empty(t, a.denied())

	o.Environ = []string{"HOME=" + home}
	res, err = app.HooksUninstall(o)
	require.NoError(t, err)
	for _, st := range res.Clients {
		assert.Empty(t, st.Events, st.Client)
	}
	gemini, err = os.ReadFile(want[hooks.ClientGemini])
	require.NoError(t, err)
	assert.Equal(t, "{\n  \"theme\": \"dark\"\n}\n", string(gemini), "uninstall leaves the file as it was")
	for _, c := range []string{hooks.ClientCodex, hooks.ClientQwen, hooks.ClientCopilot} {
		assert.NoFileExists(t, want[c])
	}
	extension := filepath.Join(home, ".gemini", "extensions", "exarchos")
	for _, f := range guidanceFiles {
		if strings.HasPrefix(f, extension) {
			assert.FileExists(t, f, "Gemini's extension is the user's: other projects may use it")
		} else {
			assert.NoFileExists(t, f, "uninstall removes the guidance")
		}
	}
	_, err = app.HooksUninstall(app.HooksOptions{Dir: dir, Clients: []string{hooks.ClientGemini}, Scope: hooks.ScopeUser, Environ: o.Environ})
	require.NoError(t, err)
	assert.NoDirExists(t, extension, "the user scope's uninstall removes the extension")
	_, err = app.HooksInstall(app.HooksOptions{Dir: dir, Clients: []string{hooks.ClientCodex}, Scope: hooks.ScopeLocal})
	assert.ErrorContains(t, err, "no local scope")
}

// TestDoctorSaysCodexSkipsUntrustedHooks: with Codex's hooks installed, doctor says Codex will skip
// them until they are trusted, and how to trust them once.
func TestDoctorSaysCodexSkipsUntrustedHooks(t *testing.T) {
	dir, _ := loginRepo(t)
	t.Setenv("HOME", t.TempDir())
	_, err := app.HooksInstall(app.HooksOptions{Dir: dir, Clients: []string{hooks.ClientCodex, hooks.ClientGemini}})
	require.NoError(t, err)
	res, err := app.Doctor(app.DoctorOptions{Dir: dir})
	if err != nil && res == nil {
		require.NoError(t, err)
	}
	var ids []string
	for _, c := range res.Checks {
		ids = append(ids, c.ID)
		if c.ID == "codex-trust" {
			assert.Contains(t, c.Fix, "/hooks")
		}
	}
	assert.Contains(t, ids, "codex-trust")
	assert.Contains(t, ids, "client-hooks")
	assert.NotContains(t, ids, "client-guidance", "the guidance is what this version writes")

	// The guidance of an older version (or removed by hand): doctor says how to write it again.
	require.NoError(t, os.Remove(filepath.Join(dir, ".agents", "skills", "exarchos-feature", "SKILL.md")))
	res, _ = app.Doctor(app.DoctorOptions{Dir: dir})
	require.NotNil(t, res)
	found := false
	for _, c := range res.Checks {
		if c.ID == "client-guidance" {
			found = true
			assert.Contains(t, c.Message, "exarchos-feature")
			assert.Equal(t, "git exarchos hooks install --codex --scope project", c.Fix)
		}
	}
	assert.True(t, found, "doctor names the stale guidance")
}
