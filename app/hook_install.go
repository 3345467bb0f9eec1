package app

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/exarchos/git-exarchos/fsmonitor"
	"github.com/exarchos/git-exarchos/guidance"
	"github.com/exarchos/git-exarchos/hookrun"
	"github.com/exarchos/git-exarchos/hooks"
	"github.com/exarchos/git-exarchos/internal/agentenv"
	"github.com/exarchos/git-exarchos/project"
	"github.com/exarchos/git-exarchos/trust"
)

// HooksOptions selects what `hooks install|uninstall|status` acts on. With neither Claude nor Git,
// install and uninstall are usage errors and status shows both.
type HooksOptions struct {
	Claude bool
	Git    bool
	// Clients are the other agent clients whose hooks to act on (hooks.ClientCodex, …): each
	// client's own configuration, in the scope it reads (hooks.ClientSettingsPath).
	Clients []string
	Scope   string // Claude Code settings scope: project (default), local or user
	Dir     string // where to find the repository; "" is the working directory
	// Environ is the caller's environment (nil: the process's); uninstall refuses an agent's.
	Environ agentenv.Env
}

// ClaudeHooksState is one settings file as `hooks` reports it.
type ClaudeHooksState struct {
	Scope   string   `json:"scope"`
	Path    string   `json:"path"`
	Exists  bool     `json:"exists"`
	Events  []string `json:"events"` // events with exarchos's handler
	Changed bool     `json:"changed,omitempty"`
	Error   string   `json:"error,omitempty"`
}

// ClientHooksState is one client's hook file as `hooks` reports it (Codex CLI, Gemini CLI, Qwen
// Code, Copilot CLI).
type ClientHooksState struct {
	Client  string   `json:"client"`
	Scope   string   `json:"scope"`
	Path    string   `json:"path"`
	Exists  bool     `json:"exists"`
	Events  []string `json:"events"`
	Changed bool     `json:"changed,omitempty"`
	Error   string   `json:"error,omitempty"`
	// Guidance: install and uninstall, the guidance files written or removed (the plugin's
	// commands, skills and agents in the client's form, package guidance); status, those missing
	// or not what this version writes.
	Guidance []string `json:"guidance,omitempty"`
	verb     string   // what happened to Guidance, for GuidanceNote
}

// GuidanceNote says what happened to the client's guidance, for the text output ("" for nothing).
func (s ClientHooksState) GuidanceNote() string {
	if len(s.Guidance) == 0 {
		return ""
	}
	return fmt.Sprintf("; guidance: %d files %s", len(s.Guidance), s.verb)
}

// HooksResult is what `hooks install|uninstall|status` prints.
type HooksResult struct {
	Claude  []ClaudeHooksState   `json:"claude,omitempty"`
	Clients []ClientHooksState   `json:"clients,omitempty"`
	GitDir  string               `json:"gitHooksDir,omitempty"`
	Git     []hooks.GitHookState `json:"git,omitempty"`
	Command string               `json:"command,omitempty"` // the handler command installed
	// Monitor is the state of the file-system monitor of this worktree that PostToolUse's effects
	// check reads (status only): "watching", "not running", or why it cannot run.
	Monitor  string   `json:"monitor,omitempty"`
	Warnings []string `json:"warnings,omitempty"`
	// PluginSkipped: install left the Claude Code settings alone because the exarchos plugin is
	// enabled and its hooks run the handler.
	PluginSkipped bool `json:"pluginSkipped,omitempty"`
}

// claudeHookCommand is the handler command to install: git-exarchos itself when it is on PATH,
// which spares every tool call git's own start-up (about 2 ms), else through git.
func claudeHookCommand() string {
	if _, err := exec.LookPath("git-exarchos"); err == nil {
		return "git-exarchos hook claude"
	}
	return "git exarchos hook claude"
}

// HooksInstall installs the Claude Code hooks into one settings file and/or the git hooks.
func HooksInstall(o HooksOptions) (*HooksResult, error) {
	return changeHooks(o, true)
}

// HooksUninstall removes exactly what HooksInstall added.
func HooksUninstall(o HooksOptions) (*HooksResult, error) {
	if err := trust.RefuseInAgent(trust.EnvironOr(o.Environ), "hooks uninstall"); err != nil {
		return nil, err
	}
	return changeHooks(o, false)
}

