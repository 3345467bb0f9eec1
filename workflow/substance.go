package workflow

import (
	"bytes"
	"path"
	"strings"
)

// Substance: a task's work, and the work-committed guard's code, are changes a program can tell
// from none (issue 38 item 3). An empty commit changes no path; a commit that changes only
// whitespace, or only comments, changes no behaviour, and counts as no work.
//
// Comments are recognised by the file's extension (or name) for the common languages, with a
// small lexer that knows the languages' string literals, so a comment marker inside a string
// ("http://…", "#fff") is not read as a comment. Where the lexer may be wrong (a language it does
// not know, a construct it reads differently: a Rust lifetime, a Perl regex, a here-document) it
// keeps the text, so the error is always to count a change as work, never the other way. Where
// indentation is syntax (Python, YAML, Makefiles, Haskell…) a change of indentation counts.

// FileReader reads a file at a commit: ok=false when it is not there (added or deleted).
type FileReader interface {
	FileAt(commit, path string) (content []byte, ok bool, err error)
}

// SubstantivePaths are the paths among paths (each changed between from and to) whose change is
// more than whitespace or comments. An added or deleted file is substantive unless it holds only
// whitespace and comments.
func SubstantivePaths(r FileReader, from, to string, paths []string) ([]string, error) {
	var out []string
	for _, p := range paths {
		old, _, err := r.FileAt(from, p)
		if err != nil {
			return nil, err
		}
		cur, _, err := r.FileAt(to, p)
		if err != nil {
			return nil, err
		}
		if !CosmeticChange(p, old, cur) {
			out = append(out, p)
		}
	}
	return out, nil
}

// WorkReader reads what commits changed and the files they changed.
type WorkReader interface {
	FileReader
	ChangedPaths(from, to string) ([]string, error)
}

// NoWork says what the commits from..to change when that is no task's work, as task done and
// verify judge it: "change no file (an empty commit)" or "change only whitespace or comments
// (paths)"; "" when they do work.
func NoWork(r WorkReader, from, to string) (string, error) {
	changed, err := r.ChangedPaths(from, to)
	if err != nil {
		return "", err
	}
	if len(changed) == 0 {
		return "change no file (an empty commit)", nil
	}
	real, err := SubstantivePaths(r, from, to, changed)
	if err != nil || len(real) > 0 {
		return "", err
	}
	return "change only whitespace or comments (" + strings.Join(changed, ", ") + ")", nil
}

// CosmeticChange reports whether old → new (the file at path) changes only whitespace or
// comments. A change between a file and none counts as cosmetic only when both are empty of code.
func CosmeticChange(p string, old, cur []byte) bool {
	if bytes.IndexByte(old, 0) >= 0 || bytes.IndexByte(cur, 0) >= 0 { // binary: any change counts
		return bytes.Equal(old, cur)
	}
	lang := languageOf(p)
	return lang.code(string(old)) == lang.code(string(cur))
}

// language is how a file's comments and strings are written.
type language struct {
	line    []string    // line comment markers
	block   [][2]string // block comment delimiters
	quotes  string      // string delimiters (a backslash escapes inside them)
	indents bool        // leading whitespace is syntax
}

var (
	cLike  = language{line: []string{"//"}, block: [][2]string{{"/*", "*/"}}, quotes: "\"'`"}
	hashes = language{line: []string{"#"}, quotes: "\"'"}
	python = language{line: []string{"#"}, quotes: "\"'", indents: true}
	yaml   = language{line: []string{"#"}, quotes: "\"'", indents: true}
	sqlish = language{line: []string{"--"}, block: [][2]string{{"/*", "*/"}}, quotes: "'\""}
	lua    = language{line: []string{"--"}, quotes: "'\""}
	haskel = language{line: []string{"--"}, block: [][2]string{{"{-", "-}"}}, quotes: "\"", indents: true}
	markup = language{block: [][2]string{{"<!--", "-->"}}, quotes: ""}
	css    = language{block: [][2]string{{"/*", "*/"}}, quotes: "\"'"}
	plain  = language{} // unknown: only whitespace is cosmetic
)

