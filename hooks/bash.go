package hooks

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/exarchos/git-exarchos/internal/agentenv"
)

// What a Bash command may not do, whatever the phase: write the workflow refs behind the CLI's
// back (the log would lose its checks and its audit trail), change what the hooks and git run
// (git's refs, hooks and config, exarchos's cache and journal, Claude Code's settings, .exarchos/),
// or make a human's decision. While a workflow waits on a human, a git or exarchos invocation whose
// verb cannot be known before it runs is refused too.
const (
	refsNamespace = "refs/exarchos"

	reasonRefs = "git exarchos: this command writes refs/exarchos/* directly, which would bypass the " +
		"workflow's guards and its audit trail. Change workflows through the CLI (git exarchos transition, " +
		"set, task, …), publish them with `git exarchos push` and fetch them with `git exarchos pull`."
	reasonOverride = "git exarchos: guard overrides are a human decision, recorded with who made it; the " +
		"agent may not make them. Make the guard pass (git exarchos transitions <feature> shows each fix), " +
		"or stop and ask the user to run the override in their own terminal."
	humanTerminal   = " A human changes those in their own terminal: stop and ask the user if it is needed."
	reasonHumanFlag = "git exarchos: --human marks the user's own decision (a cancel past the planning phases, a workflow " +
		"of another type on a branch that had one); the agent may not make it. Stop and ask the user to run the command in their own terminal."
)

// humanOnly are the exarchos commands only a human may run, with what each one unlocks.
var humanOnly = map[string]string{
	"approve": "approving the plan moves plan review on to implementation",
	"reject":  "rejecting the plan sends it back for revision",
	"unblock": "unblocking leaves the blocked phase or resets an open circuit breaker",
	"grant":   "a grant lets one tool call outside the phase's envelope through",
	"budget":  "extending the budget gives the phase more tool calls",
	// Issue 29: acknowledging a refused decision lets verify pass again.
	"acknowledge": "acknowledging a refused decision lets verify pass again",
}

// reasonMerge refuses the agent's merge of a pull request: the user's decision (pr merge).
func reasonMerge(what string) string {
	return "git exarchos: `" + what + "` merges the pull request, a human decision (git exarchos pr merge, signed where decisions are) and the " +
		"agent may not make it. Stop and ask the user to run `git exarchos pr merge <feature>` in their own terminal."
}

// ghMerge refuses GitHub's CLI merging a pull request: `gh pr merge`, or the merge endpoint
// through `gh api` (PUT …/pulls/N/merge), however its flags are placed.
func ghMerge(args []word) string {
	var pos []string
	for i, a := range args {
		if !strings.HasPrefix(a.text, "-") && (i == 0 || args[i-1].text != "-R" && args[i-1].text != "--repo") {
			pos = append(pos, a.text)
		}
	}
	switch {
	case len(pos) >= 2 && pos[0] == "pr" && pos[1] == "merge":
		return reasonMerge("gh pr merge")
	case len(pos) >= 2 && pos[0] == "api" && slices.ContainsFunc(pos[1:], func(p string) bool {
		return strings.Contains(p, "/pulls/") && strings.HasSuffix(strings.TrimSuffix(p, "/"), "/merge") || strings.Contains(p, "mergePullRequest")
	}):
		return reasonMerge("gh api … merge")
	}
	return ""
}

func reasonHuman(verb string) string {
	return "git exarchos: `git exarchos " + verb + "` is a human decision (" + humanOnly[verb] + ") and the " +
		"agent may not run it. Stop and ask the user to run `git exarchos " + verb + " <feature> …` in their own terminal."
}

// reasonAgentEnv refuses a command that clears or changes the variables by which git exarchos knows
// a process runs in the agent's session (internal/agentenv): with them gone, a human decision run
// by a program the hook cannot read (make, python, a script) would not know it was the agent's.
func reasonAgentEnv(how string) string {
	return "git exarchos: this command " + how + ", one of the variables by which git exarchos knows a command runs in " +
		"the agent's session (" + strings.Join(agentVarNames(), ", ") + "): human decisions refuse to run where they are set. " +
		"Run the command without clearing or changing them; a human decision is the user's, in their own terminal."
}

func agentVarNames() []string {
	names := make([]string, len(agentenv.Vars))
	for i, v := range agentenv.Vars {
		names[i] = v.Name
	}
	return names
}

func reasonProtected(p string) string {
	return fmt.Sprintf("git exarchos: this command writes %s, which the agent may not change: git's refs, "+
		"packed-refs, hooks and config, exarchos's cache and journal, .exarchos/ and Claude Code's settings "+
		"decide what the hooks see and enforce.%s", p, humanTerminal)
}

func reasonConfig(key string) string {
	return fmt.Sprintf("git exarchos: setting git config %s is refused: aliases, core.hooksPath, include paths, "+
		"exarchos.* and refspecs that reach refs/exarchos change what git and the hooks run.%s", key, humanTerminal)
}

// BashContext is what CheckBash knows about where the command runs.
type BashContext struct {
	// Waiting names the workflow that waits on a human (plan review, blocked, an open circuit);
	// while it does, git and exarchos invocations whose verb cannot be read are refused.
	Waiting string
	// Cwd is the session's working directory (relative script paths and `cd` start there).
	Cwd string
	// Protected are absolute directories no command may write (the git directory, the common git
	// directory, the session store).
	Protected []string
	// Alias resolves a git alias of the repository ("" and false when there is none). Nil: the
	// hook could not read the configuration, so an unknown git subcommand may be anything.
	Alias func(name string) (string, bool)
}

// CheckBash returns why a Bash command is refused, or "" when exarchos has nothing against it.
// It parses the command as bash does (pipelines, lists, subshells, command and process
// substitutions, functions, heredocs, `bash -c` and `eval` strings, scripts it can read) and looks
// at every simple command in it. It is a guard against mistakes and drift, not a sandbox: a
// determined program can always write a file; the PostToolUse check and `git exarchos verify` are
// what catch that.
func CheckBash(command string, ctx BashContext) string {
	c := &checker{ctx: ctx, cwdProtected: ctx.Cwd != "" && isProtected(ctx.Cwd, ctx)}
	return c.script(command, 0)
}

