package main

import (
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/urfave/cli/v3"
)

// The man page and the README's command list are generated from the command tree; these tests keep
// the committed copies current. Regenerate with: UPDATE=1 go test ./cmd/git-exarchos -run TestGenerated
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
	commandsBegin = "<!-- commands: generated from the command tree (cmd/git-exarchos/commands.go) by TestGeneratedReadme -->\n"
	commandsEnd   = "<!-- end of commands -->\n"
)

func TestGeneratedReadme(t *testing.T) {
	src, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	before, rest, ok := strings.Cut(string(src), commandsBegin)
	_, after, ok2 := strings.Cut(rest, commandsEnd)
	if !ok || !ok2 {
		t.Fatalf("README.md has no generated command list (%q … %q)", commandsBegin, commandsEnd)
	}
	checkGenerated(t, "../../README.md", before+commandsBegin+commandsMarkdown()+commandsEnd+after)
}

// commandsMarkdown is the README's command list: each group, each command's usage line and summary.
func commandsMarkdown() string {
	_, groups := commandTree()
	var b strings.Builder
	for _, g := range groups {
		b.WriteString("\n**" + g.Name + "**\n\n| command | what it does |\n|---|---|\n")
		var row func(c *cli.Command)
		row = func(c *cli.Command) {
			if len(c.Commands) > 0 {
				for _, s := range c.Commands {
					if !s.Hidden && s.Name != "help" {
						row(s)
					}
				}
				return
			}
			usage := strings.TrimPrefix(usageLine(c), "git exarchos ")
			b.WriteString("| `" + strings.ReplaceAll(usage, "|", `\|`) + "` | " + strings.ReplaceAll(c.Usage, "|", `\|`) + " |\n")
		}
		for _, c := range g.Commands {
			row(c)
		}
	}
	b.WriteString("\n")
	return b.String()
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
// README's command table and the man page) names each of its flags, so a flag the walkthrough
// uses (task add --title, cancel --human) cannot be missing from them again (issue 32).
func TestUsageLinesNameEveryFlag(t *testing.T) {
	root, _ := commandTree()
	var walk func(c *cli.Command)
	walk = func(c *cli.Command) {
		if len(c.Commands) > 0 {
			for _, s := range c.Commands {
				if !s.Hidden && s.Name != "help" {
					walk(s)
				}
			}
			return
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
	}
	for _, c := range root {
		if !c.Hidden && c.Name != "help" {
			walk(c)
		}
	}
}
