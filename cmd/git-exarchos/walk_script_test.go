package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

func init() { extraScriptCmds["suggestions-work"] = cmdSuggestionsWork }

// cmdSuggestionsWork checks that every command the program suggests for a workflow in its current
// state is one that works there (issue 32): `suggestions-work <feature> [dimension=spec ...]` gathers every `next:`,
// `fix:`, ready and transition command that `transitions`, `view pipeline` and `rehydrate` print,
// fills what the user would fill (a committed file for <path>, a reason for "…"), and runs each in a
// copy of the repository, so the walk itself does not move. A suggestion works when it is not a
// usage error (exit 2), an unknown command, flag or workflow, or a failing git command line; a
// guard may still refuse it (exit 3), as a guard that is not yet met does.
//
// The lines checked are printed, so the walk's script can assert what it was offered.
func cmdSuggestionsWork(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 {
		ts.Fatalf("usage: suggestions-work <feature> [<placeholder>=<value>...]")
	}
	feature := args[0]
	values := map[string]string{}
	for _, a := range args[1:] {
		k, v, _ := strings.Cut(a, "=")
		values["<"+k+">"] = v
	}
	dir := ts.MkAbs(".")
	env := scriptEnv(ts)
	var offered []string
	for _, view := range [][]string{{"transitions", feature}, {"view", "pipeline"}, {"rehydrate", feature}} {
		out, _, _ := runIn(dir, env, "git", append([]string{"exarchos"}, view...)...)
		offered = append(offered, suggestedCommands(out)...)
	}
	// Each suggestion runs in its own copy, two at a time (the copies are independent).
	type outcome struct {
		cmd, line, stdout, stderr string
		code                      int
		took                      time.Duration
	}
	var todo []string
	seen := map[string]bool{}
	for _, cmd := range offered {
		if !seen[cmd] {
			seen[cmd] = true
			todo = append(todo, cmd)
		}
	}
	results := make([]outcome, len(todo))
	sem := make(chan struct{}, 2)
	var wg sync.WaitGroup
	for i, cmd := range todo {
		copyDir := filepath.Join(ts.Getenv("WORK"), fmt.Sprintf(".walk-%s-%d", feature, i))
		if out, err := exec.Command("cp", "-a", dir, copyDir).CombinedOutput(); err != nil {
			ts.Fatalf("copy the repository: %v: %s", err, out)
		}
		line := fill(ts, copyDir, env, cmd, values)
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			start := time.Now()
			stdout, stderr, code := runIn(copyDir, env, "sh", "-c", line)
			os.RemoveAll(copyDir)
			results[i] = outcome{cmd, line, stdout, stderr, code, time.Since(start)}
		}()
	}
	wg.Wait()
	for _, r := range results {
		ts.Logf("suggested: %s → exit %d (%v)", r.line, r.code, r.took.Round(time.Millisecond))
		fmt.Fprintf(ts.Stdout(), "works: %s\n", r.cmd)
		if bad := notWorking(r.code, r.stderr); bad != "" {
			ts.Fatalf("%s suggested %q, which does not work there (%s): exit %d\nstdout: %s\nstderr: %s", feature, r.line, bad, r.code, r.stdout, r.stderr)
		}
	}
	if len(seen) == 0 {
		ts.Fatalf("nothing suggested for %s", feature)
	}
}

// suggestionLine finds a command in a line of output: after "fix:", "next:", "ready:", a
// transitions row, or "ask the user to run:" (a human's step, run here as the user would).
var suggestionLine = regexp.MustCompile(`(?:^|\s|: )((?:git (?:exarchos [a-z]|switch |merge |fetch|branch |stash |add |commit )).*)$`)