type checker struct {
	ctx BashContext
	// cwdProtected: a `cd` moved into a protected directory, so relative write targets are protected.
	cwdProtected bool
}

// maxNesting bounds `bash -c "eval '…'"` recursion and alias chains.
const maxNesting = 6

// input is what a command reads on its standard input, as far as it is known.
type input struct {
	kind string // "" (the terminal: nothing), pipe, file, text
	text string
	from string // for a pipe, the source of the command that feeds it
}

// word is one shell word: its text as bash would pass it when it is static (quotes removed,
// escapes resolved), whether anything in it is only known when it runs, and its source.
type word struct {
	text    string
	dynamic bool // parameter, command, arithmetic or process substitution, brace expansion
	glob    bool // an unquoted *, ? or [
	raw     string
}

func (w word) static() bool { return !w.dynamic && !w.glob }

// refs reports whether the word names refs/exarchos (as passed, or as written).
func (w word) refs() bool { return mentionsRefs(w.text) || mentionsRefs(w.raw) }

// names reports whether the word contains s, as passed or as written.
func (w word) names(s string) bool { return strings.Contains(w.text, s) || strings.Contains(w.raw, s) }

func (c *checker) script(src string, depth int) string {
	if depth > maxNesting {
		return c.unknown("commands nested too deep to read")
	}
	file, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
	if err != nil {
		// Bash would refuse it too; still look at its words, in case the error is ours.
		return c.fallback(src, depth)
	}
	piped := map[*syntax.Stmt]*syntax.Stmt{} // the commands a pipe feeds, to the one feeding each
	var reason string
	syntax.Walk(file, func(n syntax.Node) bool {
		if reason != "" {
			return false
		}
		switch n := n.(type) {
		case *syntax.BinaryCmd:
			if n.Op == syntax.Pipe || n.Op == syntax.PipeAll {
				piped[n.Y] = n.X
			}
		case *syntax.DeclClause:
			// export, declare, typeset, local, readonly: naming an agent variable sets, unexports or
			// shadows it.
			for _, a := range n.Args {
				if a.Name != nil && agentenv.IsAgentVar(a.Name.Value) {
					reason = reasonAgentEnv("changes " + a.Name.Value + " (" + n.Variant.Value + ")")
				} else if a.Name != nil && shimEnv(a.Name.Value, valueRaw(a.Value, src), c.ctx.Cwd) != "" {
					reason = shimEnv(a.Name.Value, valueRaw(a.Value, src), c.ctx.Cwd)
				} else if a.Name == nil && a.Value != nil && agentenv.IsAgentVar(wordOf(a.Value, src).text) {
					reason = reasonAgentEnv("changes " + wordOf(a.Value, src).text + " (" + n.Variant.Value + ")")
				}
			}
		case *syntax.Stmt:
			in := input{}
			if from, ok := piped[n]; ok {
				in.kind, in.from = "pipe", src[from.Pos().Offset():from.End().Offset()]
			}
			for _, r := range n.Redirs {
				if reason = c.redirect(r, src, &in); reason != "" {
					return false
				}
			}
			if ce, ok := n.Cmd.(*syntax.CallExpr); ok {
				reason = c.callExpr(ce, src, in, depth)
			}
		}
		return reason == ""
	})
	return reason
}

func (c *checker) redirect(r *syntax.Redirect, src string, in *input) string {
	switch r.Op {
	case syntax.RdrOut, syntax.AppOut, syntax.RdrInOut, syntax.RdrAll, syntax.AppAll, syntax.RdrClob, syntax.RdrAllClob, syntax.AppAllClob:
		if r.Word != nil {
			if w := wordOf(r.Word, src); c.writesProtected(w) {
				return c.protectedReason(w)
			}
		}
	case syntax.RdrIn:
		*in = input{kind: "file"}
	case syntax.Hdoc, syntax.DashHdoc:
		*in = input{kind: "pipe"}
		if r.Hdoc != nil {
			if w := wordOf(r.Hdoc, src); !w.dynamic {
				*in = input{kind: "text", text: w.text}
			}
		}
	case syntax.WordHdoc:
		*in = input{kind: "pipe"}
		if r.Word != nil {
			if w := wordOf(r.Word, src); !w.dynamic {
				*in = input{kind: "text", text: w.text}
			}
		}
	}
	return ""
}

func (c *checker) callExpr(ce *syntax.CallExpr, src string, in input, depth int) string {
	for _, a := range ce.Assigns {
		if r := configEnv(a.Name.Value); r != "" {
			return r
		}
		if agentenv.IsAgentVar(a.Name.Value) {
			return reasonAgentEnv("assigns " + a.Name.Value)
		}
		if r := shimEnv(a.Name.Value, valueRaw(a.Value, src), c.ctx.Cwd); r != "" {
			return r
		}
	}
	if len(ce.Args) == 0 {
		return ""
	}
	words := make([]word, len(ce.Args))
	for i, w := range ce.Args {
		words[i] = wordOf(w, src)
	}
	return c.call(words, in, false, depth)
}

