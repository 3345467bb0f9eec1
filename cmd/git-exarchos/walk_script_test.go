package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

func init() { extraScriptCmds["suggestions-work"] = cmdSuggestionsWork }

// cmdSuggestionsWork checks that every command the program suggests for a workflow in its current
// state is one that works there (issue 32): `suggestions-work [--agent] <feature> [dimension=spec ...]` gathers every `next:`,
// `fix:`, ready and transition command that `transitions`, `view pipeline` and `rehydrate` print,
// fills what the user would fill (a committed file for <path>, a reason for "…"), and runs each in a
// copy of the repository, so the walk itself does not move. A suggestion works when it is not a
// usage error (exit 2), an unknown command, flag or workflow, or a failing git command line; a
// guard may still refuse it (exit 3), as a guard that is not yet met does — but not with its own
// command as the fix (a loop).
//
// With --agent the views are asked by an agent (the variables Claude Code sets, a session of its
// own; issue 38 item 4): a suggestion said as the user's ("ask the user to run: …") is run as the
// user would, in a terminal without them; every other one is run as the agent, and must be the
// agent's to run: not refused as a human decision, and not recorded only to not count (a review
// verdict that transitions then calls the worker's own).
//
// The lines checked are printed, so the walk's script can assert what it was offered.
func cmdSuggestionsWork(ts *testscript.TestScript, neg bool, args []string) {
	agent := len(args) > 0 && args[0] == "--agent"
	if agent {
		args = args[1:]
	}
	if neg || len(args) < 1 {
		ts.Fatalf("usage: suggestions-work [--agent] <feature> [<placeholder>=<value>...]")
	}
	feature := args[0]
	values := map[string]string{}
	for _, a := range args[1:] {
		k, v, _ := strings.Cut(a, "=")
		values["<"+k+">"] = v
	}
	dir := ts.MkAbs(".")
	human := scriptEnv(ts)
	asker := human
	if agent {
		asker = agentEnv(human)
	}
	var offered []suggestion
	for _, view := range [][]string{{"transitions", feature}, {"view", "pipeline"}, {"rehydrate", feature}} {
		out, _, _ := runIn(dir, asker, "git", append([]string{"exarchos"}, view...)...)
		offered = append(offered, suggestedCommands(out)...)
	}
	// Each suggestion runs in its own copy, two at a time (the copies are independent).
	type outcome struct {
		s                            suggestion
		line, stdout, stderr, viewed string
		code                         int
		took                         time.Duration
	}
	var todo []suggestion
	seen := map[suggestion]bool{}
	for _, sg := range offered {
		if !seen[sg] {
			seen[sg] = true
			todo = append(todo, sg)
		}
	}
	results := make([]outcome, len(todo))
	sem := make(chan struct{}, 2)
	var wg sync.WaitGroup
	for i, sg := range todo {
		copyDir := filepath.Join(ts.Getenv("WORK"), fmt.Sprintf(".walk-%s-%d", feature, i))
		if out, err := exec.Command("cp", "-a", dir, copyDir).CombinedOutput(); err != nil {
			ts.Fatalf("copy the repository: %v: %s", err, out)
		}
		runner := asker
		if sg.human {
			runner = human
		}
		line := fill(ts, copyDir, human, sg.cmd, values)
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			start := time.Now()
			stdout, stderr, code := runIn(copyDir, runner, "sh", "-c", line)
			viewed := ""
			if agent && !sg.human && code == 0 {
				viewed, _, _ = runIn(copyDir, human, "git", "exarchos", "transitions", feature)
			}
			os.RemoveAll(copyDir)
			results[i] = outcome{sg, line, stdout, stderr, viewed, code, time.Since(start)}
		}()
	}
	wg.Wait()
	for _, r := range results {
		who := "agent"
		if !agent || r.s.human {
			who = "user"
		}
		ts.Logf("suggested to the %s: %s → exit %d (%v)", who, r.line, r.code, r.took.Round(time.Millisecond))
		if r.s.human && agent {
			fmt.Fprintf(ts.Stdout(), "works for the user: %s\n", r.s.cmd)
		} else {
			fmt.Fprintf(ts.Stdout(), "works: %s\n", r.s.cmd)
		}
		bad := notWorking(r.code, r.stderr)
		if bad == "" {
			bad = loops(r.s.cmd, r.line, r.code, r.stderr)
		}
		if bad == "" && agent && !r.s.human {
			bad = notTheAgents(r.stderr, r.viewed)
		}
		if bad != "" {
			ts.Fatalf("%s suggested to the %s %q, which does not work there (%s): exit %d\nstdout: %s\nstderr: %s", feature, who, r.line, bad, r.code, r.stdout, r.stderr)
		}
	}
	if len(seen) == 0 {
		ts.Fatalf("nothing suggested for %s", feature)
	}
}

// suggestion is one command offered, and whether it was said as the user's step.
type suggestion struct {
	cmd   string
	human bool
}

// loops says whether a refused suggestion printed itself as its own fix ("" when not).
func loops(cmd, line string, code int, stderr string) string {
	if code == 0 {
		return ""
	}
	for _, l := range strings.Split(stderr, "\n") {
		fix, ok := strings.CutPrefix(strings.TrimSpace(l), "fix: ")
		if ok && (fix == cmd || fix == line) {
			return "it is refused, and its refusal prints it again as the fix: a loop"
		}
	}
	return ""
}

// notTheAgents says why a suggestion made to the agent is not the agent's ("" when it is): refused
// as the user's decision, or recorded where the guard then does not count it.
func notTheAgents(stderr, viewed string) string {
	for _, s := range []string{"AGENT_ENVIRONMENT", "is a human decision", "HUMAN_DECISION_REQUIRED", "would not count"} {
		if strings.Contains(stderr, s) {
			return "offered to the agent, refused as the user's: " + s
		}
	}
	for _, s := range []string{"recorded by the agent that did the work", "(not a human decision)"} {
		if strings.Contains(viewed, s) {
			return "recorded, and then not counted: " + s
		}
	}
	return ""
}

// agentEnv is env as Claude Code gives a Bash command: its variables set, a session of its own.
func agentEnv(env []string) []string {
	return append(slices.Clone(env), "CLAUDECODE=1", "CLAUDE_CODE_SESSION_ID=walk-session", "CLAUDE_CODE_ENTRYPOINT=cli", "AI_AGENT=claude-code")
}

// suggestionLine finds a command in a line of output: after "fix:", "next:", "ready:", a
// transitions row, or "ask the user to run:" (a human's step, run here as the user would).
var suggestionLine = regexp.MustCompile(`(?:^|\s|: )((?:git (?:exarchos [a-z]|switch |merge |fetch|branch |stash |add |commit )).*)$`)

func suggestedCommands(out string) []suggestion {
	var cmds []suggestion
	for _, l := range strings.Split(out, "\n") {
		m := suggestionLine.FindStringSubmatchIndex(strings.TrimSpace(l))
		if m == nil {
			continue
		}
		l = strings.TrimSpace(l)
		cmd := strings.TrimSpace(l[m[2]:m[3]])
		human := strings.Contains(l[:m[2]], "ask the user to run")
		// "More: git exarchos status f, git exarchos transitions f, ..." lists several.
		for _, c := range strings.Split(cmd, ", git ") {
			if !strings.HasPrefix(c, "git ") {
				c = "git " + c
			}
			cmds = append(cmds, suggestion{strings.TrimRight(strings.TrimSpace(c), ".)"), human})
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
