package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/exarchos/git-exarchos/app"
	"github.com/exarchos/git-exarchos/fsmonitor"
	"github.com/exarchos/git-exarchos/hookrun"
	"github.com/exarchos/git-exarchos/views"
)

// hookCommand is what installed hooks run; people run `hooks` (install, uninstall, status).
func hookCommand() *cli.Command {
	return &cli.Command{
		Name:      "hook",
		Usage:     "run a hook handler (called by Claude Code and by git hooks, not by hand)",
		UsageText: "git exarchos hook claude < payload.json\ngit exarchos hook git <pre-push|post-checkout|post-merge> [hook arguments]",
		Commands: []*cli.Command{
			{
				Name:  "claude",
				Usage: "answer a Claude Code hook event: the payload on stdin, the decision on stdout; exits 2 (block) on unreadable input",
				UsageText: `git exarchos hook claude [--json] [--plugin] < payload.json

Installed by ` + "`git exarchos hooks install --claude`" + `. Reads the hook JSON Claude Code sends
(hook_event_name, cwd, tool_name, tool_input, …) and answers for the workflows the session is bound
to (its first call binds it to the ones of the branch checked out at cwd). It fails closed: input it
cannot read exits 2, which Claude Code reads as a block. --plugin is what the Claude Code plugin's
hooks run: that handler stands aside (answers nothing) when a settings file also installs the
handler, so no event is handled twice.

Examples:
   echo '{"hook_event_name":"PreToolUse","cwd":".","tool_name":"Write","tool_input":{"file_path":"main.go"}}' | git exarchos hook claude`,
				Flags: []cli.Flag{jsonFlag, pluginFlag}, // --json accepted: the answer is always JSON
				Action: func(_ context.Context, c *cli.Command) error {
					args := []string{"git-exarchos", "hook", "claude"}
					if c.Bool("plugin") {
						args = append(args, "--plugin")
					}
					if code, _ := claudeHook(args, c.Root().Reader, c.Root().Writer, c.Root().ErrWriter); code != exitOK {
						return cli.Exit("", code) // 2: Claude Code blocks the call and shows stderr
					}
					return nil
				},
			},
			clientHookCommand("codex", "Codex CLI", "--codex", `{"hook_event_name":"PreToolUse","cwd":".","tool_name":"apply_patch","tool_input":{"command":"*** Begin Patch\n*** Add File: main.go\n+x\n*** End Patch"}}`, ""),
			clientHookCommand("gemini", "Gemini CLI", "--gemini", `{"hook_event_name":"BeforeTool","cwd":".","tool_name":"write_file","tool_input":{"file_path":"main.go"}}`, ""),
			clientHookCommand("qwen", "Qwen Code", "--qwen", `{"hook_event_name":"PreToolUse","cwd":".","tool_name":"run_shell_command","tool_input":{"command":"git exarchos approve"}}`, ""),
			clientHookCommand("copilot", "Copilot CLI", "--copilot", `{"cwd":".","toolName":"create","toolArgs":"{\"path\":\"main.go\"}"}`, " preToolUse"),
			{
				Name:      "monitor",
				Arguments: []cli.Argument{req("worktree")},
				Usage:     "watch a working tree for the PostToolUse effects check (started by the hook, not by hand)",
				Hidden:    true,
				UsageText: `git exarchos hook monitor [--idle 30m] <worktree>

The PostToolUse hook starts it in the background when none watches the worktree (Linux only). It
watches every directory of the worktree with inotify and tells the hook whether anything changed
since its last ` + "`git status`" + `, so a call on an unchanged tree does not lstat every file. It ends
when the worktree is removed or moved, or after --idle without a question; starting a second one
for the same worktree does nothing.

Examples:
   git exarchos hook monitor --idle 5m "$(git rev-parse --show-toplevel)" &`,
				Flags: []cli.Flag{&cli.DurationFlag{Name: "idle", Value: 30 * time.Minute, Usage: "end after this long without a question"}},
				Action: func(_ context.Context, c *cli.Command) error {
					err := fsmonitor.Serve(c.StringArg("worktree"), fsmonitor.Options{Idle: c.Duration("idle")})
					if errors.Is(err, fsmonitor.ErrAlreadyRunning) {
						return nil
					}
					return err
				},
			},
			{
				Name:      "git",
				Arguments: []cli.Argument{opt("hook", "<pre-push|post-checkout|post-merge>"), many("hook-args", 0, "[hook arguments]")},
				Usage:     "run exarchos's part of a git hook (pre-push, post-checkout, post-merge); never fails the git command",
				UsageText: `git exarchos hook git <pre-push|post-checkout|post-merge> [hook arguments]

Installed by ` + "`git exarchos hooks install --git`" + `, which calls it with git's arguments and input.

Examples:
   git exarchos hook git post-checkout HEAD HEAD 1`,
				SkipFlagParsing: true,
				Action: func(_ context.Context, c *cli.Command) error {
					args := argv(c)
					if len(args) > 0 && args[0] == "--" { // added by intersperse before positionals
						args = args[1:]
					}
					if len(args) == 0 {
						return usageErrf("name the git hook: pre-push, post-checkout or post-merge")
					}
					return hookrun.GitHook(hookrun.GitHookOptions{Name: args[0], Args: args[1:], Stdin: c.Root().Reader, Stderr: c.Root().ErrWriter, Push: pushWorkflows(c.Root().ErrWriter)})
				},
			},
		},
	}
}