// call looks at one simple command. fromInput: its arguments come partly from its input (xargs,
// find -exec).
func (c *checker) call(args []word, in input, fromInput bool, depth int) string {
	args, wrapped, reason := c.unwrap(args, depth)
	if reason != "" {
		return reason
	}
	fromInput = fromInput || wrapped
	if len(args) == 0 {
		return ""
	}
	if !args[0].static() {
		// `x=env; $x -i git exarchos override …`: whatever the name runs, the words after it that
		// spell out a human decision are refused as they are written literally, waiting or not.
		if r := c.exarchosAfterUnknown(args[1:]); r != "" {
			return r
		}
		return c.unknown("the command name " + args[0].raw + " is only known when it runs")
	}
	name := path.Base(args[0].text)
	rest := args[1:]
	switch name {
	case "git":
		return c.git(rest, in, fromInput, depth)
	case "git-exarchos":
		return c.exarchos(rest, fromInput)
	case "gh":
		return ghMerge(rest)
	case "bash", "sh", "zsh", "dash", "ksh", "mksh", "yash", "busybox":
		if name == "busybox" {
			if len(rest) == 0 || rest[0].text != "sh" && rest[0].text != "ash" {
				return ""
			}
			rest = rest[1:]
		}
		return c.shell(rest, in, depth)
	case "eval":
		for _, a := range rest {
			if a.dynamic {
				return c.unknown("eval runs " + a.raw + ", only known when it runs")
			}
		}
		return c.script(joinText(rest), depth+1)
	case "source", ".":
		if len(rest) == 0 {
			return ""
		}
		return c.scriptFile(rest[0], depth)
	case "unset":
		for _, a := range rest {
			if agentenv.IsAgentVar(a.text) || a.dynamic || a.glob {
				return reasonAgentEnv("unsets " + a.raw)
			}
		}
	case "setpriv":
		if slices.ContainsFunc(rest, func(a word) bool { return a.text == "--reset-env" }) {
			return reasonAgentEnv("starts a command in a fresh environment (setpriv --reset-env)")
		}
	case "alias":
		// An alias's text runs where the alias is used: read it as the command it will be.
		for _, a := range rest {
			if _, v, ok := strings.Cut(a.text, "="); ok {
				if r := c.script(v, depth+1); r != "" {
					return r
				}
			}
		}
	case "cd", "pushd":
		c.cd(rest)
	case "find":
		return c.find(rest, depth)
	case "python", "python3", "perl", "ruby", "node", "nodejs", "php", "lua", "tclsh", "osascript":
		return c.interpreter(rest)
	case "cp", "install", "rsync", "scp":
		// A copy of the exarchos binary would run the same commands under another name.
		for _, a := range rest {
			if strings.Contains(a.raw, "git-exarchos") || strings.Contains(a.raw, "exarchos hook") {
				return "git exarchos: copying the git-exarchos binary is refused: a copy runs the same commands under a name the hook does not know." + humanTerminal
			}
		}
		if t := lastPositional(rest); t != nil && c.writesProtected(*t) {
			return c.protectedReason(*t)
		}
	case "ln":
		for _, a := range positional(rest) {
			if strings.Contains(a.raw, "exarchos") || c.writesProtected(a) {
				return "git exarchos: this link would reach a protected path or the exarchos binary under another name (" + a.raw + ")." + humanTerminal
			}
		}
	case "rm", "mv", "tee", "truncate", "unlink", "shred", "touch", "chmod", "chown", "mkdir", "rmdir", "mkfifo", "sponge":
		for _, a := range positional(rest) {
			if c.writesProtected(a) {
				return c.protectedReason(a)
			}
		}
	case "dd":
		for _, a := range rest {
			if t, ok := strings.CutPrefix(a.text, "of="); ok && c.writesProtected(word{text: t, raw: a.raw, dynamic: a.dynamic}) {
				return c.protectedReason(a)
			}
		}
	case "sed", "gsed":
		if slices.ContainsFunc(rest, func(a word) bool {
			return strings.HasPrefix(a.text, "-i") || strings.HasPrefix(a.text, "--in-place") || isShortCluster(a.text, 'i')
		}) {
			for _, a := range positional(rest) {
				if c.writesProtected(a) {
					return c.protectedReason(a)
				}
			}
		}
	case "curl", "wget":
		for i, a := range rest {
			if (a.text == "-o" || a.text == "-O" || a.text == "--output" || a.text == "--output-document") && i+1 < len(rest) && c.writesProtected(rest[i+1]) {
				return c.protectedReason(rest[i+1])
			}
		}
	}
	if c.ctx.Waiting != "" && !knownProgram(name) {
		// A program the hook does not know, asked to do what only a human may: a copy or a
		// wrapper of the binary under another name.
		for _, a := range rest {
			if strings.HasPrefix(a.text, "-") {
				continue
			}
			if _, ok := humanOnly[a.text]; ok || a.text == "override" {
				return c.unknown(name + " " + a.text + " may be the exarchos binary under another name")
			}
			break
		}
	}
	return ""
}

// unknown refuses what cannot be read, while a workflow waits on a human; otherwise nothing.
func (c *checker) unknown(why string) string {
	if c.ctx.Waiting == "" {
		return ""
	}
	return "git exarchos: workflow " + c.ctx.Waiting + " waits on a human decision, and this command runs git or " +
		"git exarchos in a way the hook cannot read before it runs (" + why + "). Spell the git and git exarchos " +
		"commands out literally — no variables, substitutions, aliases, `--`, shells fed from stdin or a heredoc " +
		"it cannot see, xargs or find -exec around them — or wait for the user's decision."
}

