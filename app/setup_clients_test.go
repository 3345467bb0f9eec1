package app

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/exarchos/git-exarchos/hooks"
	"github.com/exarchos/git-exarchos/internal/gittest"
)

// TestSetupInstallsTheChosenClients: setup --clients installs every chosen client's hooks and
// guidance in one step whose command is the one install of them all; their project files are
// recorded as installed and committed on the base branch with the rest; a second run changes
// nothing; hooks status, doctor and hooks uninstall know every one of them.
func TestSetupInstallsTheChosenClients(t *testing.T) {
	dir, r := setupRepo(t)
	t.Setenv("CODEX_HOME", "")
	t.Setenv("COPILOT_HOME", "")
	home, _ := os.UserHomeDir()
	all := []string{"claude", "codex", "gemini", "qwen", "copilot"}
	res, err := Setup(r, SetupOptions{Clients: []string{"claude,codex", "gemini", "qwen,copilot"}, Commit: true})
	require.NoError(t, err)
	assert.Equal(t, all, res.Clients)
	st := stepOf(t, res, "hooks")
	assert.Equal(t, StepDone, st.Status)
	assert.Equal(t, "git exarchos hooks install --claude --codex --gemini --qwen --copilot", st.Command)
	for _, f := range []string{".claude/settings.json", ".codex/hooks.json", "AGENTS.md", ".agents/skills/exarchos-feature/SKILL.md",
		".gemini/settings.json", ".qwen/settings.json", ".qwen/commands/exarchos/feature.toml", "QWEN.md"} {
		assert.Contains(t, st.Files, f)
	}
	assert.Contains(t, st.Detail, "codex, /hooks", "Codex's trust is said")
	assert.NotContains(t, st.Detail, "--clients", "no note: the clients were named")
	assert.FileExists(t, filepath.Join(home, ".gemini", "extensions", "exarchos", "GEMINI.md"))
	assert.FileExists(t, filepath.Join(home, ".copilot", "hooks", "exarchos.json"))
	assert.FileExists(t, filepath.Join(home, ".copilot", "skills", "exarchos-feature", "SKILL.md"))
	committed := gittest.Git(t, dir, "", "show", "--name-only", "--format=", "HEAD")
	for _, f := range []string{".codex/hooks.json", "AGENTS.md", ".agents/skills/exarchos-guide-tdd/SKILL.md", ".qwen/commands/exarchos/status.toml", ".gemini/settings.json"} {
		assert.Contains(t, committed, f, "the clients' project files are committed on the base branch")
	}
	assert.Empty(t, strings.TrimSpace(gittest.Git(t, dir, "", "status", "--porcelain")))

	again, err := Setup(r, SetupOptions{Clients: all, Commit: true})
	require.NoError(t, err)
	for _, st := range again.Steps {
		assert.NotEqual(t, StepDone, st.Status, "%s done again: %+v", st.Step, st)
	}
	assert.Equal(t, StepAlready, stepOf(t, again, "hooks").Status)

	status, err := HooksStatus(HooksOptions{Dir: dir})
	require.NoError(t, err)
	installed := map[string]bool{}
	for _, c := range status.Clients {
		if len(c.Events) == len(hooks.ClientEntries(c.Client)) && len(c.Guidance) == 0 {
			installed[c.Client] = true
		}
	}
	assert.Len(t, installed, 4, "hooks status: %+v", status.Clients)
	doc, _ := Doctor(DoctorOptions{Dir: dir})
	require.NotNil(t, doc)
	ok := 0
	for _, c := range doc.Checks {
		if c.ID == "client-hooks" && c.Status == CheckOK {
			ok++
		}
		assert.NotEqual(t, "client-guidance", c.ID, c.Message)
	}
	assert.Equal(t, 4, ok, "doctor checks every client's hooks")

	_, err = HooksUninstall(HooksOptions{Dir: dir, Claude: true, Clients: all[1:], Environ: []string{"HOME=" + home}})
	require.NoError(t, err)
	for _, f := range []string{".codex/hooks.json", ".agents", "AGENTS.md", ".qwen/settings.json", ".qwen/commands", "QWEN.md"} {
		assert.NoFileExists(t, filepath.Join(dir, f))
		assert.NoDirExists(t, filepath.Join(dir, f))
	}
	assert.DirExists(t, filepath.Join(home, ".gemini", "extensions", "exarchos"), "the user's, left by a project's uninstall")
	assert.NoDirExists(t, filepath.Join(home, ".copilot", "skills", "exarchos-feature"))
}