// pushWorkflows runs this binary's `push` command for the pre-push hook, marked so that the nested
// git push skips the hook's work.
func pushWorkflows(stderr io.Writer) func(remote string) error {
	return func(remote string) error {
		self, err := os.Executable()
		if err != nil {
			return err
		}
		cmd := exec.Command(self, "push", remote)
		cmd.Env = append(os.Environ(), hookrun.InHookPushEnv+"=1")
		cmd.Stdout, cmd.Stderr = stderr, stderr
		return cmd.Run()
	}
}

var (
	pluginFlag = &cli.BoolFlag{Name: "plugin", Usage: "started by the Claude Code plugin's hooks: stand aside when a settings file also installs the handler"}
	claudeFlag = &cli.BoolFlag{Name: "claude", Usage: "the Claude Code hooks, in a settings file"}
	gitFlag    = &cli.BoolFlag{Name: "git", Usage: "the git hooks pre-push, post-checkout and post-merge"}
	// The other agent clients' hooks (docs/clients.md), each in its own configuration.
	clientFlags = []cli.Flag{
		&cli.BoolFlag{Name: "codex", Usage: "the Codex CLI hooks (.codex/hooks.json; user: ~/.codex/hooks.json) and guidance (.agents/skills, a section of AGENTS.md)"},
		&cli.BoolFlag{Name: "gemini", Usage: "the Gemini CLI hooks (.gemini/settings.json; user: ~/.gemini/settings.json) and guidance (the extension ~/.gemini/extensions/exarchos)"},
		&cli.BoolFlag{Name: "qwen", Usage: "the Qwen Code hooks (.qwen/settings.json; user: ~/.qwen/settings.json) and guidance (.qwen/commands/exarchos, .qwen/skills, a section of QWEN.md)"},
		&cli.BoolFlag{Name: "copilot", Usage: "the Copilot CLI hooks (user scope only: ~/.copilot/hooks/exarchos.json) and guidance (~/.copilot/skills, a section of copilot-instructions.md)"},
		&cli.BoolFlag{Name: "opencode", Usage: "opencode's plugin that runs the hooks (.opencode/plugins/exarchos.js; user: ~/.config/opencode/plugins/exarchos.js)"},
	}
	scopeFlag = &cli.StringFlag{Name: "scope", Value: app.ScopeProject, Usage: "Claude Code settings `scope`: project (.claude/settings.json), local (.claude/settings.local.json) or user (~/.claude/settings.json)"}
)

