// Command hooks times the Claude Code hook handler as Claude Code runs it: one whole process per
// event, payload on stdin, against a workflow of many events, next to `git rev-parse HEAD` timed in
// the same run (the baseline every figure is a ratio of). Runs are interleaved so that drift in
// the machine's speed hits every command alike.
//
//	PATH=/tmp/gx:$PATH go run ./bench/hooks -n 300 -events 10000
//	PATH=/tmp/gx:$PATH go run ./bench/hooks -n 100 -events 10000 -workflows 10000 -files 10000 -junk 20000
//
// Like every program under bench/, it may import app, the packages below it, bench/benchutil and
// ghclient/fakegithub; nothing imports it.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/exarchos/git-exarchos/bench/benchutil"

	"github.com/exarchos/git-exarchos/app"
	"github.com/exarchos/git-exarchos/workflow"
)

func main() {
	runs := flag.Int("n", 300, "runs of each command")
	events := flag.Int("events", 10000, "events in the bound workflow")
	others := flag.Int("workflows", 20, "other workflows in the repository, bound to other branches")
	bloat := flag.Int("objects", 50000, "unrelated objects added to the repository before `git gc`, as a project's history would be")
	keep := flag.Bool("keep", false, "keep the temporary repository and print where it is")
	files := flag.Int("files", 0, "files committed in the repository (the PostToolUse effects check reads the working tree)")
	junk := flag.Int("junk", 0, "junk entries under .git/refs/exarchos/ (half with names git refuses, half valid names holding garbage), timed on a first call with the hook cache deleted")
	packed := flag.Bool("packed", false, "pack the refs (git pack-refs --all) after setup, as git gc or a clone leaves them, so that two builds are timed on the same layout of refs")
	envelope := flag.Bool("envelope", false, "bind the branch to a repository-defined workflow whose phase has allowedTools and a turnCap (issue 8) instead of the built-in feature workflow")
	flag.Parse()

	tmp, err := os.MkdirTemp("", "exarchos-hook-bench-")
	benchutil.Check(err)
	if *keep {
		fmt.Println("repository:", tmp)
	} else {
		defer os.RemoveAll(tmp)
	}
	// The binary on PATH, as every bench program times it (build it as CONTRIBUTING.md says), so
	// two builds compare by putting each first on PATH; a fresh copy of it is put first on PATH.
	bin := benchutil.RequireOnPath("hooks")
	defer os.RemoveAll(bin)
	repo := filepath.Join(tmp, "repo")
	if *envelope {
		benchEnvelope(repo, bin, *events, *others, *runs)
		return
	}
	setup(repo, *events, *others, *files)
	os.Setenv("XDG_STATE_HOME", filepath.Join(tmp, "state")) // the session bindings

	payload := func(event, tool, input string) []byte {
		return []byte(fmt.Sprintf(`{"session_id":"bench","transcript_path":"/tmp/t.jsonl","cwd":%q,"hook_event_name":%q,"tool_name":%q,"tool_input":%s}`, repo, event, tool, input))
	}
	hook := []string{filepath.Join(bin, "git-exarchos"), "hook", "claude"}
	if *junk > 0 {
		benchJunk(repo, hook, *junk, *runs)
		return
	}
	write := payload("PreToolUse", "Write", `{"file_path":"`+repo+`/main.go","content":"package main"}`)
	cases := []benchCase{
		{name: "git rev-parse HEAD (baseline)", args: []string{"git", "rev-parse", "HEAD"}},
		{name: "git-exarchos hook claude: PreToolUse Write, denied in ideate", args: []string{filepath.Join(bin, "git-exarchos"), "hook", "claude"}, stdin: write, want: `"deny"`},
		{name: "git exarchos hook claude: PreToolUse Write, denied in ideate", args: []string{"git", "exarchos", "hook", "claude"}, stdin: write, want: `"deny"`},
		{name: "git-exarchos hook claude: PreToolUse Write on the design, allowed", args: []string{filepath.Join(bin, "git-exarchos"), "hook", "claude"}, stdin: payload("PreToolUse", "Write", `{"file_path":"`+repo+`/docs/design.md"}`), want: `"continue":true`},
		{name: "git-exarchos hook claude: PreToolUse Bash go test", args: []string{filepath.Join(bin, "git-exarchos"), "hook", "claude"}, stdin: payload("PreToolUse", "Bash", `{"command":"go test ./... 2>&1 | tail -5"}`), want: `"continue":true`},
		{name: "git-exarchos hook claude: PreToolUse Read", args: []string{filepath.Join(bin, "git-exarchos"), "hook", "claude"}, stdin: payload("PreToolUse", "Read", `{"file_path":"`+repo+`/main.go"}`), want: `"continue":true`},
		{name: "git-exarchos hook claude: SessionStart", args: []string{filepath.Join(bin, "git-exarchos"), "hook", "claude"}, stdin: payload("SessionStart", "", `{}`), want: `additionalContext`},
		{name: "git-exarchos hook claude: PostToolUse Bash in ideate (effects check, clean tree)", args: hook, stdin: payload("PostToolUse", "Bash", `{"command":"go test ./..."}`), want: `"continue":true`},
		{name: "git status --porcelain=v2 (reference: what the effects check runs)", args: []string{"git", "--no-optional-locks", "status", "--porcelain=v2", "-z", "--untracked-files=all"}, want: ""},
		{name: "git-exarchos hook claude: PreToolUse Read, first call of a new session (index lookup, binding recorded)", args: hook, want: `"continue":true`,
			payload: func(run int) []byte {
				return []byte(fmt.Sprintf(`{"session_id":"fresh-%d","cwd":%q,"hook_event_name":"PreToolUse","tool_name":"Read","tool_input":{"file_path":"main.go"}}`, run, repo))
			}},
	}
	pass := "workflow objects loose"
	if *packed {
		benchutil.Run(repo, "", "git", "pack-refs", "--all", "--prune")
		pass += ", refs packed"
	}
	measure(repo, pass, cases, *runs)
	addHistory(repo, *bloat)
	benchutil.Run(repo, "", "git", "gc", "-q")
	measure(repo, fmt.Sprintf("after %d more objects and git gc (everything in one pack)", *bloat), cases, *runs)
}

