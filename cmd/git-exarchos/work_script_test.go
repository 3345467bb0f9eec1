package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/rogpeppe/go-internal/testscript"
)

func init() { extraScriptCmds["work"] = cmdWork }

// cmdWork stands for the agent doing work: it appends a line to each named file (created with
// its directories) and commits them on the checked-out branch, so that `task done` and
// delegate → review meet a commit of code.
//
//	work src/store.go [more files…]
var workLines int

func cmdWork(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) == 0 {
		ts.Fatalf("usage: work <file>…")
	}
	for _, a := range args {
		p := ts.MkAbs(a)
		ts.Check(os.MkdirAll(filepath.Dir(p), 0o755))
		f, err := os.OpenFile(p, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		ts.Check(err)
		// A line of code, not a comment: whitespace and comments are no work (issue 38 item 3).
		workLines++
		_, err = fmt.Fprintf(f, "work_%d_%d = %d\n", os.Getpid(), workLines, workLines)
		ts.Check(err)
		ts.Check(f.Close())
		ts.Check(ts.Exec("git", "add", "--", a))
	}
	ts.Check(ts.Exec("git", "commit", "-q", "-m", "work on "+args[0]))
}
