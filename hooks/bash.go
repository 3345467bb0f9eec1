package hooks

import (
	"path"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// What a Bash command may not do, whatever the phase: write the workflow refs behind the CLI's
// back (the log would lose its checks and its audit trail), or make a human's decision.
const (
	refsNamespace = "refs/exarchos"

	reasonRefs = "git exarchos: this command writes refs/exarchos/* directly, which would bypass the " +
		"workflow's guards and its audit trail. Change workflows through the CLI (git exarchos transition, " +
		"set, task, …), publish them with `git exarchos push` and fetch them with `git exarchos pull`."
	reasonOverride = "git exarchos: guard overrides are a human decision, recorded with who made it; the " +
		"agent may not make them. Make the guard pass (git exarchos transitions <feature> shows each fix), " +
		"or stop and ask the user to run the override in their own terminal."
)

// humanOnly are the exarchos commands only a human may run, with what each one unlocks.
var humanOnly = map[string]string{
	"approve": "approving the plan moves plan review on to implementation",
	"reject":  "rejecting the plan sends it back for revision",
	"unblock": "unblocking leaves the blocked phase or resets an open circuit breaker",
	"grant":   "a grant lets one tool call outside the phase's envelope through",
	"budget":  "extending the budget gives the phase more tool calls",
}

func reasonHuman(verb string) string {
	return "git exarchos: `git exarchos " + verb + "` is a human decision (" + humanOnly[verb] + ") and the " +
		"agent may not run it. Stop and ask the user to run `git exarchos " + verb + " <feature> …` in their own terminal."
}

// CheckBash returns why a Bash command is refused, or "" when exarchos has nothing against it.
// It parses the command as bash does (pipelines, lists, subshells, command substitutions,
// `bash -c` and `eval` strings) and looks at every simple command in it. It is a guard against
// mistakes and drift, not a sandbox: a determined program can always write a file.
func CheckBash(command string) string {
	return checkScript(command, 0)
}

// maxNesting bounds `bash -c "eval '…'"` recursion.
const maxNesting = 4

func checkScript(src string, depth int) string {
	if depth > maxNesting {
		return ""
	}
	file, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
	if err != nil {
		// Bash would refuse it too; still look at its words, in case the error is ours.
		return checkFallback(src)
	}
	var reason string
	syntax.Walk(file, func(n syntax.Node) bool {
		if reason != "" {
			return false
		}
		switch n := n.(type) {
		case *syntax.Stmt:
			for _, r := range n.Redirs {
				if writesTo(r.Op) && r.Word != nil && mentionsRefs(wordText(r.Word)) {
					reason = reasonRefs
				}
			}
		case *syntax.CallExpr:
			args := make([]string, 0, len(n.Args))
			for _, w := range n.Args {
				args = append(args, wordText(w))
			}
			reason = checkCall(args, src, depth)
		}
		return reason == ""
	})
	return reason
}

func writesTo(op syntax.RedirOperator) bool {
	switch op {
	case syntax.RdrOut, syntax.AppOut, syntax.RdrInOut, syntax.RdrAll, syntax.AppAll, syntax.RdrClob, syntax.RdrAllClob, syntax.AppAllClob:
		return true
	}
	return false
}

// wordText is a word as bash would pass it, as far as it can be known without running anything:
// quotes removed, escapes resolved, expansions left as written.
func wordText(w *syntax.Word) string {
	var b strings.Builder
	var parts func(ps []syntax.WordPart, quoted bool)
	parts = func(ps []syntax.WordPart, quoted bool) {
		for _, p := range ps {
			switch p := p.(type) {
			case *syntax.Lit:
				if quoted {
					b.WriteString(p.Value)
				} else {
					b.WriteString(unescape(p.Value))
				}
			case *syntax.SglQuoted:
				b.WriteString(p.Value)
			case *syntax.DblQuoted:
				parts(p.Parts, true)
			case *syntax.ParamExp:
				if p.Param != nil {
					b.WriteString("$" + p.Param.Value)
				}
			}
		}
	}
	parts(w.Parts, false)
	return b.String()
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

func mentionsRefs(s string) bool {
	return strings.Contains(s, refsNamespace+"/") || strings.HasSuffix(s, refsNamespace)
}

// checkCall looks at one simple command. src is the whole script, for commands that read what to
// do from their input (update-ref --stdin, xargs).
func checkCall(args []string, src string, depth int) string {
	args, fromInput := unwrap(args)
	if len(args) == 0 {
		return ""
	}
	name := path.Base(args[0])
	switch name {
	case "git":
		return checkGit(args[1:], src, fromInput)
	case "git-exarchos":
		return checkExarchos(args[1:])
	case "bash", "sh", "zsh", "dash", "ksh":
		if i := slices.Index(args, "-c"); i > 0 && i+1 < len(args) {
			return checkScript(args[i+1], depth+1)
		}
	case "eval":
		return checkScript(strings.Join(args[1:], " "), depth+1)
	case "rm", "mv", "cp", "ln", "tee", "truncate", "dd", "install", "unlink", "shred", "touch":
		if slices.ContainsFunc(args[1:], mentionsRefs) {
			return reasonRefs
		}
	}
	return ""
}

// unwrap drops the commands that run another one (sudo, env, xargs, …) and their options, and
// reports whether the inner command takes arguments from its input.
func unwrap(args []string) ([]string, bool) {
	fromInput := false
	for range 8 {
		if len(args) == 0 {
			return args, fromInput
		}
		var valued string // options of the wrapper that take a value
		switch path.Base(args[0]) {
		case "sudo":
			valued = "-u -g -h -p -C -U"
		case "env":
			valued = "-u -C -S"
		case "xargs":
			valued = "-I -n -P -d -L -s -E -a"
			fromInput = true
		case "timeout":
			valued = "-s -k"
		case "nice":
			valued = "-n"
		case "command", "exec", "nohup", "time", "stdbuf", "ionice", "builtin":
		default:
			return args, fromInput
		}
		wrapper := path.Base(args[0])
		args = args[1:]
	options:
		for len(args) > 0 {
			a := args[0]
			switch {
			case strings.HasPrefix(a, "-"):
				args = args[1:]
				if slices.Contains(strings.Fields(valued), a) && len(args) > 0 {
					args = args[1:]
				}
			case wrapper == "env" && strings.Contains(a, "="):
				args = args[1:]
			case wrapper == "timeout" && a != "" && (a[0] >= '0' && a[0] <= '9'):
				args = args[1:] // the duration
			default:
				break options
			}
		}
	}
	return args, fromInput
}

// gitValued are git's global options that take the next argument as their value.
var gitValued = []string{"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env", "--exec-path", "--super-prefix"}

func checkGit(args []string, src string, fromInput bool) string {
	for len(args) > 0 && strings.HasPrefix(args[0], "-") {
		if slices.Contains(gitValued, args[0]) && len(args) > 1 {
			args = args[1:]
		}
		args = args[1:]
	}
	if len(args) == 0 {
		return ""
	}
	sub, rest := args[0], args[1:]
	switch sub {
	case "exarchos":
		return checkExarchos(rest)
	case "update-ref":
		if slices.ContainsFunc(rest, mentionsRefs) {
			return reasonRefs
		}
		if (slices.Contains(rest, "--stdin") || fromInput) && mentionsRefs(src) {
			return reasonRefs
		}
	case "push":
		if slices.ContainsFunc(rest, mentionsRefs) || (fromInput && mentionsRefs(src)) {
			return reasonRefs
		}
	case "fetch":
		// A refspec whose destination is refs/exarchos/* overwrites local workflows with the
		// remote's; `git exarchos pull` fetches beside them and merges.
		for _, a := range rest {
			if _, dst, ok := strings.Cut(a, ":"); ok && mentionsRefs(dst) {
				return reasonRefs
			}
		}
	}
	return ""
}

func checkExarchos(args []string) string {
	for _, a := range args {
		if a == "--override" || strings.HasPrefix(a, "--override=") || a == "-override" {
			return reasonOverride
		}
	}
	for _, a := range args {
		if a == "--" {
			break
		}
		if strings.HasPrefix(a, "-") {
			continue
		}
		if _, ok := humanOnly[a]; ok {
			return reasonHuman(a)
		}
		if a == "override" {
			return reasonOverride
		}
		break // the first word names the command
	}
	return ""
}

// checkFallback looks at a command bash could not parse word by word, so an odd quote does not let
// an obvious write through.
func checkFallback(src string) string {
	for _, line := range strings.FieldsFunc(src, func(r rune) bool { return strings.ContainsRune(";&|\n()`", r) }) {
		fields := strings.Fields(strings.NewReplacer(`"`, "", `'`, "").Replace(line))
		if r := checkCall(fields, src, maxNesting); r != "" {
			return r
		}
	}
	return ""
}

// HumanDecision reports whether `git exarchos <verb>` is a decision only a human may take (the
// agent is refused it, and views say a workflow waiting on it is waiting on a human).
func HumanDecision(verb string) bool {
	_, ok := humanOnly[verb]
	return ok || verb == "override"
}

// ShellQuote quotes s for a POSIX shell when it needs it (for fixes printed as commands).
func ShellQuote(s string) string { return shellQuote(s) }
