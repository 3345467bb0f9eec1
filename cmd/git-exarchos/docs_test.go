package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/urfave/cli/v3"
)

// The man page and the command list of docs/commands.md are generated from the command tree; these
// tests keep the committed copies current. Regenerate with: UPDATE=1 go test ./cmd/git-exarchos -run TestGenerated
func TestGeneratedManPage(t *testing.T) {
	page := manPage()
	for _, want := range []string{".TH git-exarchos 1", "transition", "task start", "completion"} {
		if !strings.Contains(page, want) {
			t.Errorf("man page lacks %q", want)
		}
	}
	checkGenerated(t, "../../docs/git-exarchos.1", page)
}

// TestBinaryDoesNotLinkSlowStarters: git-exarchos, run on every hook call, links none of the
// packages whose init was measured costing every start (BENCHMARKS.md): a markdown man page
// renderer (urfave/cli v2's, 0.3 ms; the page is roff written by man.go) and go-git's config
// parser, whose gcfg links encoding/gob (gitrepo parses config files itself).
func TestBinaryDoesNotLinkSlowStarters(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps .: %v", err)
	}
	deps := strings.Fields(string(out))
	for _, pkg := range []string{"github.com/russross/blackfriday/v2", "github.com/cpuguy83/go-md2man/v2/md2man", "github.com/urfave/cli/v2",
		"github.com/go-git/gcfg", "encoding/gob"} {
		if slices.Contains(deps, pkg) {
			t.Errorf("git-exarchos links %s", pkg)
		}
	}
}

const (
	commandsBegin = "<!-- commands: generated from the command tree (cmd/git-exarchos/commands.go) by TestGeneratedCommandList -->\n"
	commandsEnd   = "<!-- end of commands -->\n"
)

// commandsPage holds the generated command list (it was the README's until the README became a first
// screen; issue 31).
const commandsPage = "../../docs/commands.md"

func TestGeneratedCommandList(t *testing.T) {
	src, err := os.ReadFile(commandsPage)
	if err != nil {
		t.Fatal(err)
	}
	before, rest, ok := strings.Cut(string(src), commandsBegin)
	_, after, ok2 := strings.Cut(rest, commandsEnd)
	if !ok || !ok2 {
		t.Fatalf("%s has no generated command list (%q … %q)", commandsPage, commandsBegin, commandsEnd)
	}
	checkGenerated(t, commandsPage, before+commandsBegin+commandsMarkdown()+commandsEnd+after)
}

// commandsMarkdown is docs/commands.md's command list: each group, each command's usage line and summary.
func commandsMarkdown() string {
	_, groups := commandTree()
	var b strings.Builder
	for _, g := range groups {
		b.WriteString("\n**" + g.Name + "**\n\n| command | what it does |\n|---|---|\n")
		eachLeaf(g.Commands, func(c *cli.Command) {
			usage := strings.TrimPrefix(usageLine(c), "git exarchos ")
			b.WriteString("| `" + strings.ReplaceAll(usage, "|", `\|`) + "` | " + strings.ReplaceAll(c.Usage, "|", `\|`) + " |\n")
		})
	}
	b.WriteString("\n")
	return b.String()
}

// eachLeaf calls fn on every command under cmds that runs something (has no subcommands), in
// order, leaving out hidden commands and the help subcommand urfave adds under each parent (the
// top-level help command is one of the tree's own).
func eachLeaf(cmds []*cli.Command, fn func(*cli.Command)) {
	for _, c := range cmds {
		switch {
		case c.Hidden:
		case len(c.Commands) > 0:
			eachLeaf(slices.DeleteFunc(slices.Clone(c.Commands), func(s *cli.Command) bool { return s.Name == "help" }), fn)
		default:
			fn(c)
		}
	}
}

func checkGenerated(t *testing.T, path, want string) {
	t.Helper()
	if os.Getenv("UPDATE") != "" {
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Errorf("%s is not what the command tree generates: run UPDATE=1 go test ./cmd/git-exarchos -run TestGenerated", path)
	}
}