// unwrap drops the commands that run another one (sudo, env, xargs, …) and their options, and
// reports whether the inner command takes arguments from its input.
func (c *checker) unwrap(args []word, depth int) ([]word, bool, string) {
	fromInput := false
	for range 8 {
		if len(args) == 0 || !args[0].static() {
			return args, fromInput, ""
		}
		wrapper := path.Base(args[0].text)
		var valued string // options of the wrapper that take a value
		switch wrapper {
		case "sudo", "doas":
			valued = "-u -g -h -p -C -U -D -r -t"
		case "env":
			valued = "-u -C -S --unset --chdir --split-string"
		case "xargs":
			valued = "-I -i -n -P -d -L -l -s -E -e -a --arg-file --delimiter --max-args --max-procs --replace"
			fromInput = true
		case "timeout":
			valued = "-s -k --signal --kill-after"
		case "nice":
			valued = "-n --adjustment"
		case "ionice":
			valued = "-c -n -p"
		case "exec":
			valued = "-a"
		case "setsid", "nohup", "time", "stdbuf", "builtin", "command", "chronic", "unbuffer", "caffeinate", "systemd-run", "firejail", "taskset", "chrt", "strace", "ltrace", "watch", "flock", "script", "su", "runuser", "faketime":
		default:
			return args, fromInput, ""
		}
		args = args[1:]
		// A login shell (su -, runuser -l) and systemd-run's service manager start the command
		// with a fresh environment.
		if wrapper == "systemd-run" || (wrapper == "su" || wrapper == "runuser") && slices.ContainsFunc(args, func(a word) bool {
			return a.text == "-" || a.text == "-l" || a.text == "--login"
		}) {
			return nil, false, reasonAgentEnv("starts a command in a fresh environment (" + wrapper + ")")
		}
		// Wrappers that take the command as one string: a script.
		switch wrapper {
		case "script", "su", "runuser", "flock", "watch":
			for i, a := range args {
				if (a.text == "-c" || a.text == "--command") && i+1 < len(args) {
					if !args[i+1].static() {
						return nil, false, c.unknown(wrapper + " runs " + args[i+1].raw)
					}
					return nil, false, c.script(args[i+1].text, depth+1)
				}
			}
			if wrapper == "script" || wrapper == "su" || wrapper == "runuser" {
				return nil, fromInput, ""
			}
		}
	options:
		for len(args) > 0 {
			a := args[0]
			switch {
			case wrapper == "env" && (a.text == "-S" || a.text == "--split-string" || strings.HasPrefix(a.text, "-S") && len(a.text) > 2):
				s := strings.TrimPrefix(a.text, "-S")
				if a.text == "-S" || a.text == "--split-string" {
					if len(args) < 2 {
						return nil, fromInput, ""
					}
					a, s = args[1], args[1].text
				}
				if a.dynamic {
					return nil, false, c.unknown("env -S runs " + a.raw)
				}
				return nil, false, c.script(s, depth+1)
			case a.text == "--":
				args = args[1:]
				break options
			case clearsEnv(wrapper, args):
				return nil, false, reasonAgentEnv("starts a command with an emptied or reduced environment (" + wrapper + " " + a.raw + ")")
			case strings.HasPrefix(a.text, "-") && a.text != "-":
				args = args[1:]
				if slices.Contains(strings.Fields(valued), a.text) && len(args) > 0 {
					args = args[1:]
				}
			case wrapper == "env" && strings.Contains(a.text, "="):
				if r := configEnv(a.text[:strings.Index(a.text, "=")]); r != "" {
					return nil, false, r
				}
				if name := a.text[:strings.Index(a.text, "=")]; agentenv.IsAgentVar(name) || a.dynamic {
					return nil, false, reasonAgentEnv("sets " + a.raw + " for the command")
				}
				if name, value, _ := strings.Cut(a.raw, "="); shimEnv(name, value, c.ctx.Cwd) != "" {
					return nil, false, shimEnv(name, value, c.ctx.Cwd)
				}
				args = args[1:]
			case (wrapper == "timeout" || wrapper == "flock" || wrapper == "taskset" || wrapper == "chrt" || wrapper == "watch") && len(args) > 1 && !looksLikeCommand(a.text):
				args = args[1:] // the duration, lock file, mask, priority
			default:
				break options
			}
		}
	}
	return args, fromInput, ""
}

// clearsEnv reports whether the wrapper's next option (args[0]) starts the command without the
// agent's variables: env -i, -, -u NAME; exec -c; sudo -i.
func clearsEnv(wrapper string, args []word) bool {
	a := args[0]
	switch wrapper {
	case "env":
		switch {
		case a.text == "-" || a.text == "--ignore-environment":
			return true
		case a.text == "--unset":
			return len(args) > 1 && (agentenv.IsAgentVar(args[1].text) || args[1].dynamic)
		case strings.HasPrefix(a.text, "--unset="):
			return agentenv.IsAgentVar(strings.TrimPrefix(a.text, "--unset=")) || a.dynamic
		case len(a.text) > 1 && a.text[0] == '-' && a.text[1] != '-':
			// A cluster of short options, read as env reads it: -i clears, -u takes the rest of
			// the cluster or the next word as the name it unsets, -C and -S take a value.
			for i := 1; i < len(a.text); i++ {
				switch a.text[i] {
				case 'i':
					return true
				case 'u':
					name, dynamic := a.text[i+1:], a.dynamic
					if name == "" && len(args) > 1 {
						name, dynamic = args[1].text, args[1].dynamic
					}
					return agentenv.IsAgentVar(name) || dynamic
				case 'C', 'S':
					return false
				}
			}
		}
	case "exec":
		return isShortCluster(a.text, 'c')
	case "sudo":
		return a.text == "-i" || a.text == "--login"
	}
	return false
}

func looksLikeCommand(s string) bool {
	return s == "git" || s == "git-exarchos" || strings.Contains(s, "/") || knownProgram(s) || slices.Contains([]string{"bash", "sh", "zsh", "env", "sudo"}, s)
}

// configEnv refuses environment variables that inject git configuration.
func configEnv(name string) string {
	if name == "GIT_CONFIG_PARAMETERS" || name == "GIT_CONFIG_COUNT" || strings.HasPrefix(name, "GIT_CONFIG_KEY_") || strings.HasPrefix(name, "GIT_CONFIG_VALUE_") {
		return reasonConfig("through " + name)
	}
	return ""
}

