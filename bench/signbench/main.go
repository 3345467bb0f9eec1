// Command signbench times, as whole processes, what signed decisions cost the commands that run
// constantly (status, the PreToolUse hook) and what `verify` costs on a 10,000-event workflow,
// against the same commands in an unsigned repository and git baselines measured in the same run.
//
//	PATH=/tmp/gx:$PATH go run ./bench/signbench [-n 50] [-events 10000] [-decisions 20]
//
// Like every program under bench/, it may import app, the packages below it, bench/benchutil and
// ghclient/fakegithub; nothing imports it.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/exarchos/git-exarchos/app"
	"github.com/exarchos/git-exarchos/bench/benchutil"
	"github.com/exarchos/git-exarchos/internal/agentenv"
	"github.com/exarchos/git-exarchos/trust"
	"github.com/exarchos/git-exarchos/workflow"
)

type benchCase struct {
	name, dir, stdin string
	args             []string
	baseline         string
	target           string
}

func main() {
	n := flag.Int("n", 50, "runs per case")
	events := flag.Int("events", 10000, "events in each workflow")
	decisions := flag.Int("decisions", 20, "signed decisions (approvals) in the signed workflow")
	flag.Parse()
	tmp, err := os.MkdirTemp("", "signbench")
	benchutil.Check(err)
	defer os.RemoveAll(tmp)
	defer os.RemoveAll(benchutil.RequireOnPath("signbench"))

	signed, plain := filepath.Join(tmp, "signed"), filepath.Join(tmp, "plain")
	setup(signed, tmp, *events, *decisions, true)
	setup(plain, tmp, *events, *decisions, false)
	hook := func(dir string) string {
		return fmt.Sprintf(`{"session_id":"bench","transcript_path":"/tmp/t.jsonl","cwd":%q,"hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{"file_path":"%s/main.go","content":"x"}}`, dir, dir)
	}
	cases := []benchCase{
		{name: "git cat-file state.json (baseline)", dir: signed, args: []string{"git", "cat-file", "-p", "refs/exarchos/f:state.json"}},
		{name: "status --json, unsigned repository", dir: plain, args: []string{"git", "exarchos", "status", "f", "--json"}, baseline: "git cat-file state.json (baseline)"},
		{name: "status --json, signed repository", dir: signed, args: []string{"git", "exarchos", "status", "f", "--json"}, baseline: "status --json, unsigned repository", target: "status keeps its budget (≤ 10 ms)"},
		{name: "hook claude PreToolUse Write, unsigned", dir: plain, stdin: hook(plain), args: []string{"git-exarchos", "hook", "claude"}, baseline: "git cat-file state.json (baseline)"},
		{name: "hook claude PreToolUse Write, signed", dir: signed, stdin: hook(signed), args: []string{"git-exarchos", "hook", "claude"}, baseline: "hook claude PreToolUse Write, unsigned", target: "≤ 10 ms"},
		{name: "verify f, unsigned (fold + facts)", dir: plain, args: []string{"git", "exarchos", "verify", "f"}, baseline: "git cat-file state.json (baseline)"},
		{name: "verify f, signed, verdicts cached", dir: signed, args: []string{"git", "exarchos", "verify", "f"}, baseline: "verify f, unsigned (fold + facts)", target: "≤ 1 s at 10,000 events"},
		{name: "verify f, signed, no verdict cache (CI)", dir: signed, args: []string{"sh", "-c", "rm -rf .git/exarchos/verdicts && git exarchos verify f"}, baseline: "verify f, unsigned (fold + facts)", target: "≤ 1 s at 10,000 events"},
	}
	durations := make([][]time.Duration, len(cases))
	for i := 0; i < *n; i++ {
		for j, c := range cases {
			durations[j] = append(durations[j], benchutil.Time(c.dir, c.stdin, c.args...))
		}
	}
	fmt.Printf("%d interleaved runs per case; workflows of %d events, %d signed decisions; %s\n\n", *n, *events, *decisions, time.Now().UTC().Format("2006-01-02"))
	rows := make([]benchutil.Row, len(cases))
	for j, c := range cases {
		rows[j] = benchutil.Row{Key: c.name, Label: c.name, Baseline: c.baseline, Target: c.target, Durations: durations[j]}
	}
	benchutil.PrintTable(rows)
}

// setup makes a repository whose workflow f (feature, in plan-review) has `events` events, of
// `decisions` are approvals; signed puts a key in .exarchos/allowed_signers at
// main and signs them with it.
func setup(dir, tmp string, events, decisions int, signed bool) {
	benchutil.Check(os.MkdirAll(dir, 0o755))
	benchutil.Run(dir, "", "git", "init", "-q", "-b", "main")
	benchutil.Run(dir, "", "git", "config", "user.name", "Bench")
	benchutil.Run(dir, "", "git", "config", "user.email", "bench@example.com")
	if signed {
		key := filepath.Join(tmp, "key")
		if _, err := os.Stat(key); err != nil {
			benchutil.Run("", "", "ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "bench", "-f", key)
		}
		pub, err := os.ReadFile(key + ".pub")
		benchutil.Check(err)
		f := strings.Fields(string(pub))
		os.MkdirAll(filepath.Join(dir, ".exarchos"), 0o755)
		os.WriteFile(filepath.Join(dir, trust.AllowedSignersPath), []byte("bench@example.com "+f[0]+" "+f[1]+"\n"), 0o644)
		benchutil.Run(dir, "", "git", "config", "gpg.format", "ssh")
		benchutil.Run(dir, "", "git", "config", "user.signingKey", key)
	}
	benchutil.Run(dir, "", "git", "add", ".")
	benchutil.Run(dir, "", "git", "commit", "-q", "--allow-empty", "-m", "init")
	// The work is on a branch of its own; its design and plan are new files there (what the
	// planning guards read), main holds the rules.
	benchutil.WorkBranch(dir, "feat", map[string]string{"docs/design.md": "d\n", "docs/plan.md": "p\n"})
	r, err := app.Open(dir)
	benchutil.Check(err)
	r.Environ = agentenv.Strip(os.Environ()) // the bench plays the human who approves, even when an agent runs it
	_, err = app.Init(r, app.InitOptions{Feature: "f", Type: "feature", Branch: "feat"})
	benchutil.Check(err)
	_, err = app.Set(r, app.SetOptions{Feature: "f", Assignments: []string{"artifacts.design=docs/design.md", "artifacts.plan=docs/plan.md"}})
	benchutil.Check(err)
	for _, p := range []string{"plan", "plan-review"} {
		_, err = app.Run(r, "f", workflow.TransitionTo{Phase: p})
		benchutil.Check(err)
	}
	for i := 0; i < decisions; i++ {
		_, err = app.Run(r, "f", workflow.Approve{Note: fmt.Sprint("round ", i)})
		benchutil.Check(err)
	}
	st, _, err := r.State("f")
	benchutil.Check(err)
	for done := int(st.Events); done < events; {
		batch := make([]workflow.NewEvent, 0, 500)
		for ; done < events && len(batch) < 500; done++ {
			batch = append(batch, workflow.NewEvent{Type: "bench.note", Data: map[string]int{"i": done}})
		}
		_, err := r.Append("f", batch...)
		benchutil.Check(err)
	}
	// Warm the verdict cache as any first read would.
	_, err = app.ShowStatus(r, app.StatusOptions{Feature: "f"})
	benchutil.Check(err)
}
