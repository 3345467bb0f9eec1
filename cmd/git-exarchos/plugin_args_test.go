package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// userText is Claude Code's substitution of what the user typed after a slash command: $ARGUMENTS,
// $ARGUMENTS[N] and $N.
var userText = regexp.MustCompile(`\$(ARGUMENTS|\{ARGUMENTS\}|[0-9])`)

// TestPluginPutsNoUserTextInACommandLine: what the user typed after a slash command is substituted
// as it is, so a command line holding $ARGUMENTS runs `git exarchos status --human` for
// `/exarchos:status --human`, or whatever a `;` adds. No command line the plugin teaches (fenced
// block or code span) may hold it; the commands name <feature> and say how to read it from the
// arguments.
func TestPluginPutsNoUserTextInACommandLine(t *testing.T) {
	root := filepath.Join("..", "..", "claude-plugin")
	commands := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".md") {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if strings.Contains(path, string(filepath.Separator)+"commands"+string(filepath.Separator)) {
			commands++
		}
		for _, code := range codeOf(string(b)) {
			if userText.MatchString(code) && (strings.Contains(code, "git ") || strings.HasPrefix(strings.TrimSpace(code), "!")) {
				t.Errorf("%s: the user's text in a command line: %s", path, code)
			}
		}
		for _, line := range strings.Split(string(b), "\n") {
			// Claude Code runs !`cmd` itself, before the model reads the command.
			if strings.Contains(line, "!`") && userText.MatchString(line) {
				t.Errorf("%s: the user's text in a command Claude Code runs: %s", path, line)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if commands < 7 {
		t.Fatalf("only %d slash commands found under %s: the scan is broken", commands, root)
	}
}