// shell looks at a shell's invocation: `-c script`, a script file, or a script on its input.
func (c *checker) shell(args []word, in input, depth int) string {
	command := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a.text == "--" || a.text == "-":
			args = args[i+1:]
			goto operands
		case (strings.HasPrefix(a.text, "-") || strings.HasPrefix(a.text, "+")) && len(a.text) > 1:
			if a.text == "-o" || a.text == "+o" || a.text == "-O" || a.text == "+O" || a.text == "--rcfile" || a.text == "--init-file" {
				i++
				continue
			}
			if !strings.HasPrefix(a.text, "--") && strings.ContainsRune(a.text, 'c') {
				command = true
			}
		default:
			args = args[i:]
			goto operands
		}
	}
	args = nil
operands:
	if command {
		if len(args) == 0 {
			return ""
		}
		if !args[0].static() && args[0].dynamic {
			return c.unknown("a shell runs " + args[0].raw)
		}
		return c.script(args[0].text, depth+1)
	}
	if len(args) > 0 {
		return c.scriptFile(args[0], depth)
	}
	switch in.kind {
	case "text":
		return c.script(in.text, depth+1)
	case "pipe", "file":
		// What a pipe feeds a shell is only known when it runs; a script that names an agent's
		// variable (`printf 'unset CLAUDECODE; …' | bash`) is refused whatever the workflow waits on.
		for _, v := range agentVarNames() {
			if strings.Contains(in.from, v) {
				return reasonAgentEnv("feeds a shell, through a pipe, a script that names " + v)
			}
		}
		return c.unknown("a shell reads its script from its input")
	}
	return ""
}

// maxScript bounds a script file the hook reads to look into.
const maxScript = 256 << 10

// scriptFile looks into a script that a shell or `source` runs, when the hook can read it.
func (c *checker) scriptFile(w word, depth int) string {
	if !w.static() {
		return c.unknown("the script " + w.raw + " is only known when it runs")
	}
	p := w.text
	if !filepath.IsAbs(p) && c.ctx.Cwd != "" {
		p = filepath.Join(c.ctx.Cwd, p)
	}
	fi, err := os.Stat(p)
	if err != nil || fi.Size() > maxScript || !fi.Mode().IsRegular() {
		return c.unknown("the content of " + w.text + " is not known")
	}
	b, err := os.ReadFile(p)
	if err != nil {
		return c.unknown("the content of " + w.text + " is not known")
	}
	return c.script(string(b), depth+1)
}

// interpreter: code given to another language may run git; look at what it names.
func (c *checker) interpreter(args []word) string {
	for i, a := range args {
		if (a.text == "-c" || a.text == "-e" || a.text == "-E" || a.text == "--eval" || a.text == "-r") && i+1 < len(args) {
			code := args[i+1].raw
			if mentionsRefs(code) && (strings.Contains(code, "update-ref") || strings.Contains(code, "open(")) {
				return reasonRefs
			}
			if r := codeClearsEnv(code); r != "" {
				return reasonAgentEnv(r)
			}
			if strings.Contains(code, "exarchos") {
				return c.unknown("code in another language runs exarchos")
			}
		}
	}
	return ""
}

// codeClearsEnv says how code in another language clears or changes the agent's variables: it
// names one, or empties or replaces its environment (os.environ.clear, %ENV = (), env={} …).
func codeClearsEnv(code string) string {
	for _, v := range agentenv.Vars {
		if strings.Contains(code, v.Name) {
			return "names " + v.Name + " in code another language runs"
		}
	}
	compact := strings.Join(strings.Fields(code), "")
	for _, p := range []string{"environ.clear", "environ={", "environ=dict", "%ENV=()", "%ENV=(", "undef%ENV", "env={}", "env:{}", "env=>{}", "unsetenv(", "Deno.env.delete", "process.env={"} {
		if strings.Contains(compact, p) {
			return "empties or replaces its environment in code another language runs (" + p + ")"
		}
	}
	return ""
}

// find: the commands of -exec, -execdir, -ok and -okdir take the found paths as arguments.
func (c *checker) find(args []word, depth int) string {
	for i := 0; i < len(args); i++ {
		switch args[i].text {
		case "-exec", "-execdir", "-ok", "-okdir":
			j := i + 1
			for j < len(args) && args[j].text != ";" && args[j].text != "+" {
				j++
			}
			if r := c.call(args[i+1:j], input{kind: "pipe"}, true, depth+1); r != "" {
				return r
			}
			i = j
		case "-delete", "-fprint", "-fprintf", "-fls":
			for _, a := range args[:i] {
				if !strings.HasPrefix(a.text, "-") && c.writesProtected(a) {
					return c.protectedReason(a)
				}
			}
		}
	}
	return ""
}

// cd follows a static `cd` into or out of a protected directory.
func (c *checker) cd(args []word) {
	p := positional(args)
	if len(p) == 0 || !p[0].static() {
		return
	}
	c.cwdProtected = c.isProtectedPath(p[0].text, true)
}

// gitValued are git's global options that take the next argument as their value.
var gitValued = []string{"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env", "--exec-path", "--super-prefix", "--list-cmds"}