// TestSetupAsksWhichClients: on a terminal setup asks which clients the team uses, naming them
// all; a wrong name asks again, saying what is wrong; Enter keeps Claude Code. A team without
// Claude Code gets neither its hooks nor its MCP server.
func TestSetupAsksWhichClients(t *testing.T) {
	dir, r := setupRepo(t)
	t.Setenv("CODEX_HOME", "")
	var asked []string
	answers := []string{"codex, cursor\n", "codex gemini\n"}
	ask := func(q string) string {
		asked = append(asked, q)
		if len(answers) == 0 || strings.HasSuffix(q, "[y/N] ") {
			return "n\n"
		}
		a := answers[0]
		answers = answers[1:]
		return a
	}
	res, err := Setup(r, SetupOptions{Ask: ask})
	require.NoError(t, err)
	assert.Equal(t, []string{"codex", "gemini"}, res.Clients)
	for _, c := range hooks.Clients {
		assert.Contains(t, asked[0], c)
	}
	assert.Contains(t, asked[1], `unknown agent client "cursor"`)
	assert.Equal(t, "git exarchos hooks install --codex --gemini", stepOf(t, res, "hooks").Command)
	assert.Equal(t, StepSkipped, stepOf(t, res, "mcp").Status)
	assert.NoFileExists(t, filepath.Join(dir, ".claude", "settings.json"))
	assert.NoFileExists(t, filepath.Join(dir, MCPConfigFile))
	assert.FileExists(t, filepath.Join(dir, ".codex", "hooks.json"))
	assert.Equal(t, StepLeftForHuman, stepOf(t, res, "commit").Status, "the yes/no questions go through the same terminal")

	dir2, r2 := setupRepo(t)
	res, err = Setup(r2, SetupOptions{Ask: func(q string) string { return "\n" }})
	require.NoError(t, err)
	assert.Equal(t, []string{"claude"}, res.Clients, "Enter keeps Claude Code")
	assert.FileExists(t, filepath.Join(dir2, ".claude", "settings.json"))
	assert.NoFileExists(t, filepath.Join(dir2, ".codex", "hooks.json"))
}

// TestSetupWithoutATerminalKeepsClaudeCode: not told and unable to ask, setup installs Claude
// Code's hooks as before and says how to add the other clients; a client it does not know is a
// usage error that changes nothing; a dry run writes no client's file.
func TestSetupWithoutATerminalKeepsClaudeCode(t *testing.T) {
	dir, r := setupRepo(t)
	res, err := Setup(r, SetupOptions{DryRun: true, Clients: []string{"codex"}})
	require.NoError(t, err)
	assert.Equal(t, StepWouldDo, stepOf(t, res, "hooks").Status)
	assert.NoDirExists(t, filepath.Join(dir, ".codex"))
	assert.NoFileExists(t, filepath.Join(dir, "AGENTS.md"))

	_, err = Setup(r, SetupOptions{Clients: []string{"codex,vscode"}})
	require.ErrorContains(t, err, `unknown agent client "vscode": name any of claude, codex, gemini, qwen, copilot, opencode`)
	assert.Empty(t, strings.TrimSpace(gittest.Git(t, dir, "", "status", "--porcelain", "--untracked-files=all")), "nothing written")

	res, err = Setup(r, SetupOptions{})
	require.NoError(t, err)
	assert.Equal(t, []string{"claude"}, res.Clients)
	st := stepOf(t, res, "hooks")
	assert.Equal(t, "git exarchos hooks install --claude", st.Command)
	assert.Contains(t, st.Detail, "git exarchos setup --clients claude,codex,gemini,qwen,copilot,opencode")
	assert.NoDirExists(t, filepath.Join(dir, ".codex"))
}