// TestJSONDocument: docs/json.md names every command and every error code of the table.
func TestJSONDocument(t *testing.T) {
	src, err := os.ReadFile("../../docs/json.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(src)
	root, _ := commandTree()
	for _, leaf := range leaves(root, "") {
		leaf = strings.TrimSuffix(leaf, " ok")
		if !strings.Contains(doc, "`"+leaf+"`") {
			t.Errorf("docs/json.md does not document %q", leaf)
		}
	}
	for _, row := range errorTable {
		if row.code != "" && !strings.Contains(doc, "`"+row.code+"`") {
			t.Errorf("docs/json.md does not document error code %s", row.code)
		}
	}
}

// TestUsageLinesNameEveryFlag: every command's usage line (the first line of its help, the
// command table in docs/commands.md and the man page) names each of its flags, so a flag the walkthrough
// uses (task add --title, cancel --human) cannot be missing from them again (issue 32).
func TestUsageLinesNameEveryFlag(t *testing.T) {
	root, _ := commandTree()
	eachLeaf(root, func(c *cli.Command) {
		if c.Name == "help" {
			return // help's usage names commands, not its flags
		}
		line := usageLine(c)
		for _, f := range c.Flags {
			if vf, ok := f.(cli.VisibleFlag); ok && !vf.IsVisible() {
				continue
			}
			name := f.Names()[0]
			if name == "help" {
				continue
			}
			if !strings.Contains(line+" ", "--"+name+" ") && !strings.Contains(line, "--"+name+"]") && !strings.Contains(line, "--"+name+"|") && !strings.Contains(line, "--"+name+"=") {
				t.Errorf("%s: the usage line %q does not name --%s", c.FullName(), line, name)
			}
		}
	})
}

// TestDocsLinksResolve: every relative link in README.md and docs/*.md names a file that exists and,
// with a #fragment, a heading of that page (as GitHub makes anchors), so moving text between pages
// cannot leave a reader at a dead link.
func TestDocsLinksResolve(t *testing.T) {
	pages, err := filepath.Glob("../../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	pages = append(pages, "../../README.md")
	link := regexp.MustCompile(`\]\(([^)\s]+)\)`)
	checked := 0
	for _, page := range pages {
		src, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range link.FindAllStringSubmatch(withoutCodeBlocks(string(src)), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			path, fragment, _ := strings.Cut(target, "#")
			file := page
			if path != "" {
				file = filepath.Join(filepath.Dir(page), path)
			}
			name, _ := filepath.Rel("../..", page)
			checked++
			if _, err := os.Stat(file); err != nil {
				t.Errorf("%s links to %s, which does not exist", name, target)
				continue
			}
			if fragment != "" && !slices.Contains(headingAnchors(t, file), fragment) {
				t.Errorf("%s links to %s, whose page has no heading with that anchor", name, target)
			}
		}
	}
	if checked < 20 {
		t.Fatalf("found only %d relative links: the link pattern is broken", checked)
	}
}

// withoutCodeBlocks drops fenced blocks, where `](` is code, not a link.
func withoutCodeBlocks(src string) string {
	var b strings.Builder
	fence := false
	for _, l := range strings.Split(src, "\n") {
		if strings.HasPrefix(l, "```") {
			fence = !fence
			continue
		}
		if !fence {
			b.WriteString(l + "\n")
		}
	}
	return b.String()
}

// headingAnchors returns the anchors GitHub gives a markdown page's headings: lower case, letters,
// digits, '-' and '_' kept, spaces made '-', everything else dropped.
func headingAnchors(t *testing.T, file string) []string {
	t.Helper()
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var anchors []string
	for _, l := range strings.Split(withoutCodeBlocks(string(src)), "\n") {
		title, ok := strings.CutPrefix(strings.TrimLeft(l, "#"), " ")
		if !ok || !strings.HasPrefix(l, "#") {
			continue
		}
		var a strings.Builder
		for _, r := range strings.ToLower(title) {
			switch {
			case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_':
				a.WriteRune(r)
			case r == ' ':
				a.WriteRune('-')
			}
		}
		anchors = append(anchors, a.String())
	}
	return anchors
}