func changeHooks(o HooksOptions, install bool) (*HooksResult, error) {
	verb := map[bool]string{true: "install", false: "uninstall"}[install]
	if !o.Claude && !o.Git && len(o.Clients) == 0 {
		return nil, project.Usagef("say what to %s: --claude, --codex, --gemini, --qwen, --copilot, --git (any of them)", verb)
	}
	res := &HooksResult{}
	// Installing changes what PostToolUse watches (the settings file, the git hooks): its own
	// writes are accepted (ownControlWrites).
	if r, err := Open(dirOr(o.Dir)); err == nil && install {
		if r.hookRuntime().CheckControls(r.WorkTree()) == "" {
			defer r.hookRuntime().AcceptControls()
		}
	}
	for _, client := range o.Clients {
		st, err := changeClientHooks(o, client, install)
		if err != nil {
			return nil, err
		}
		res.Clients = append(res.Clients, st)
		if install && client == hooks.ClientCodex {
			res.Warnings = append(res.Warnings, codexTrustNote(st.Path))
		}
	}
	if o.Claude {
		scope := o.Scope
		if scope == "" {
			scope = hooks.ScopeProject
		}
		path, err := hookrun.SettingsPath(o.Dir, scope)
		if err != nil {
			return nil, err
		}
		s, err := hooks.LoadSettings(path)
		if err != nil {
			return nil, err
		}
		var changed bool
		if install {
			if enabledIn := hookrun.PluginEnabledIn(o.Dir); enabledIn != "" {
				// The plugin's hooks run the handler already; a second install would make Claude
				// Code run it twice for every event.
				res.PluginSkipped = true
				res.Claude = []ClaudeHooksState{{Scope: scope, Path: path, Exists: s.Exists, Events: nonNil(s.Installed())}}
				res.Warnings = append(res.Warnings, "the exarchos Claude Code plugin is enabled ("+enabledIn+"): its hooks run the handler, so none is installed into "+path+"; to use settings instead, disable the plugin (/plugin disable exarchos) and run this again")
				return finishGitHooks(o, install, res)
			}
			res.Command = claudeHookCommand()
			changed, err = s.Install(res.Command, hooks.ClaudeEntries)
		} else {
			changed, err = s.Uninstall()
		}
		if err != nil {
			return nil, err
		}
		if changed {
			if err := s.Save(); err != nil {
				return nil, err
			}
		}
		if install {
			if err := hookrun.RecordInstalled(path); err != nil {
				return nil, err
			}
		}
		res.Claude = []ClaudeHooksState{{Scope: scope, Path: path, Exists: s.Exists || changed && !s.Empty(), Events: nonNil(s.Installed()), Changed: changed}}
		if install && scope == hooks.ScopeLocal {
			res.Warnings = append(res.Warnings, "keep "+path+" out of commits (Claude Code adds it to .gitignore when it creates the file itself)")
		}
	}
	return finishGitHooks(o, install, res)
}

// changeClientHooks installs or removes one client's hooks in its file of o.Scope (project, or
// user for Copilot CLI, whose repository hooks do not run with -p).
func changeClientHooks(o HooksOptions, client string, install bool) (ClientHooksState, error) {
	scope := o.Scope
	if scope == "" || client == hooks.ClientCopilot && scope == hooks.ScopeProject {
		scope = map[bool]string{true: hooks.ScopeUser, false: hooks.ScopeProject}[client == hooks.ClientCopilot]
	}
	path, err := clientHooksPath(o.Dir, client, scope)
	if err != nil {
		return ClientHooksState{}, err
	}
	f, err := hooks.LoadClientHooks(client, path)
	if err != nil {
		return ClientHooksState{}, err
	}
	var changed bool
	if install {
		changed, err = f.Install(claudeHookCommand())
		if err == nil {
			err = hookrun.RecordInstalled(path)
		}
	} else {
		changed, err = f.Uninstall()
	}
	if err != nil {
		return ClientHooksState{}, err
	}
	written, err := changeGuidance(o.Dir, client, scope, install)
	if err != nil {
		return ClientHooksState{}, err
	}
	_, statErr := os.Stat(path) // uninstall may have removed the file
	verb := map[bool]string{true: "written", false: "removed"}[install]
	return ClientHooksState{Client: client, Scope: scope, Path: path, Exists: statErr == nil, Events: nonNil(f.Installed()), Changed: changed, Guidance: written, verb: verb}, nil
}

// clientGuidance is a client's guidance where it reads it in scope (guidance.Place); none for a
// client guidance does not render (opencode).
func clientGuidance(dir, client, scope string) ([]guidance.File, error) {
	if !slices.Contains(guidance.Clients, client) {
		return nil, nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return nil, fmt.Errorf("find the home directory for the %s guidance: %w", client, err)
	}
	var root string
	if scope == hooks.ScopeProject {
		if root, err = project.WorkTree(dirOr(dir)); err != nil {
			return nil, err
		}
	}
	return guidance.Place(client, scope, root, home, os.Getenv)
}

