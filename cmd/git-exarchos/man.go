package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/urfave/cli/v3"
)

// manPage is the man page of the command tree (section 1), written as roff here: urfave/cli v3 has
// no generator, and v2's (markdown through go-md2man and blackfriday) cost every start of the
// binary its package initialisers: 0.25–0.55 ms a start (BENCHMARKS.md, fourth stop), 4.57 → 4.28 ms
// for `status --json` in a build of the old tree without them (fifth stop).
// TestBinaryDoesNotLinkSlowStarters keeps them out.
func manPage() string {
	root := newApp(nil, io.Discard, io.Discard)
	var b strings.Builder
	b.WriteString(".TH git-exarchos 1\n.nh\n.ad l\n")
	b.WriteString(".SH NAME\ngit\\-exarchos \\- " + roffText(root.Usage) + "\n")
	synopsis, more, _ := strings.Cut(root.UsageText, "\n")
	b.WriteString(".SH SYNOPSIS\n.B git exarchos\n" + roffText(strings.TrimPrefix(synopsis, "git exarchos ")) + "\n")
	b.WriteString(".SH DESCRIPTION\n")
	for i, para := range strings.Split(root.Description+"\n\n"+strings.TrimSpace(more), "\n\n") {
		if i > 0 {
			b.WriteString(".PP\n")
		}
		b.WriteString(roffText(para) + "\n")
	}
	b.WriteString(".SH COMMANDS\n")
	var command func(c *cli.Command, path string)
	command = func(c *cli.Command, path string) {
		if c.Hidden {
			return
		}
		path = strings.TrimSpace(path + " " + c.Name)
		b.WriteString(".SS " + roffArg(path) + "\n" + roffText(c.Usage) + "\n")
		if c.UsageText != "" {
			b.WriteString(".PP\n.EX\n" + roffText(strings.Trim(c.UsageText, "\n")) + "\n.EE\n")
		}
		for _, f := range sortedFlags(c.Flags) {
			b.WriteString(".TP\n" + manFlag(f) + "\n")
		}
		for _, s := range c.Commands {
			command(s, path)
		}
	}
	for _, c := range root.Commands {
		command(c, "")
	}
	return b.String()
}

// sortedFlags: the flags by name, as the page has always listed them.
func sortedFlags(flags []cli.Flag) []cli.Flag {
	out := slices.Clone(flags)
	slices.SortFunc(out, func(a, b cli.Flag) int { return strings.Compare(a.Names()[0], b.Names()[0]) })
	return out
}

// manFlag is a flag's tag line and its description (.TP's two lines): names, the value's
// placeholder (the usage's `word`, as in -h), the usage and a default other than the zero value.
func manFlag(f cli.Flag) string {
	var names []string
	for _, n := range f.Names() {
		dashes := "--"
		if len(n) == 1 {
			dashes = "-"
		}
		names = append(names, `\fB`+roffText(dashes+n)+`\fR`)
	}
	usage, placeholder := "", "value"
	if d, ok := f.(cli.DocGenerationFlag); ok {
		usage = d.GetUsage()
		if i := strings.IndexByte(usage, '`'); i >= 0 {
			if j := strings.IndexByte(usage[i+1:], '`'); j >= 0 {
				placeholder = usage[i+1 : i+1+j]
				usage = usage[:i] + placeholder + usage[i+2+j:]
			}
		}
		if v := d.GetValue(); d.TakesValue() && v != "" && v != `""` && v != "0" && v != "[]" {
			usage += " (default: " + v + ")"
		}
		if !d.TakesValue() {
			placeholder = ""
		}
	}
	tag := strings.Join(names, ", ")
	if placeholder != "" {
		tag += ` \fI` + roffText(placeholder) + `\fR`
	}
	return tag + "\n" + roffText(usage)
}

// roffText escapes text for a roff input line: backslashes, hyphens (literal minus signs, since
// the page is mostly command lines to copy), a control character ('.' or ”') at the start of a
// line, and characters outside ASCII as \[uXXXX], which every formatter reads whatever its input
// encoding.
func roffText(s string) string {
	var b strings.Builder
	lineStart := true
	for _, r := range s {
		switch {
		case lineStart && (r == '.' || r == '\''):
			b.WriteString(`\&` + string(r))
		case r == '\\':
			b.WriteString(`\e`)
		case r == '-':
			b.WriteString(`\-`)
		case r == '\t':
			b.WriteString("   ")
		case r > 0x7e:
			fmt.Fprintf(&b, `\[u%04X]`, r)
		default:
			b.WriteRune(r)
		}
		lineStart = r == '\n'
	}
	return b.String()
}

// roffArg is a macro argument: roffText, quoted when it has spaces (a '"' inside becomes \(dq).
func roffArg(s string) string {
	s = roffText(s)
	if !strings.ContainsAny(s, " \"") {
		return s
	}
	return `"` + strings.ReplaceAll(s, `"`, `\(dq`) + `"`
}
