package hooks

import (
	"fmt"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/exarchos/git-exarchos/workflow"
	"mvdan.cc/sh/v3/syntax"
)

// A tool call as the envelope rules see it: the tool, and what it is about — the file path
// (relative to the worktree root when it is inside it) for file tools, the command for Bash.
type call struct {
	tool    string
	subject string
	// commands are the simple commands of a Bash call, each as its words joined by spaces: a rule
	// must allow every one of them (`go test ./... && rm -rf ~` is not a `go test` call).
	commands []string
}

// fileTools are the tools whose rule specifier is a glob over the file path.
var fileTools = []string{"Read", "Edit", "Write", "MultiEdit", "NotebookEdit", "Glob", "Grep", "LS"}

func newCall(tool string, ti ToolInput, root, cwd string) call {
	c := call{tool: tool}
	switch {
	case tool == "Bash":
		c.subject = strings.TrimSpace(ti.Command)
		c.commands = simpleCommands(c.subject)
	case slices.Contains(fileTools, tool):
		p := ti.FilePath
		if p == "" {
			p = ti.NotebookPath
		}
		if p == "" {
			p = ti.Path
		}
		c.subject = relativeTo(root, cwd, p)
	}
	return c
}

// relativeTo is p relative to the worktree root (slash-separated) when it lies inside it; else p
// made absolute.
func relativeTo(root, cwd, p string) string {
	if p == "" {
		return ""
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(cwd, p)
	}
	p = filepath.Clean(p)
	if root != "" {
		if rel, err := filepath.Rel(root, p); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return filepath.ToSlash(rel)
		}
	}
	return filepath.ToSlash(p)
}

// simpleCommands lists the simple commands of a script; a script bash cannot parse is one command.
func simpleCommands(src string) []string {
	file, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
	if err != nil {
		return []string{src}
	}
	var out []string
	syntax.Walk(file, func(n syntax.Node) bool {
		if ce, ok := n.(*syntax.CallExpr); ok && len(ce.Args) > 0 {
			words := make([]string, 0, len(ce.Args))
			for _, w := range ce.Args {
				words = append(words, wordOf(w, src).text)
			}
			out = append(out, strings.Join(words, " "))
		}
		return true
	})
	if len(out) == 0 {
		return []string{src}
	}
	return out
}

// ruleAllows reports whether a rule allows the call.
func ruleAllows(rule string, c call) bool {
	tool, spec, err := workflow.ParseToolRule(rule)
	if err != nil {
		return false
	}
	if ok, _ := path.Match(tool, c.tool); !ok {
		return false
	}
	return specAllows(c, spec)
}

// specAllows matches a rule's specifier (or a grant's --match) against the call.
func specAllows(c call, spec string) bool {
	if spec == "" || spec == "*" {
		return true
	}
	switch {
	case c.tool == "Bash":
		for _, cmd := range c.commands {
			if !commandMatches(cmd, spec) {
				return c.subject == spec // a rule naming the whole script exactly still matches it
			}
		}
		return true
	case slices.Contains(fileTools, c.tool):
		return c.subject != "" && globMatch(spec, c.subject)
	}
	return false
}

// commandMatches: `prefix:*` matches the command and the command followed by arguments; anything
// else matches the command exactly.
func commandMatches(cmd, spec string) bool {
	if prefix, ok := strings.CutSuffix(spec, ":*"); ok {
		return cmd == prefix || strings.HasPrefix(cmd, prefix+" ")
	}
	return cmd == spec
}

// globMatch matches a gitignore-style glob against a slash path: `**` crosses directories, `*` and
// `?` do not; a leading `/` or `./` anchors at the worktree root (which relative paths are anyway).
func globMatch(glob, p string) bool {
	glob = strings.TrimPrefix(strings.TrimPrefix(glob, "./"), "/")
	var re strings.Builder
	re.WriteString("^")
	for i := 0; i < len(glob); i++ {
		switch ch := glob[i]; ch {
		case '*':
			if i+1 < len(glob) && glob[i+1] == '*' {
				i++
				if i+1 < len(glob) && glob[i+1] == '/' {
					i++
					re.WriteString("(?:.*/)?")
				} else {
					re.WriteString(".*")
				}
			} else {
				re.WriteString("[^/]*")
			}
		case '?':
			re.WriteString("[^/]")
		default:
			re.WriteString(regexp.QuoteMeta(string(ch)))
		}
	}
	re.WriteString("$")
	ok, _ := regexp.MatchString(re.String(), p)
	return ok
}

// Verdict is the envelope's answer to one tool call.
type Verdict struct {
	Deny string // why the call is refused; "" allows it
	Kind string // envelope | budget
	// Grant is the pending one-shot grant that lets a call outside the envelope through; the
	// caller records its consumption.
	Grant *workflow.Grant
	// Count: the call counts against the phase's turn cap (the caller records tool.called).
	Count   bool
	Subject string
}