type benchCase struct {
	name  string
	args  []string
	stdin []byte
	// payload, when set, makes the stdin of each run (a fresh tool_use_id per call).
	payload func(run int) []byte
	want    string
	times   []time.Duration
}

func measure(repo, pass string, cases []benchCase, runs int) {
	for i := range cases {
		cases[i].times = nil
		if cases[i].payload != nil {
			cases[i].stdin = cases[i].payload(-1)
		}
		out := runCase(repo, cases[i]) // warm the page cache, and check the answer
		if !strings.Contains(string(out), cases[i].want) {
			log.Fatalf("%s: output %q does not contain %q", cases[i].name, out, cases[i].want)
		}
	}
	for n := range runs {
		for i := range cases {
			if cases[i].payload != nil {
				cases[i].stdin = cases[i].payload(n)
			}
			start := time.Now()
			runCase(repo, cases[i])
			cases[i].times = append(cases[i].times, time.Since(start))
		}
	}
	report(pass, cases, runs)
}

func report(pass string, cases []benchCase, runs int) {
	base := benchutil.Percentile(cases[0].times, 0.5)
	fmt.Printf("\n%s, %d runs each, interleaved:\n\n| command | median | p90 | ratio to baseline |\n|---|---|---|---|\n", pass, runs)
	for _, c := range cases {
		m := benchutil.Percentile(c.times, 0.5)
		fmt.Printf("| %s | %.2f ms | %.2f ms | %.2fx |\n", c.name, benchutil.Ms(m), benchutil.Ms(benchutil.Percentile(c.times, 0.9)), float64(m)/float64(base))
	}
}

func runCase(dir string, c benchCase) []byte {
	cmd := exec.Command(c.args[0], c.args[1:]...)
	cmd.Dir = dir
	cmd.Stdin = bytes.NewReader(c.stdin)
	out, err := cmd.CombinedOutput()
	if err != nil {
		log.Fatalf("%s: %v: %s", c.name, err, out)
	}
	return out
}

