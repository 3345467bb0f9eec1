package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/urfave/cli/v3"
)

// pluginCommandLine finds `git exarchos …` in code: up to the end of the span or line, or a shell
// operator.
var pluginCommandLine = regexp.MustCompile("git exarchos ([^`\n|;&#)]*)")

// codeOf is the code of a markdown document: the lines of fenced blocks and the inline code spans.
func codeOf(doc string) []string {
	var code []string
	fenced := false
	for _, line := range strings.Split(doc, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		if fenced {
			code = append(code, line)
			continue
		}
		spans := strings.Split(line, "`")
		for i := 1; i < len(spans); i += 2 {
			code = append(code, spans[i])
		}
	}
	return code
}

// Every `git exarchos …` command line the plugin teaches the agent (commands, skills, agents,
// README) names a real command with real flags, so the plugin cannot drift from the CLI.
func TestPluginCommandLinesParse(t *testing.T) {
	root := filepath.Join("..", "..", "claude-plugin")
	tree, _ := commandTree()
	checked := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".md") {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, code := range codeOf(string(b)) {
			for _, m := range pluginCommandLine.FindAllStringSubmatch(code, -1) {
				if msg := checkCommandLine(tree, m[1]); msg != "" {
					t.Errorf("%s: git exarchos %s: %s", path, m[1], msg)
				}
				checked++
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 80 {
		t.Fatalf("only %d command lines found in %s: the scan is broken", checked, root)
	}
}

// checkCommandLine resolves args against the command tree: the (sub)command path must exist and
// end at a command that runs, and every option must be one of its flags.
func checkCommandLine(tree []*cli.Command, line string) string {
	words := strings.Fields(line)
	if len(words) == 0 {
		return "no command"
	}
	var cmd *cli.Command
	children := tree
	i := 0
	for ; i < len(words); i++ {
		next := findCommand(children, words[i])
		if next == nil {
			break
		}
		cmd, children = next, next.Commands
	}
	if cmd == nil {
		return "no command " + words[0]
	}
	if cmd.Action == nil || len(cmd.Commands) > 0 && cmd.ArgsUsage == "" {
		return "command " + cmd.Name + " needs a subcommand"
	}
	for _, w := range words[i:] {
		if w == "--" {
			break
		}
		if !strings.HasPrefix(w, "-") || w == "-" {
			continue
		}
		name, _, _ := strings.Cut(strings.TrimLeft(w, "-"), "=")
		if name == "h" || name == "help" {
			continue
		}
		if !hasFlag(cmd, name) {
			return "command " + cmd.FullName() + " has no flag --" + name
		}
	}
	return ""
}

func findCommand(cmds []*cli.Command, name string) *cli.Command {
	for _, c := range cmds {
		if c.Name == name {
			return c
		}
		for _, a := range c.Aliases {
			if a == name {
				return c
			}
		}
	}
	return nil
}

func hasFlag(cmd *cli.Command, name string) bool {
	for _, f := range cmd.Flags {
		for _, n := range f.Names() {
			if n == name {
				return true
			}
		}
	}
	return false
}

// The check itself refuses what is not a command line.
func TestCheckCommandLineRefusesDrift(t *testing.T) {
	tree, _ := commandTree()
	for line, want := range map[string]string{
		"transition login plan":                 "",
		"task add login t1 --title \"x\"":       "",
		"validate login -- go test --bogus":     "",
		"transiton login plan":                  "no command transiton",
		"transition login plan --force":         "has no flag --force",
		"task":                                  "needs a subcommand",
		"approve login --note=ok":               "",
		"init login --type feature --typo=x":    "has no flag --typo",
		"loop fail-now pairing --reason why -h": "",
		"loop done pairing --reason why":        "has no flag --reason",
		"cleanup login --offline --base main":   "",
		"pr find login --json":                  "",
		"pr":                                    "needs a subcommand",
		"review login spec pass --note \"x y\"": "",
	} {
		got := checkCommandLine(tree, line)
		if want == "" && got != "" || want != "" && !strings.Contains(got, want) {
			t.Errorf("%q: got %q, want %q", line, got, want)
		}
	}
}