func suggestedCommands(out string) []string {
	var cmds []string
	for _, l := range strings.Split(out, "\n") {
		m := suggestionLine.FindStringSubmatch(strings.TrimSpace(l))
		if m == nil {
			continue
		}
		cmd := strings.TrimSpace(m[1])
		// "More: git exarchos status f, git exarchos transitions f, ..." lists several.
		for _, c := range strings.Split(cmd, ", git ") {
			if !strings.HasPrefix(c, "git ") {
				c = "git " + c
			}
			cmds = append(cmds, strings.TrimRight(strings.TrimSpace(c), ".)"))
		}
	}
	return cmds
}

var placeholder = regexp.MustCompile(`<[a-z|-]+>`)

// fill completes a suggestion the way a user would: a file written and committed for an
// artifact's <path>, a reason for "…", a task id for <task-id>, and the values the script gives
// (dimension=spec fills <dimension>).
func fill(ts *testscript.TestScript, dir string, env []string, cmd string, values map[string]string) string {
	cmd = strings.ReplaceAll(cmd, "…", "walked")
	return placeholder.ReplaceAllStringFunc(cmd, func(p string) string {
		if v, ok := values[p]; ok {
			return v
		}
		switch p {
		case "<path>":
			name := "docs/walk-" + fmt.Sprint(len(cmd)) + ".md"
			if err := os.MkdirAll(filepath.Join(dir, "docs"), 0o755); err != nil {
				ts.Fatalf("%v", err)
			}
			if err := os.WriteFile(filepath.Join(dir, name), []byte("# walked\n"), 0o644); err != nil {
				ts.Fatalf("%v", err)
			}
			if _, stderr, code := runIn(dir, env, "sh", "-c", "git add "+name+" && git commit -q -m walk"); code != 0 {
				ts.Fatalf("commit %s: %s", name, stderr)
			}
			return name
		case "<task-id>":
			return "t9"
		case "<name>": // artifacts.<name>: one of the type's artifacts
			return "design"
		case "<sha>": // a commit of the branch: its tip
			out, stderr, code := runIn(dir, env, "git", "rev-parse", "HEAD")
			if code != 0 {
				ts.Fatalf("git rev-parse HEAD: %s", stderr)
			}
			return strings.TrimSpace(out)
		}
		ts.Fatalf("suggestion %q has a placeholder %s the walk does not know how to fill", cmd, p)
		return ""
	})
}

// notWorking says why an exit is not a command that works in this state, or "".
func notWorking(code int, stderr string) string {
	switch {
	case code == 2:
		return "a usage error"
	case code >= 126:
		return "git or the shell could not run it"
	}
	// A guard not yet met (GUARD_FAILED) is fine; a command the state does not take, or one
	// missing what it needs (--human), is not.
	for _, s := range []string{"unknown command", "unknown flag", "not a git command", "not found:", "usage:", "did you mean",
		"HUMAN_DECISION_REQUIRED", "WRONG_PHASE", "INVALID_TRANSITION", "FINAL_PHASE", "UNKNOWN_PHASE", "BAD_INPUT"} {
		if strings.Contains(stderr, s) {
			return "it says " + s
		}
	}
	return ""
}

// scriptEnv is the script's environment for the processes the walk starts, agent variables
// cleared: suggestions addressed to the user are run as the user would.
func scriptEnv(ts *testscript.TestScript) []string {
	env := []string{"CLAUDECODE=", "CLAUDE_CODE_SESSION_ID=", "CLAUDE_CODE_ENTRYPOINT=", "AI_AGENT=", "CLAUDE_PROJECT_DIR="}
	for _, k := range []string{"PATH", "HOME", "XDG_CONFIG_HOME", "GIT_CONFIG_NOSYSTEM", "NO_COLOR", "TMPDIR", "GITHUB_API_URL", "GH_TOKEN"} {
		if v := ts.Getenv(k); v != "" {
			env = append(env, k+"="+v)
		}
	}
	return env
}

func runIn(dir string, env []string, name string, args ...string) (stdout, stderr string, code int) {
	cmd := exec.Command(name, args...)
	cmd.Dir, cmd.Env = dir, env
	var o, e strings.Builder
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		code = 127
	}
	return o.String(), e.String(), code
}