// changeGuidance writes (or removes) a client's guidance beside its hooks and returns the files
// it changed; each written file is recorded as installed, so a phase's paths do not count it.
func changeGuidance(dir, client, scope string, install bool) ([]string, error) {
	files, err := clientGuidance(dir, client, scope)
	if err != nil {
		return nil, err
	}
	if !install {
		if root, err := project.WorkTree(dirOr(dir)); err == nil && scope == hooks.ScopeProject {
			// Gemini's extension is in the user's home whatever the scope: other projects' hooks
			// may use it, so only `--scope user` removes it.
			files = slices.DeleteFunc(files, func(f guidance.File) bool {
				rel, err := filepath.Rel(root, f.Path)
				return err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator))
			})
		}
		return guidance.Uninstall(files)
	}
	changed, err := guidance.Install(files)
	if err != nil {
		return changed, err
	}
	for _, f := range files {
		if err := hookrun.RecordInstalled(f.Path); err != nil {
			return changed, err
		}
	}
	return changed, nil
}

// staleGuidance lists a client's guidance files in scope that are missing or differ from what
// this version writes (hooks status, doctor).
func staleGuidance(dir, client, scope string) []string {
	files, err := clientGuidance(dir, client, scope)
	if err != nil {
		return nil
	}
	var stale []string
	for _, f := range files {
		if !f.Current() {
			stale = append(stale, f.Path)
		}
	}
	return stale
}

// clientHooksPath is a client's hook file in scope; project needs the repository.
func clientHooksPath(dir, client, scope string) (string, error) {
	var root, home string
	if scope == hooks.ScopeUser || client == hooks.ClientCopilot {
		h, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("find the home directory for the user scope: %w", err)
		}
		home = h
	}
	if scope == hooks.ScopeProject {
		r, err := Open(dirOr(dir))
		if err != nil {
			return "", err
		}
		if r.WorkTree() == "" {
			return "", project.Usagef("a bare repository has no working tree for the %s hooks: use --scope user", client)
		}
		root = r.WorkTree()
	}
	path, err := hooks.ClientSettingsPath(client, scope, root, home, os.Getenv)
	if err != nil {
		return "", project.Usagef("%v", err)
	}
	return path, nil
}

// codexTrustNote says what Codex needs before it runs the hooks it was given.
func codexTrustNote(path string) string {
	return "Codex runs a new or changed hook only once you trust it, and skips an untrusted one silently: open codex, run /hooks and trust the exarchos hooks of " + path + " (once per change); a project's .codex/ is read only in a trusted project"
}

// finishGitHooks installs or removes the git hooks when asked, after the Claude Code part.
func finishGitHooks(o HooksOptions, install bool, res *HooksResult) (*HooksResult, error) {
	if o.Git {
		dir, err := project.GitHooksDir(o.Dir)
		if err != nil {
			return nil, err
		}
		res.GitDir = dir
		if install {
			res.Git, err = hooks.InstallGitHooks(dir)
		} else {
			res.Git, err = hooks.UninstallGitHooks(dir)
		}
		if err != nil {
			return res, err
		}
	}
	return res, nil
}

func dirOr(dir string) string {
	if dir == "" {
		return "."
	}
	return dir
}

// HooksStatus reports what is installed in every settings scope and in the git hooks directory.
func HooksStatus(o HooksOptions) (*HooksResult, error) {
	both := !o.Claude && !o.Git && len(o.Clients) == 0
	res := &HooksResult{Command: claudeHookCommand()}
	clients := o.Clients
	if both {
		clients = hooks.Clients[1:]
	}
	for _, client := range clients {
		for _, scope := range []string{hooks.ScopeProject, hooks.ScopeUser} {
			path, err := clientHooksPath(o.Dir, client, scope)
			if err != nil {
				continue // no such scope for the client, or no repository here
			}
			st := ClientHooksState{Client: client, Scope: scope, Path: path, Events: []string{}}
			if f, err := hooks.LoadClientHooks(client, path); err != nil {
				st.Error = err.Error()
			} else {
				st.Exists, st.Events = f.Exists, nonNil(f.Installed())
			}
			if len(st.Events) > 0 {
				st.Guidance, st.verb = staleGuidance(o.Dir, client, scope), "missing or out of date (git exarchos hooks install --"+client+")"
			}
			if st.Exists || !both {
				res.Clients = append(res.Clients, st)
			}
		}
	}
	if o.Claude || both {
		for _, scope := range hooks.Scopes {
			st := ClaudeHooksState{Scope: scope, Events: []string{}}
			path, err := hookrun.SettingsPath(o.Dir, scope)
			if err != nil {
				st.Error = err.Error()
				res.Claude = append(res.Claude, st)
				continue
			}
			st.Path = path
			if s, err := hooks.LoadSettings(path); err != nil {
				st.Error = err.Error()
			} else {
				st.Exists, st.Events = s.Exists, nonNil(s.Installed())
			}
			res.Claude = append(res.Claude, st)
		}
	}
	if o.Claude || both {
		res.Warnings = append(res.Warnings, claudeWarnings(o.Dir)...)
		res.Monitor = monitorState(o.Dir)
	}
	if o.Git || both {
		dir, err := project.GitHooksDir(o.Dir)
		if err != nil {
			res.Warnings = append(res.Warnings, "git hooks: "+err.Error())
		} else {
			res.GitDir, res.Git = dir, hooks.GitHooksStatus(dir)
		}
	}
	return res, nil
}