func (c *checker) git(args []word, in input, fromInput bool, depth int) string {
	for len(args) > 0 && strings.HasPrefix(args[0].text, "-") {
		a := args[0]
		key := ""
		switch {
		case a.text == "-c" && len(args) > 1:
			key, _, _ = strings.Cut(args[1].text, "=")
			if args[1].dynamic {
				return reasonConfig(args[1].raw)
			}
		case strings.HasPrefix(a.text, "--config-env"):
			v := strings.TrimPrefix(strings.TrimPrefix(a.text, "--config-env"), "=")
			if v == "" && len(args) > 1 {
				v = args[1].text
			}
			key, _, _ = strings.Cut(v, "=")
		case strings.HasPrefix(a.text, "--exec-path="), a.text == "--exec-path" && len(args) > 1:
			return c.unknown("git --exec-path runs git commands from another directory")
		}
		if key != "" && protectedConfigKey(key, "") {
			return reasonConfig(key)
		}
		if slices.Contains(gitValued, a.text) && len(args) > 1 {
			args = args[1:]
		}
		args = args[1:]
	}
	if len(args) == 0 {
		if fromInput {
			return c.unknown("xargs gives git its subcommand")
		}
		return ""
	}
	if !args[0].static() {
		return c.unknown("the git subcommand " + args[0].raw + " is only known when it runs")
	}
	sub, rest := args[0].text, args[1:]
	if !slices.Contains(gitBuiltins, sub) && sub != "exarchos" {
		if c.ctx.Alias == nil {
			return c.unknown("git " + sub + " may be an alias or another program")
		}
		v, ok := c.ctx.Alias(sub)
		if !ok {
			return c.unknown("git " + sub + " is not a git command the hook knows: it runs git-" + sub)
		}
		if depth > maxNesting {
			return c.unknown("aliases nested too deep to read")
		}
		if sh, isShell := strings.CutPrefix(v, "!"); isShell {
			return c.script(sh+" "+joinRaw(rest), depth+1)
		}
		expanded := []word{{text: "git", raw: "git"}}
		for _, f := range strings.Fields(v) {
			expanded = append(expanded, word{text: f, raw: f})
		}
		return c.git(append(expanded[1:], rest...), in, fromInput, depth+1)
	}
	switch sub {
	case "exarchos":
		return c.exarchos(rest, fromInput)
	case "update-ref":
		for _, a := range rest {
			if a.dynamic || a.refs() || a.names("exarchos") {
				return reasonRefs
			}
		}
		if slices.ContainsFunc(rest, func(a word) bool { return a.text == "--stdin" }) || fromInput {
			if fromInput || in.kind != "text" || strings.Contains(in.text, "exarchos") || !isLiteralRefs(in.text) {
				return reasonRefs
			}
		}
	case "symbolic-ref":
		pos := positional(rest)
		if len(pos) >= 2 || slices.ContainsFunc(rest, func(a word) bool { return a.text == "-d" || a.text == "--delete" }) {
			for _, a := range pos {
				if a.dynamic || a.names("exarchos") {
					return reasonRefs
				}
			}
		}
	case "push", "fetch":
		for _, a := range rest {
			if sub == "push" && a.refs() {
				return reasonRefs
			}
			if _, dst, ok := strings.Cut(a.text, ":"); ok && (refspecReaches(dst) || a.dynamic && strings.Contains(a.raw, ":")) {
				return reasonRefs
			}
			if a.text == "--mirror" || strings.HasPrefix(a.text, "--refmap") {
				if sub == "fetch" {
					return reasonRefs
				}
			}
		}
		if fromInput && sub == "push" {
			return c.unknown("xargs gives git push its refs")
		}
	case "remote":
		for _, a := range rest {
			if strings.HasPrefix(a.text, "--mirror") {
				return reasonConfig("remote.<name>.mirror (a mirror fetch overwrites refs/exarchos/*)")
			}
		}
	case "config":
		return gitConfig(rest)
	case "init", "clone":
		for _, a := range rest {
			if strings.HasPrefix(a.text, "--template") || strings.HasPrefix(a.text, "--separate-git-dir") {
				return c.unknown("git " + sub + " with a template or a separate git directory")
			}
		}
	}
	return ""
}

// isLiteralRefs: an update-ref --stdin script whose every line names its ref literally.
func isLiteralRefs(s string) bool { return !strings.ContainsAny(s, "*$`") }

// refspecReaches reports whether a refspec destination (a glob or a name) can write under
// refs/exarchos/.
func refspecReaches(dst string) bool {
	dst = strings.TrimPrefix(dst, "+")
	if dst == "" {
		return false
	}
	if mentionsRefs(dst) {
		return true
	}
	if !strings.Contains(dst, "*") {
		return false
	}
	re := "^" + strings.ReplaceAll(regexp.QuoteMeta(dst), `\*`, ".*") + "$"
	ok, _ := regexp.MatchString(re, refsNamespace+"/x")
	return ok
}

// gitConfig refuses `git config` writes of the keys that change what git and the hooks run.
func gitConfig(args []word) string {
	var pos []word
	write := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a.text == "-e" || a.text == "--edit":
			return reasonConfig("(the whole file, in an editor)")
		case slices.Contains([]string{"--add", "--unset", "--unset-all", "--replace-all", "--rename-section", "--remove-section"}, a.text):
			write = true
		case slices.Contains([]string{"-f", "--file", "--blob", "--type", "--default", "--comment", "--value"}, a.text):
			i++
		case strings.HasPrefix(a.text, "-"):
		default:
			pos = append(pos, a)
		}
	}
	if len(pos) > 0 && slices.Contains([]string{"set", "unset", "rename-section", "remove-section", "edit"}, pos[0].text) {
		if pos[0].text == "edit" {
			return reasonConfig("(the whole file, in an editor)")
		}
		write, pos = true, pos[1:]
	} else if len(pos) > 0 && slices.Contains([]string{"get", "list"}, pos[0].text) {
		return ""
	}
	if len(pos) >= 2 {
		write = true
	}
	if !write || len(pos) == 0 {
		return ""
	}
	value := ""
	if len(pos) > 1 {
		value = pos[1].text
	}
	if pos[0].dynamic || protectedConfigKey(pos[0].text, value) {
		return reasonConfig(pos[0].raw)
	}
	return ""
}

// protectedConfigKey: aliases, hook paths, includes, exarchos's own settings, and refspecs that
// can reach refs/exarchos/.
func protectedConfigKey(key, value string) bool {
	k := strings.ToLower(key)
	switch {
	case strings.HasPrefix(k, "alias."), k == "core.hookspath", strings.HasPrefix(k, "exarchos."),
		k == "include.path", strings.HasPrefix(k, "includeif.") && strings.HasSuffix(k, ".path"),
		strings.HasPrefix(k, "remote.") && strings.HasSuffix(k, ".mirror"):
		return true
	case strings.HasPrefix(k, "remote.") && (strings.HasSuffix(k, ".fetch") || strings.HasSuffix(k, ".push")):
		_, dst, _ := strings.Cut(value, ":")
		return value == "" || refspecReaches(dst) || mentionsRefs(value)
	}
	return false
}

