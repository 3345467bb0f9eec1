package gitrepo

// git's config file syntax, parsed by hand: go-git's format/config linked gcfg, which linked
// encoding/gob, whose init registered its types at every start of the binary, about 2% of a
// `status` call's samples (BENCHMARKS.md, "Status from the snapshot as it is, urfave/cli v3, and
// the early answers", fifth stop; TestBinaryDoesNotLinkSlowStarters keeps gob out). Checked
// against `git config --list --file` on the syntax's corners (TestConfigFileParsesAsGit).

import (
	"bytes"
	"fmt"
	"strings"
)

// configEntry is one variable of a git config file.
type configEntry struct {
	Section    string // lowercased
	Subsection string // as written: subsections are case-sensitive
	Key        string // lowercased
	Name       string // the key as written, for messages
	Value      string // "" for an implicit `key` as for `key =`; NoValue tells them apart
	// NoValue is a `key` written without '=': boolean true, where `key =` is false (git's rule).
	NoValue bool
}

// parseConfigFile reads a git config file the way git's config.c does: [section] and
// [section "subsection"] headers (and the deprecated [section.subsection], lowercased), `key =
// value` with quotes, the escapes \n \t \b \" \\, backslash-newline continuations, whitespace
// trimmed at both ends and each inner run kept as that many spaces, and # or ; comments (after a
// value or on a line of their own; `key # note` without '=' is an error, as in git). Includes
// are variables like any other: callers that cannot follow them ask git.
//
// It is ours rather than go-git's format/config because that one links gcfg and, through it,
// encoding/gob, whose package init ran on every start of the binary the hooks run.
func parseConfigFile(b []byte) ([]configEntry, error) {
	p := configParser{b: bytes.TrimPrefix(b, []byte("\xef\xbb\xbf")), line: 1}
	var out []configEntry
	section, subsection := "", "" // git takes a variable before any header, as "key"
	for {
		c, ok := p.next()
		switch {
		case !ok:
			return out, nil
		case c == '\n' || c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v':
		case c == '#' || c == ';':
			p.skipLine()
		case c == '[':
			var err error
			if section, subsection, err = p.header(); err != nil {
				return nil, err
			}
		case isAlpha(c):
			name, value, noValue, err := p.variable(c)
			if err != nil {
				return nil, err
			}
			out = append(out, configEntry{Section: section, Subsection: subsection, Key: strings.ToLower(name), Name: name, Value: value, NoValue: noValue})
		default:
			return nil, p.errorf("unexpected %q", c)
		}
	}
}

type configParser struct {
	b    []byte
	i    int
	line int
}

// next returns the next character, with CRLF read as LF.
func (p *configParser) next() (byte, bool) {
	if p.i >= len(p.b) {
		return 0, false
	}
	c := p.b[p.i]
	p.i++
	if c == '\r' && p.i < len(p.b) && p.b[p.i] == '\n' {
		c = '\n'
		p.i++
	}
	if c == '\n' {
		p.line++
	}
	return c, true
}

func (p *configParser) skipLine() {
	for {
		if c, ok := p.next(); !ok || c == '\n' {
			return
		}
	}
}

func (p *configParser) errorf(format string, args ...any) error {
	return fmt.Errorf("bad config line %d: %s", p.line, fmt.Sprintf(format, args...))
}

// header reads a section header after its '['.
func (p *configParser) header() (section, subsection string, err error) {
	var name strings.Builder
	for {
		c, ok := p.next()
		switch {
		case !ok || c == '\n':
			return "", "", p.errorf("unterminated section header")
		case c == ']':
			s := strings.ToLower(name.String())
			if s == "" {
				return "", "", p.errorf("empty section name")
			}
			if sec, sub, dotted := strings.Cut(s, "."); dotted { // [section.subsection]
				return sec, sub, nil
			}
			return s, "", nil
		case c == ' ' || c == '\t':
			if name.Len() == 0 {
				return "", "", p.errorf("empty section name")
			}
			sub, err := p.subsection()
			return strings.ToLower(name.String()), sub, err
		case isAlnum(c) || c == '-' || c == '.':
			name.WriteByte(c)
		default:
			return "", "", p.errorf("invalid character %q in a section name", c)
		}
	}
}