// setup makes a repository whose branch feat/bench is bound to a feature workflow in ideate with
// a recorded design artifact and `events` events, plus `others` workflows on other branches.
func setup(repo string, events, others, files int) {
	benchutil.Check(os.MkdirAll(repo, 0o755))
	benchutil.Run(repo, "", "git", "init", "-q", "-b", "main")
	benchutil.Run(repo, "", "git", "config", "user.name", "Bench")
	benchutil.Run(repo, "", "git", "config", "user.email", "bench@example.com")
	benchutil.Check(os.WriteFile(filepath.Join(repo, "main.go"), []byte("package main\n"), 0o644))
	for i := range files {
		p := filepath.Join(repo, "src", fmt.Sprintf("d%d", i%100), fmt.Sprintf("f%d.go", i))
		benchutil.Check(os.MkdirAll(filepath.Dir(p), 0o755))
		benchutil.Check(os.WriteFile(p, []byte(fmt.Sprintf("package d%d\n", i%100)), 0o644))
	}
	benchutil.Run(repo, "", "git", "add", ".")
	benchutil.Run(repo, "", "git", "commit", "-q", "-m", "initial")
	benchutil.Run(repo, "", "git", "switch", "-q", "-c", "feat/bench")
	r, err := app.Open(repo)
	benchutil.Check(err)
	_, err = r.CreateWorkflow(workflow.Init{Feature: "bench", Type: "feature", Branch: "feat/bench"})
	benchutil.Check(err)
	_, err = r.Execute("bench", workflow.Set{Assignments: []workflow.Assignment{{Path: "artifacts.design", Value: []byte(`"docs/design.md"`)}}})
	benchutil.Check(err)
	const batch = 250
	for n := 2; n < events; {
		var evs []workflow.NewEvent
		for ; len(evs) < batch && n < events; n++ {
			if n%100 == 0 {
				evs = append(evs, workflow.NewEvent{Type: workflow.EventTaskAdded, Data: workflow.TaskData{ID: fmt.Sprintf("t%d", n), Title: "a task of the benchmark"}})
			} else {
				evs = append(evs, workflow.NewEvent{Type: "bench.note", Data: map[string]any{"n": n, "text": "an event that the fold counts and ignores"}})
			}
		}
		_, err := r.Append("bench", evs...)
		benchutil.Check(err)
	}
	// The first 20 other workflows are made by init; the rest are refs to the same commits (as a
	// fetch of a big team's workflows would make), so setting up 10,000 takes seconds.
	var clones bytes.Buffer
	for i := range others {
		if i < 20 {
			_, err := r.CreateWorkflow(workflow.Init{Feature: fmt.Sprintf("other-%d", i), Type: "feature", Branch: fmt.Sprintf("feat/other-%d", i)})
			benchutil.Check(err)
			continue
		}
		fmt.Fprintf(&clones, "create refs/exarchos/other-%d refs/exarchos/other-%d\n", i, i%20)
	}
	if clones.Len() > 0 {
		cmd := exec.Command("git", "update-ref", "--stdin")
		cmd.Dir, cmd.Stdin = repo, &clones
		if out, err := cmd.CombinedOutput(); err != nil {
			log.Fatalf("update-ref: %v: %s", err, out)
		}
		benchutil.Check(os.RemoveAll(filepath.Join(repo, ".git", "exarchos-cache"))) // rebuilt once, by the first call
	}
	st, _, err := r.State("bench")
	benchutil.Check(err)
	fmt.Printf("workflow bench: %d events, phase %s, %d tasks; %d other workflows\n", st.Events, st.Phase, len(st.Tasks), others)
}

// benchJunk times the first call after junk entries were added under .git/refs/exarchos/ with the
// hook cache deleted: the branch index is rebuilt from the ref names, skipping the junk unread.
func benchJunk(repo string, hook []string, junk, runs int) {
	dir := filepath.Join(repo, ".git", "refs", "exarchos")
	for i := range junk {
		name := fmt.Sprintf("Junk %d.DS_Store", i) // a name git refuses
		if i%2 == 1 {
			name = fmt.Sprintf("junk-%d", i) // a valid name holding garbage
		}
		benchutil.Check(os.WriteFile(filepath.Join(dir, name), []byte("not a ref\n"), 0o644))
	}
	cases := []benchCase{
		{name: "git rev-parse HEAD (baseline)", args: []string{"git", "rev-parse", "HEAD"}},
		{name: fmt.Sprintf("git-exarchos hook claude: PreToolUse Write, first call of a new session after %d junk refs (branch index in place)", junk), args: hook, want: `"deny"`,
			payload: func(run int) []byte {
				return []byte(fmt.Sprintf(`{"session_id":"junk-warm-%d","cwd":%q,"hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{"file_path":"main.go"}}`, run, repo))
			}},
		{name: "git-exarchos hook claude: PreToolUse Write, the same session's next call", args: hook, want: `"deny"`,
			stdin: []byte(fmt.Sprintf(`{"session_id":"junk-bound","cwd":%q,"hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{"file_path":"main.go"}}`, repo))},
		{name: fmt.Sprintf("git-exarchos hook claude: PreToolUse Write, first call after %d junk refs, hook cache deleted (index rebuilt)", junk), args: hook, want: `"deny"`,
			payload: func(run int) []byte {
				benchutil.Check(os.RemoveAll(filepath.Join(repo, ".git", "exarchos-cache")))
				return []byte(fmt.Sprintf(`{"session_id":"junk-%d","cwd":%q,"hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{"file_path":"main.go"}}`, run, repo))
			}},
	}
	measure(repo, fmt.Sprintf("%d junk entries under refs/exarchos/", junk), cases, runs)
}

// addHistory commits n small files on another branch through fast-import, so that after gc the
// workflow objects share a pack (and its index) with a project-sized history.
func addHistory(repo string, n int) {
	var b bytes.Buffer
	fmt.Fprintf(&b, "commit refs/heads/history\ncommitter Bench <bench@example.com> 0 +0000\ndata 7\nhistory\n")
	for i := range n {
		content := fmt.Sprintf("file %d\n", i)
		fmt.Fprintf(&b, "M 100644 inline f/%d/%d.txt\ndata %d\n%s\n", i%100, i, len(content), content)
	}
	cmd := exec.Command("git", "fast-import", "--quiet")
	cmd.Dir = repo
	cmd.Stdin = &b
	if out, err := cmd.CombinedOutput(); err != nil {
		log.Fatalf("fast-import: %v: %s", err, out)
	}
}