func (c *checker) exarchos(args []word, fromInput bool) string {
	for _, a := range args {
		if a.text == "--override" || strings.HasPrefix(a.text, "--override=") || a.text == "-override" {
			return reasonOverride
		}
		if a.text == "--human" || strings.HasPrefix(a.text, "--human=") || a.text == "-human" {
			return reasonHumanFlag
		}
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a.text == "--" {
			continue // the CLI refuses -- before the command (args.go); the word after it is checked all the same
		}
		if !a.static() {
			return c.unknown("the exarchos command " + a.raw + " is only known when it runs")
		}
		if strings.HasPrefix(a.text, "-") {
			continue
		}
		if _, ok := humanOnly[a.text]; ok {
			return reasonHuman(a.text)
		}
		switch a.text {
		case "override":
			return reasonOverride
		case "pr":
			for _, b := range args[i+1:] {
				if b.text == "merge" || b.dynamic {
					return reasonMerge("git exarchos pr " + b.raw)
				}
			}
		case "hooks":
			for _, b := range args[i+1:] {
				if b.text == "uninstall" || b.text == "release" || b.text == "accept" || b.dynamic {
					return "git exarchos: `git exarchos hooks " + b.text + "` lifts the hooks' rules for this session; only a human may run it." + humanTerminal
				}
			}
		case "signers", "setup":
			// Who may sign, and a commit on the base branch, are a human's: `signers add`,
			// `setup --signer`, `setup --commit` (setup's other steps are the agent's to run).
			for _, b := range args[i+1:] {
				if b.dynamic || a.text == "signers" && b.text == "add" ||
					a.text == "setup" && (b.text == "--signer" || b.text == "--commit" || strings.HasPrefix(b.text, "--signer=") || strings.HasPrefix(b.text, "--commit=")) {
					return "git exarchos: `git exarchos " + a.text + " " + b.raw + "` decides who may sign or commits on the base branch; only a human may run it." + humanTerminal
				}
			}
		}
		if fromInput && strings.Contains(a.text, "{}") {
			return c.unknown("xargs or find gives git exarchos its command")
		}
		return ""
	}
	if fromInput {
		return c.unknown("xargs gives git exarchos its command")
	}
	return ""
}

// exarchosAfterUnknown reads the words that follow a command name the hook cannot know: where they
// name git exarchos (`git … exarchos`, `git-exarchos`), what follows is checked as that command.
func (c *checker) exarchosAfterUnknown(args []word) string {
	for i, a := range args {
		if path.Base(a.text) == "git-exarchos" || a.text == "exarchos" && i > 0 && slices.ContainsFunc(args[:i], func(w word) bool { return path.Base(w.text) == "git" }) {
			return c.exarchos(args[i+1:], false)
		}
	}
	return ""
}

// writesProtected reports whether a write target is a protected path, or cannot be known while
// the current directory is protected.
func (c *checker) writesProtected(w word) bool {
	if w.dynamic && c.cwdProtected {
		return true
	}
	return c.isProtectedPath(w.text, false) || w.dynamic && isProtectedText(w.raw)
}

func (c *checker) protectedReason(w word) string {
	if mentionsRefs(w.raw) || c.cwdProtected && strings.Contains(w.raw, "exarchos") {
		return reasonRefs
	}
	return reasonProtected(w.raw)
}

// isProtectedPath: relative paths are judged from the session's directory, or as protected when a
// `cd` went into a protected directory (dir: p is a `cd` target).
func (c *checker) isProtectedPath(p string, dir bool) bool {
	if p == "" {
		return false
	}
	if isProtectedText(p) {
		return true
	}
	if !filepath.IsAbs(p) && !strings.HasPrefix(p, "~") {
		if c.cwdProtected && (!dir || !strings.HasPrefix(p, "..")) {
			return true
		}
		if c.ctx.Cwd == "" {
			return false
		}
		p = filepath.Join(c.ctx.Cwd, p)
	}
	return isProtected(p, c.ctx)
}

// isProtected: an absolute path inside a protected directory or with a protected part.
func isProtected(p string, ctx BashContext) bool {
	p = filepath.Clean(p)
	for _, d := range ctx.Protected {
		if d != "" && (p == d || strings.HasPrefix(p, d+string(filepath.Separator))) {
			return true
		}
	}
	return isProtectedText(p)
}

// isProtectedText: a path that names a .git directory (or file) part, .exarchos/, or Claude Code's
// settings files, wherever it lies.
func isProtectedText(p string) bool {
	p = filepath.ToSlash(p)
	parts := strings.Split(p, "/")
	for i, part := range parts {
		switch {
		case part == ".git" || part == ".exarchos" || homeGitConfig(parts[i:]):
			return true
		case part == ".claude" && i+1 < len(parts):
			if ok, _ := path.Match("settings*.json", parts[i+1]); ok {
				return true
			}
		}
	}
	return mentionsRefs(p) && strings.Contains(p, "/")
}

// ProtectedPath reports whether a file tool's target is a path no tool may write (see CheckBash).
func ProtectedPath(target, cwd string, protected []string) bool {
	if target == "" {
		return false
	}
	if !filepath.IsAbs(target) && cwd != "" {
		target = filepath.Join(cwd, target)
	}
	return isProtected(target, BashContext{Protected: protected})
}

func mentionsRefs(s string) bool {
	return strings.Contains(s, refsNamespace+"/") || strings.HasSuffix(s, refsNamespace)
}