// subsection reads ` "name"]` after a section name and a blank.
func (p *configParser) subsection() (string, error) {
	c, ok := p.next()
	for ok && (c == ' ' || c == '\t') {
		c, ok = p.next()
	}
	if !ok || c != '"' {
		return "", p.errorf("a subsection name must be quoted")
	}
	var sub strings.Builder
	for {
		c, ok := p.next()
		switch {
		case !ok || c == '\n':
			return "", p.errorf("unterminated subsection name")
		case c == '"':
			if c, ok := p.next(); !ok || c != ']' {
				return "", p.errorf("expected ] after the subsection name")
			}
			return sub.String(), nil
		case c == '\\':
			e, ok := p.next()
			if !ok || e == '\n' {
				return "", p.errorf("unterminated subsection name")
			}
			sub.WriteByte(e)
		default:
			sub.WriteByte(c)
		}
	}
}

// variable reads `key [= value]` from its first character; the key is returned as written.
func (p *configParser) variable(first byte) (key, value string, noValue bool, err error) {
	name := []byte{first}
	for {
		c, ok := p.next()
		if ok && (isAlnum(c) || c == '-') {
			name = append(name, c)
			continue
		}
		for ok && (c == ' ' || c == '\t') {
			c, ok = p.next()
		}
		key = string(name)
		switch {
		case !ok || c == '\n':
			return key, "", true, nil
		case c == '=':
			value, err = p.value()
			return key, value, false, err
		default:
			return "", "", false, p.errorf("invalid character %q in variable %s", c, key)
		}
	}
}

// value reads a value after its '=', up to the end of the line or a comment.
func (p *configParser) value() (string, error) {
	var v []byte
	quoted, spaces := false, 0
	for {
		c, ok := p.next()
		if (!ok || c == '\n') && quoted {
			return "", p.errorf("unterminated quote")
		}
		if !ok || c == '\n' {
			return string(v), nil
		}
		if !quoted && (c == ' ' || c == '\t' || c == '\r') {
			if len(v) > 0 { // leading blanks are dropped, trailing ones never written
				spaces++
			}
			continue
		}
		if !quoted && (c == '#' || c == ';') {
			p.skipLine()
			return string(v), nil
		}
		for ; spaces > 0; spaces-- {
			v = append(v, ' ')
		}
		switch c {
		case '"':
			quoted = !quoted
		case '\\':
			e, ok := p.next()
			switch {
			case !ok || e == '\n': // continuation (git reads the end of the file as a newline)
			case e == 'n':
				v = append(v, '\n')
			case e == 't':
				v = append(v, '\t')
			case e == 'b':
				v = append(v, '\b')
			case e == '\\' || e == '"':
				v = append(v, e)
			default:
				return "", p.errorf("invalid escape \\%c", e)
			}
		default:
			v = append(v, c)
		}
	}
}

// fullKey is the variable's name as `git config --list` spells it: section[.subsection].key.
func (e configEntry) fullKey() string {
	switch {
	case e.Section == "":
		return e.Key
	case e.Subsection == "":
		return e.Section + "." + e.Key
	}
	return e.Section + "." + e.Subsection + "." + e.Key
}

func isAlpha(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }
func isAlnum(c byte) bool { return isAlpha(c) || c >= '0' && c <= '9' }

// configLast is the last value of section.key (no subsection) in entries, as git reads it.
func configLast(entries []configEntry, section, key string) string {
	v := ""
	for _, e := range entries {
		if e.Section == section && e.Subsection == "" && e.Key == key {
			v = e.Value
		}
	}
	return v
}