// monitorState says whether a file-system monitor watches the worktree enclosing dir.
func monitorState(dir string) string {
	r, err := Open(orDot(dir))
	if err != nil || r.WorkTree() == "" {
		return ""
	}
	if r.hookRuntime().HookMonitorOff() {
		return "off (git config exarchos.hookMonitor false): every PostToolUse runs git status"
	}
	_, err = fsmonitor.Token(r.WorkTree())
	switch {
	case err == nil:
		return "watching " + r.WorkTree()
	case errors.Is(err, fsmonitor.ErrNotRunning):
		return "not running (the next PostToolUse in a phase that restricts paths starts one)"
	default:
		return err.Error()
	}
}

// claudeWarnings says what would let tool calls through unjudged: no settings file installs the
// handler for the events that police tools, an install without "onFailure": "block", or a handler
// command whose program is not on PATH (Claude Code runs hooks with the environment it was started
// with; a handler it cannot start lets the call through unless its failure blocks).
func claudeWarnings(dir string) []string {
	var warnings []string
	installed := map[string]bool{}
	for _, scope := range hooks.Scopes {
		path, err := hookrun.SettingsPath(dir, scope)
		if err != nil {
			continue
		}
		s, err := hooks.LoadSettings(path)
		if err != nil {
			continue
		}
		for _, h := range s.Handlers() {
			installed[h.Event] = true
			if (h.Event == hooks.PreToolUse || h.Event == hooks.PostToolUse) && h.OnFailure != "block" {
				warnings = append(warnings, fmt.Sprintf("%s: the %s handler is installed without \"onFailure\": \"block\", so Claude Code lets a call through when the handler fails or times out: git exarchos hooks install --claude --scope %s (it upgrades the entry in place)", path, h.Event, scope))
			}
			if missing := missingProgram(h.Command); missing != "" {
				warnings = append(warnings, fmt.Sprintf("%s: the %s handler runs %s, which is not on PATH: Claude Code cannot start it; fix PATH for the shell Claude Code starts from, or reinstall with git-exarchos on PATH", path, h.Event, missing))
			}
		}
	}
	plugin := hookrun.PluginEnabledIn(dir)
	if plugin != "" && len(installed) > 0 {
		warnings = append(warnings, "the exarchos plugin is enabled ("+plugin+") and a settings file installs the handler too: the settings' handler decides and the plugin's stands aside; remove one (git exarchos hooks uninstall --claude --scope <scope>, or /plugin disable exarchos)")
	}
	for _, ev := range []string{hooks.PreToolUse, hooks.PostToolUse} {
		if !installed[ev] && plugin == "" {
			warnings = append(warnings, fmt.Sprintf("no settings file installs the %s handler, so tool calls are not judged: git exarchos hooks install --claude", ev))
		}
	}
	return warnings
}

// missingProgram names the program of a handler command that cannot be found on PATH, or "".
func missingProgram(command string) string {
	f := strings.Fields(command)
	if len(f) == 0 {
		return "nothing"
	}
	progs := []string{f[0]}
	if filepath.Base(f[0]) == "git" && len(f) > 1 && f[1] == "exarchos" {
		progs = append(progs, "git-exarchos")
	}
	for _, p := range progs {
		if _, err := exec.LookPath(p); err != nil {
			return p
		}
	}
	return ""
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func orDot(dir string) string {
	if dir == "" {
		return "."
	}
	return dir
}

// HooksRelease is `git exarchos hooks release`: sessions released from their workflows
// (hookrun.HooksRelease; the bindings are files of their own, so no repository is opened).
func HooksRelease(o hookrun.HooksReleaseOptions) (*hookrun.HooksReleaseResult, error) {
	return hookrun.HooksRelease(o)
}

// HooksAccept is `git exarchos hooks accept`: the hook runtime's controls take the current hook
// settings as the user's (hookrun.HooksAccept), refused in the environment r was opened in when it
// is an agent's (o.Environ, when nil).
func HooksAccept(r *Repo, o hookrun.HooksAcceptOptions) (*hookrun.HooksAcceptResult, error) {
	if o.Environ == nil {
		o.Environ = r.Environ
	}
	return hookrun.HooksAccept(r.hookRuntime(), o)
}