// fallback looks at a command bash could not parse word by word, so an odd quote does not let
// an obvious write through.
func (c *checker) fallback(src string, depth int) string {
	for _, line := range strings.FieldsFunc(src, func(r rune) bool { return strings.ContainsRune(";&|\n()`", r) }) {
		var ws []word
		for _, f := range strings.Fields(strings.NewReplacer(`"`, "", `'`, "").Replace(line)) {
			ws = append(ws, word{text: f, raw: f, dynamic: strings.Contains(f, "$")})
		}
		if r := c.call(ws, input{}, false, maxNesting); r != "" {
			return r
		}
	}
	return ""
}

// wordOf reads a word as bash would pass it, as far as it can be known without running anything.
func wordOf(w *syntax.Word, src string) word {
	out := word{}
	if s, e := int(w.Pos().Offset()), int(w.End().Offset()); s >= 0 && e <= len(src) && s <= e {
		out.raw = src[s:e]
	}
	var b strings.Builder
	var parts func(ps []syntax.WordPart, quoted bool)
	parts = func(ps []syntax.WordPart, quoted bool) {
		for _, p := range ps {
			switch p := p.(type) {
			case *syntax.Lit:
				v := p.Value
				if !quoted {
					if strings.ContainsAny(v, "*?[") {
						out.glob = true
					}
					if strings.Contains(v, "{") && (strings.Contains(v, ",") || strings.Contains(v, "..")) {
						out.dynamic = true
					}
					if strings.HasPrefix(v, "~") {
						out.dynamic = true
					}
					v = unescape(v)
				}
				b.WriteString(v)
			case *syntax.SglQuoted:
				if p.Dollar && strings.Contains(p.Value, `\`) {
					out.dynamic = true // $'\x61…': escapes bash decodes
				}
				b.WriteString(p.Value)
			case *syntax.DblQuoted:
				parts(p.Parts, true)
			case *syntax.ParamExp:
				out.dynamic = true
				if p.Param != nil {
					b.WriteString("$" + p.Param.Value)
				}
			default: // command, arithmetic and process substitutions, extended globs
				out.dynamic = true
			}
		}
	}
	parts(w.Parts, false)
	out.text = b.String()
	if out.raw == "" {
		out.raw = out.text
	}
	return out
}

func unescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func joinText(ws []word) string {
	s := make([]string, len(ws))
	for i, w := range ws {
		s[i] = w.text
	}
	return strings.Join(s, " ")
}

func joinRaw(ws []word) string {
	s := make([]string, len(ws))
	for i, w := range ws {
		s[i] = w.raw
	}
	return strings.Join(s, " ")
}

// positional are the arguments that are not options (everything after `--` counts).
func positional(args []word) []word {
	var out []word
	for i, a := range args {
		if a.text == "--" {
			return append(out, args[i+1:]...)
		}
		if !strings.HasPrefix(a.text, "-") || a.text == "-" {
			out = append(out, a)
		}
	}
	return out
}

func lastPositional(args []word) *word {
	p := positional(args)
	if len(p) == 0 {
		return nil
	}
	return &p[len(p)-1]
}

// isShortCluster: -ni, -Ei … a cluster of short options containing ch.
func isShortCluster(s string, ch rune) bool {
	return len(s) > 1 && s[0] == '-' && s[1] != '-' && strings.ContainsRune(s[1:], ch)
}

// knownProgram: common programs that print or search text; their arguments are data.
func knownProgram(name string) bool {
	return slices.Contains([]string{"echo", "printf", "grep", "egrep", "fgrep", "rg", "ag", "cat", "less", "more",
		"head", "tail", "sed", "awk", "gawk", "jq", "yq", "wc", "sort", "uniq", "tr", "cut", "man", "which", "type",
		"test", "[", "[[", "true", "false", "read", "export", "local", "declare", "ls", "tree", "diff", "cmp",
		"go", "gofmt", "make", "npm", "node", "cargo", "pytest", "python", "python3", "column", "fold", "fmt"}, name)
}

// gitBuiltins are git's own commands (git help -a); anything else is an alias or a git-<name>
// program on PATH.
var gitBuiltins = strings.Fields(`add am annotate apply archive bisect blame branch bugreport bundle cat-file
check-attr check-ignore check-mailmap check-ref-format checkout checkout-index cherry cherry-pick citool
clean clone column commit commit-graph commit-tree config count-objects credential credential-cache
credential-store describe diagnose diff diff-files diff-index diff-tree difftool fast-export fast-import
fetch fetch-pack filter-branch fmt-merge-msg for-each-ref for-each-repo format-patch fsck fsck-objects
gc get-tar-commit-id grep gui hash-object help hook http-backend index-pack init init-db instaweb
interpret-trailers log ls-files ls-remote ls-tree mailinfo mailsplit maintenance merge merge-base
merge-file merge-index merge-one-file merge-tree mergetool mktag mktree multi-pack-index mv name-rev
notes pack-objects pack-redundant pack-refs patch-id prune prune-packed pull push range-diff read-tree
rebase reflog refs remote repack replace replay request-pull rerere reset restore rev-list rev-parse
revert rm send-email send-pack shortlog show show-branch show-index show-ref sparse-checkout stage stash
status stripspace submodule switch symbolic-ref tag unpack-file unpack-objects update-index update-ref
update-server-info var verify-commit verify-pack verify-tag version whatchanged worktree write-tree lfs`)

// HumanDecision reports whether `git exarchos <verb>` is a decision only a human may take (the
// agent is refused it, and views say a workflow waiting on it is waiting on a human).
func HumanDecision(verb string) bool {
	_, ok := humanOnly[verb]
	return ok || verb == "override"
}

// ShellQuote quotes s for a POSIX shell when it needs it (for fixes printed as commands).
func ShellQuote(s string) string { return shellQuote(s) }

// ProtectedConfigKey reports whether a git config key (with its value) changes what git and the
// hooks run: the keys the agent may not set (PostToolUse watches them in the config files too).
func ProtectedConfigKey(key, value string) bool { return protectedConfigKey(key, value) }