func hooksCommand() *cli.Command {
	opts := func(c *cli.Command) app.HooksOptions {
		o := app.HooksOptions{Claude: c.Bool("claude"), Git: c.Bool("git"), Scope: c.String("scope")}
		for _, client := range hookrun.Clients[1:] {
			if c.Bool(client) {
				o.Clients = append(o.Clients, client)
			}
		}
		return o
	}
	action := func(run func(app.HooksOptions) (*app.HooksResult, error)) cli.ActionFunc {
		return func(_ context.Context, c *cli.Command) error {
			res, err := run(opts(c))
			if err != nil {
				return err
			}
			return emit(c, res, func(w io.Writer) { res.WriteText(w) })
		}
	}
	return &cli.Command{
		Name:  "hooks",
		Usage: "install, remove and show the agent clients' hooks (Claude Code, Codex, Gemini, Qwen, Copilot, opencode) and the git hooks",
		UsageText: `git exarchos hooks install --claude|--codex|--gemini|--qwen|--copilot|--opencode [--scope project|local|user] [--git] [--json]
git exarchos hooks uninstall --claude|--codex|--gemini|--qwen|--copilot|--opencode [--scope project|local|user] [--git] [--json]
git exarchos hooks status [--claude] [--codex] [--gemini] [--qwen] [--copilot] [--opencode] [--git] [--json]
git exarchos hooks release --session <id> | --all [--json]
git exarchos hooks accept [<feature>...] [--json]`,
		Commands: []*cli.Command{
			{
				Name:  "install",
				Usage: "merge exarchos's hooks into a Claude Code settings file and/or chain them into the git hooks; idempotent",
				UsageText: `git exarchos hooks install [--claude [--scope project|local|user]] [--codex] [--gemini] [--qwen] [--copilot] [--opencode] [--git] [--json]

--claude adds one entry per event (` + claudeEventNames() + `) to the settings file and touches
nothing else in it. In a worktree it records what it wrote: an installed file holding that is no
change of a phase's (paths-allowed), so a workflow moves on with it uncommitted.
--git installs pre-push, post-checkout and post-merge where git runs hooks (core.hooksPath
included); a hook already there is kept beside them and runs first with the same arguments and input.
--codex, --gemini, --qwen, --copilot and --opencode install the same handler in each client's own
hook configuration (opencode's: a plugin) with the plugin's commands and guides (docs/clients.md);
Copilot CLI's in the user scope only. Codex runs a hook only once you trust it (/hooks; doctor says).

Examples:
   git exarchos hooks install --claude                 # .claude/settings.json, shared with the team
   git exarchos hooks install --claude --scope local   # this clone only
   git exarchos hooks install --git
   git exarchos hooks install --codex --gemini --qwen --opencode --copilot   # the other clients (Copilot's in ~/.copilot)
   git config exarchos.autoPush true                   # pre-push then pushes the workflow refs too
   # stopGuard: true in .exarchos/config.yaml on the base branch: Stop hooks keep the agent on unfinished phases`,
				Flags:  append([]cli.Flag{claudeFlag, gitFlag, scopeFlag, jsonFlag}, clientFlags...),
				Action: action(app.HooksInstall),
			},
			{
				Name:  "uninstall",
				Usage: "remove exactly what install added: the settings file's exarchos entries, the git hooks (restoring the ones they chained)",
				UsageText: `git exarchos hooks uninstall [--claude [--scope project|local|user]] [--codex] [--gemini] [--qwen] [--copilot] [--opencode] [--git] [--json]

Examples:
   git exarchos hooks uninstall --claude --git
   git exarchos hooks uninstall --claude --scope user
   git exarchos hooks uninstall --codex --gemini`,
				Flags:  append([]cli.Flag{claudeFlag, gitFlag, scopeFlag, jsonFlag}, clientFlags...),
				Action: action(app.HooksUninstall),
			},
			{
				Name:  "status",
				Usage: "show where exarchos's hooks are installed: each settings scope, and the git hooks directory",
				UsageText: `git exarchos hooks status [--claude] [--codex] [--gemini] [--qwen] [--copilot] [--opencode] [--git] [--json]

Examples:
   git exarchos hooks status
   git exarchos hooks status --git --json`,
				Flags:  append([]cli.Flag{claudeFlag, gitFlag, jsonFlag}, clientFlags...),
				Action: action(app.HooksStatus),
			},
			{
				Name:  "release",
				Usage: "release a Claude Code session from the workflow its first call bound it to (a human's command)",
				UsageText: `git exarchos hooks release --session <id> | --all [--json]
git exarchos hooks release --all [--json]

A session's first hook call binds it to the workflows of the branch it works on; its later calls
are judged by their policies whatever branch, directory or worktree they report. Releasing it lets
its next call bind afresh. The hook refuses this command to the agent.

Examples:
   git exarchos hooks release --session 8f2c1d3e-…
   git exarchos hooks release --all`,
				Flags: []cli.Flag{
					&cli.StringFlag{Name: "session", Usage: "the session `id` (session_id in the hook input, shown in tool.denied events)"},
					&cli.BoolFlag{Name: "all", Usage: "release every session"},
					jsonFlag,
				},
				Action: func(_ context.Context, c *cli.Command) error {
					res, err := app.HooksRelease(hookrun.HooksReleaseOptions{Session: c.String("session"), All: c.Bool("all")})
					if err != nil {
						return err
					}
					return emit(c, res, func(w io.Writer) {
						if len(res.Released) == 0 {
							fmt.Fprintln(w, "no session was bound")
						}
						for _, s := range res.Released {
							fmt.Fprintf(w, "released session %s\n", s)
						}
					})
				},
			},
			{
				Name:      "accept",
				Arguments: []cli.Argument{many("features", 0, "[<feature>...]")},
				Usage:     "accept what changed outside git exarchos: the watched settings, git hooks and config, and held workflows (a human's command)",
				UsageText: `git exarchos hooks accept [<feature>...] [--json]

After every tool call the hook checks what the agent must not change: Claude Code's hook settings,
the git hooks, git's configuration that changes what git runs, and the workflow refs. A change
made outside git exarchos blocks the agent with the exact undo; a workflow whose ref was moved
(git update-ref, fast-import --force, a script) is held: its policed tools are denied. Put it back
with the undo the hook printed, or, when you made the change yourself, accept it here. Without
features every held workflow is accepted. The hook refuses this command to the agent.

Examples:
   git exarchos hooks accept
   git exarchos hooks accept login`,
				Flags: []cli.Flag{jsonFlag},
				Action: func(_ context.Context, c *cli.Command) error {
					r, err := openRepo()
					if err != nil {
						return err
					}
					res, err := app.HooksAccept(r, hookrun.HooksAcceptOptions{Features: c.StringArgs("features")})
					if err != nil {
						return err
					}
					return emit(c, res, func(w io.Writer) { fmt.Fprint(w, res.Text()) })
				},
			},
		},
	}
}