// Check applies the envelope of the workflow's phase to a tool call: the turn cap first, then the
// refused and allowed tools (with the artifact exception), then the pending grants.
func Check(w Bound, tool string, ti ToolInput, cwd string) Verdict {
	if w.Def == nil {
		return Verdict{}
	}
	env := w.Def.EnvelopeIn(w.State) // in a fan-out phase, its running stages' (workflow/fanout.go)
	c := newCall(tool, ti, w.Root, cwd)
	v := Verdict{Subject: c.subject}
	if env.TurnCap > 0 {
		if left := w.State.TurnsLeft(env.TurnCap); left <= 0 {
			if movesOn(c) {
				return v // what leaving the phase takes stays allowed, uncounted
			}
			v.Deny, v.Kind = budgetDenial(w, env), "budget"
			return v
		}
		v.Count = true
	}
	if env.NoTools && movesOn(c) {
		return v // a phase without tools must still be left
	}
	reason := envelopeDenial(w, env, c, ti, cwd)
	if reason == "" {
		return v
	}
	// The running stages' envelopes say what their work needs, not how it is handed in: what
	// moving on takes stays allowed while one runs, or no stage could ever complete (seen with the
	// real client: e2e/fanout_test.go). Asked only of a refused call, off the common path.
	if movesOn(c) && len(w.State.RunningStages(w.Def)) > 0 {
		return v
	}
	for i, g := range w.State.Grants {
		if g.Tool == tool && specAllows(c, g.Match) {
			v.Grant = &w.State.Grants[i]
			return v
		}
	}
	v.Deny, v.Kind, v.Count = reason+grantHint(w, c), "envelope", false
	return v
}

// CheckTool returns why the workflow's phase refuses a tool call, or "" (grants and turn caps
// included).
func CheckTool(w Bound, tool string, ti ToolInput, cwd string) string {
	return Check(w, tool, ti, cwd).Deny
}

// refuses reports whether an envelope refuses a call, before artifact exceptions and grants.
func refuses(env workflow.Envelope, c call) bool {
	if env.Denies(c.tool) || env.NoTools {
		return true
	}
	if len(env.AllowedTools) == 0 {
		return false
	}
	return !slices.ContainsFunc(env.AllowedTools, func(r string) bool { return ruleAllows(r, c) })
}

// envelopeDenial returns why the envelope refuses the call, or "". A refused file tool is still
// allowed on the recorded path of an artifact the envelope excepts.
func envelopeDenial(w Bound, env workflow.Envelope, c call, ti ToolInput, cwd string) string {
	if !refuses(env, c) {
		return ""
	}
	target := ti.FilePath
	if target == "" {
		target = ti.NotebookPath
	}
	if target != "" && slices.Contains(workflow.FileWriteTools, c.tool) {
		for _, name := range env.ExceptArtifacts {
			if a, ok := w.State.Artifacts[name]; ok && !a.Inline && a.Path != "" && samePath(w.Root, a.Path, cwd, target) {
				return ""
			}
		}
	}
	return denial(w, env, c, target)
}

// capExempt are the exarchos commands a spent turn cap, or a phase without tools, leaves allowed:
// what moving on takes.
var capExempt = []string{"status", "transitions", "transition", "submit", "stage", "checkpoint"}

// capExemptMCP are the exarchos MCP server's tools that run the capExempt commands.
var capExemptMCP = []string{"workflow_status", "workflow_transitions", "workflow_transition", "submit", "stage_done", "stage_fail", "checkpoint"}

// movesOn reports whether a Bash call only runs the exarchos commands that move a phase on, or
// the call is the exarchos MCP tool of one of them.
func movesOn(c call) bool {
	for _, server := range workflow.ExarchosMCPTools {
		if tool, ok := strings.CutPrefix(c.tool, strings.TrimSuffix(server, "*")); ok {
			return slices.Contains(capExemptMCP, tool)
		}
	}
	if c.tool != "Bash" || len(c.commands) == 0 {
		return false
	}
	for _, cmd := range c.commands {
		f := strings.Fields(cmd)
		switch {
		case len(f) > 1 && f[0] == "git" && f[1] == "exarchos":
			f = f[2:]
		case len(f) > 0 && path.Base(f[0]) == "git-exarchos":
			f = f[1:]
		default:
			return false
		}
		for len(f) > 0 && strings.HasPrefix(f[0], "-") {
			f = f[1:]
		}
		if len(f) == 0 || !slices.Contains(capExempt, f[0]) {
			return false
		}
	}
	return true
}

func budgetDenial(w Bound, env workflow.Envelope) string {
	return fmt.Sprintf("git exarchos: the turn budget of phase %s of workflow %s is spent (%d tool calls in this stay, cap %d%s). "+
		"Move on — git exarchos status, transitions, transition and submit stay allowed (as Bash commands, each on its own): "+
		"see what leaving needs with git exarchos transitions %s, then git exarchos transition %s <phase>. "+
		"Or stop and ask the user to extend the budget in their own terminal: git exarchos budget extend %s <N> --reason '<why>'.",
		w.State.Phase, w.Feature, w.State.Budget.Turns, env.TurnCap, iffExtended(w.State.Budget.Extended), w.Feature, w.Feature, w.Feature)
}

func iffExtended(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf(" + %d extended", n)
}

// grantHint tells the human the exact command that lets this one call through.
func grantHint(w Bound, c call) string {
	cmd := "git exarchos grant " + w.Feature + " --tool " + shellQuote(c.tool)
	if c.subject != "" {
		cmd += " --match " + shellQuote(c.subject)
	}
	return " If this call is needed, stop and ask the user to allow it once in their own terminal: " + cmd + " --once --reason '<why>'."
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:=@,+") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
