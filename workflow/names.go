package workflow

import (
	"strings"
	"unicode/utf8"
)

// The names a command records: branches, task ids, custom event types. Each has one rule here so
// every command (and the MCP layer above them) refuses the same names with the same fix.
//
// Hand-written rather than asking git: the pure core runs no process, and git's rules for a branch
// (git-check-ref-format(1) with --branch) are the ten short clauses below.

const (
	maxTaskID    = 64
	maxEventType = 100
	maxBranch    = 255 // a ref's name is a file name on most file systems
)

// BranchProblem says why name is not a branch name git accepts (git check-ref-format --branch),
// or returns "" when it is. A leading "-" is refused too: every git command would read it as an
// option.
func BranchProblem(name string) string {
	switch {
	case name == "":
		return "it is empty"
	case strings.HasPrefix(name, "-"):
		return "it starts with \"-\", so git would read it as an option"
	case len(name) > maxBranch:
		return "it is longer than 255 bytes"
	case name == "HEAD" || name == "@":
		return "it names HEAD, not a branch"
	case strings.Contains(name, ".."):
		return "it contains \"..\""
	case strings.Contains(name, "@{"):
		return "it contains \"@{\""
	case strings.Contains(name, "//") || strings.HasPrefix(name, "/") || strings.HasSuffix(name, "/"):
		return "it has an empty path component (a leading, trailing or doubled \"/\")"
	case strings.HasSuffix(name, "."):
		return "it ends with \".\""
	}
	for _, r := range name {
		if r < 0x20 || r == 0x7f || strings.ContainsRune(" ~^:?*[\\", r) {
			return "it contains a space, a control character or one of ~ ^ : ? * [ \\"
		}
	}
	for _, c := range strings.Split(name, "/") {
		if strings.HasPrefix(c, ".") || strings.HasSuffix(c, ".lock") {
			return "a component starts with \".\" or ends with \".lock\""
		}
	}
	return ""
}

// CheckBranch refuses a branch name git would not accept, naming it (clipped) and the fix.
func CheckBranch(what, name string) *Rejection {
	if why := BranchProblem(name); why != "" {
		return reject(CodeBadInput, "%s %q is not a valid branch name: %s; use a name git accepts (git check-ref-format --branch <name>), e.g. feature/login", what, Clip(name), why)
	}
	return nil
}

// ValidTaskID reports whether id may name a task: a letter or digit, then letters, digits, '.',
// '_' or '-', at most 64 bytes, and usable inside a branch name (the task's branch is
// <branch>--<task>): no "..", not ending in "." or ".lock".
func ValidTaskID(id string) bool {
	return len(id) <= maxTaskID && taskID().MatchString(id) && !strings.Contains(id, "..") &&
		!strings.HasSuffix(id, ".") && !strings.HasSuffix(id, ".lock")
}

func invalidTaskID(id string) *Rejection {
	return reject(CodeBadInput, "invalid task id %q: use 1 to 64 characters matching [A-Za-z0-9][A-Za-z0-9._-]*, with no \"..\", not ending in \".\" or \".lock\" (e.g. t1, api-login)", Clip(id))
}

// EventTypeProblem says why t cannot be a custom event's type, or returns "" when it can: the
// engine's own shape, dot-separated words of letters, digits, '_' and '-', each starting with a
// letter or digit, the first with a letter (note.added, ci.run, hook.session-ended), at most 100
// bytes. Reserved types are a separate check (IsReservedEventType).
func EventTypeProblem(t string) string {
	if t == "" || len(t) > maxEventType {
		return "use 1 to 100 characters"
	}
	for i, word := range strings.Split(t, ".") {
		if word == "" {
			return "it has an empty word (a leading, trailing or doubled \".\")"
		}
		first := word[0]
		letter := first >= 'a' && first <= 'z' || first >= 'A' && first <= 'Z'
		if !letter && (i == 0 || first < '0' || first > '9') {
			return "the first word must start with a letter, the others with a letter or digit"
		}
		for j := 0; j < len(word); j++ {
			c := word[j]
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
				return "use only letters, digits, '_', '-' and '.' between words"
			}
		}
	}
	return ""
}

// Clip shortens a value quoted in an error message to its first 64 characters (on a character
// boundary), so a 10,000-character name does not fill the terminal.
func Clip(v string) string {
	const max = 64
	if len(v) <= max {
		return v
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(v[cut]) {
		cut--
	}
	return v[:cut] + "…"
}