func rehydrateCommand() *cli.Command {
	return &cli.Command{
		Name:      "rehydrate",
		Arguments: onFeature(),
		Usage:     "print the context a fresh agent session needs: phase, what is needed to move on, tasks in progress, rules",
		UsageText: `git exarchos rehydrate [<feature>] [--json]

The same document the SessionStart hook gives a new Claude Code session (at most about 2,000
characters). The feature may be left out: the workflow bound to the current branch, or the only
active one.

Examples:
   git exarchos rehydrate
   git exarchos rehydrate login --json`,
		Flags: []cli.Flag{jsonFlag},
		Action: func(_ context.Context, c *cli.Command) error {
			r, err := openRepo()
			if err != nil {
				return err
			}
			res, err := views.Rehydrate(r.Hook(), views.RehydrateOptions{Feature: c.StringArg("feature")})
			if err != nil {
				return err
			}
			return emit(c, res, func(w io.Writer) { io.WriteString(w, res.Context) })
		},
	}
}

// claudeEventNames lists the events hooks install --claude writes, from the entries themselves.
func claudeEventNames() string {
	return strings.Join(app.ClaudeHookEvents(), ", ")
}

// clientHookCommand is `hook codex|gemini|qwen|copilot`: the same handler as `hook claude`, reading
// the client's payload and answering in its shape (hooks.ReadClientInput, hooks.Output.WriteFor).
func clientHookCommand(client, name, flag, example, event string) *cli.Command {
	return &cli.Command{
		Name:      client,
		Usage:     "answer a " + name + " hook event with the same rules as hook claude, in " + name + "'s own JSON",
		Arguments: []cli.Argument{opt("event", "[event]")},
		UsageText: `git exarchos hook ` + client + ` [--json] [event] < payload.json

Installed by ` + "`git exarchos hooks install " + flag + "`" + `. Maps ` + name + `'s events, tool names and
payload onto the ones hook claude judges (docs/clients.md), and answers in ` + name + `'s shape. The
event argument names the event when the payload does not (Copilot CLI's camelCase events).

Examples:
   echo '` + example + `' | git exarchos hook ` + client + event,
		Flags: []cli.Flag{jsonFlag},
		Action: func(_ context.Context, c *cli.Command) error {
			args := append([]string{"git-exarchos", "hook", client}, argv(c)...)
			if code, _ := claudeHook(args, c.Root().Reader, c.Root().Writer, c.Root().ErrWriter); code != exitOK {
				return cli.Exit("", code) // 2: the client blocks the call and shows stderr
			}
			return nil
		},
	}
}