var byExt = map[string]language{
	".go": cLike, ".c": cLike, ".h": cLike, ".cc": cLike, ".cpp": cLike, ".cxx": cLike, ".hpp": cLike, ".hh": cLike,
	".java": cLike, ".js": cLike, ".mjs": cLike, ".cjs": cLike, ".jsx": cLike, ".ts": cLike, ".tsx": cLike, ".mts": cLike,
	".cs": cLike, ".kt": cLike, ".kts": cLike, ".scala": cLike, ".swift": cLike, ".dart": cLike, ".m": cLike, ".mm": cLike,
	".proto": cLike, ".groovy": cLike, ".gradle": cLike, ".zig": cLike, ".sol": cLike,
	".rs":  {line: []string{"//"}, block: [][2]string{{"/*", "*/"}}, quotes: "\""}, // ' is also a lifetime
	".php": {line: []string{"//", "#"}, block: [][2]string{{"/*", "*/"}}, quotes: "\"'"},
	".py":  python, ".pyi": python, ".nim": python, ".coffee": python,
	".sh": hashes, ".bash": hashes, ".zsh": hashes, ".fish": hashes, ".rb": hashes, ".pl": hashes, ".pm": hashes,
	".r": hashes, ".ex": hashes, ".exs": hashes, ".ps1": hashes, ".toml": hashes, ".tf": hashes, ".cmake": hashes,
	".conf": hashes, ".ini": {line: []string{";", "#"}, quotes: "\"'"}, ".cfg": {line: []string{";", "#"}, quotes: "\"'"},
	".yaml": yaml, ".yml": yaml,
	".sql": sqlish, ".lua": lua, ".hs": haskel, ".elm": haskel,
	".html": markup, ".htm": markup, ".xml": markup, ".svg": markup, ".vue": markup, ".svelte": markup,
	".css": css, ".scss": cLike, ".less": cLike,
}

var byName = map[string]language{
	"Makefile": {line: []string{"#"}, indents: true}, "makefile": {line: []string{"#"}, indents: true}, "GNUmakefile": {line: []string{"#"}, indents: true},
	"Dockerfile": hashes, "CMakeLists.txt": hashes, "BUILD": python, "BUILD.bazel": python, "WORKSPACE": python,
}

func languageOf(p string) language {
	base := path.Base(p)
	if l, ok := byName[base]; ok {
		return l
	}
	if l, ok := byExt[strings.ToLower(path.Ext(base))]; ok {
		return l
	}
	return plain
}

// code is the text with comments removed and whitespace outside strings normalised: a run of it
// is one space between two word characters and nothing next to punctuation ("f( a+b )" is
// "f(a+b)"); where indentation is syntax, each line keeps its indentation. Blank lines go. Strings
// are kept as written.
func (l language) code(s string) string {
	w := codeWriter{indents: l.indents, atStart: true}
	inString := byte(0)
	for i := 0; i < len(s); {
		c := s[i]
		if inString != 0 {
			w.raw(c)
			switch {
			case c == '\\' && i+1 < len(s):
				w.raw(s[i+1])
				i += 2
				continue
			case c == inString:
				inString = 0
			}
			i++
			continue
		}
		if end, ok := l.commentAt(s, i); ok {
			if strings.Contains(s[i:end], "\n") {
				w.space('\n') // a block comment across lines ends the line's code
			} else {
				w.space(' ')
			}
			i = end
			continue
		}
		switch {
		case c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v':
			w.space(c)
		default:
			if strings.IndexByte(l.quotes, c) >= 0 {
				inString = c
			}
			w.raw(c)
		}
		i++
	}
	return w.b.String()
}

// codeWriter writes code with whitespace normalised (language.code).
type codeWriter struct {
	b       strings.Builder
	indents bool   // leading whitespace is syntax: lines and their indentation are kept
	pending bool   // whitespace seen since the last character written
	indent  []byte // the current line's leading whitespace, while at its start
	atStart bool   // no character of the current line written yet
	last    byte
}

func (w *codeWriter) space(c byte) {
	switch {
	case !w.indents:
		w.pending = true
	case c == '\n':
		if !w.atStart {
			w.b.WriteByte('\n')
			w.last = '\n'
		}
		w.atStart, w.indent, w.pending = true, w.indent[:0], false
	case w.atStart:
		w.indent = append(w.indent, c)
	default:
		w.pending = true
	}
}

func (w *codeWriter) raw(c byte) {
	if w.indents && w.atStart {
		w.b.Write(w.indent)
		w.atStart, w.pending = false, false
	}
	if w.pending && word(w.last) && word(c) {
		w.b.WriteByte(' ')
	}
	w.pending = false
	w.b.WriteByte(c)
	w.last = c
}

func word(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

// commentAt returns the end of a comment starting at i (for a line comment, the newline stays).
func (l language) commentAt(s string, i int) (int, bool) {
	for _, m := range l.line {
		if strings.HasPrefix(s[i:], m) {
			if j := strings.IndexByte(s[i:], '\n'); j >= 0 {
				return i + j, true
			}
			return len(s), true
		}
	}
	for _, d := range l.block {
		if strings.HasPrefix(s[i:], d[0]) {
			if j := strings.Index(s[i+len(d[0]):], d[1]); j >= 0 {
				return i + len(d[0]) + j + len(d[1]), true
			}
			return len(s), true
		}
	}
	return 0, false
}
