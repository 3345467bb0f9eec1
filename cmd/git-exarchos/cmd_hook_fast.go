package main

import (
	"errors"
	"os"

	"github.com/exarchos/git-exarchos/app"
)

// Claude Code runs `git-exarchos hook claude` on every tool call. Answering it here, before the
// command-line framework builds its command tree, keeps that work off the hot path.
func init() {
	if len(os.Args) == 3 && os.Args[1] == "hook" && os.Args[2] == "claude" {
		if err := app.ClaudeHook(app.ClaudeHookOptions{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr}); err != nil {
			if errors.Is(err, app.ErrHookBlock) {
				os.Exit(2) // Claude Code blocks the call and shows stderr
			}
			os.Exit(1)
		}
		os.Exit(0)
	}
}
