// Command clibench times whole git exarchos invocations against git baselines measured in the same
// run, and prints a markdown table of medians and ratios for BENCHMARKS.md. Timings on shared
// machines are noisy; ratios against git run alongside are what to compare.
//
//	CGO_ENABLED=0 go build -o /tmp/gx/git-exarchos ./cmd/git-exarchos
//	PATH=/tmp/gx:$PATH go run ./bench/clibench [-n 200] [-events 10000] [-workflows 1000] [-gc] [-case status] [-settle 75s] [-keep DIR]
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

	"github.com/exarchos/git-exarchos/bench/benchutil"

	"github.com/exarchos/git-exarchos/app"
	"github.com/exarchos/git-exarchos/workflow"
)

// benchCase is one timed command. Args[0] is the program; {f} is replaced by the feature and {i}
// by the iteration number.
type benchCase struct {
	Name     string
	Args     []string
	Stdin    string
	Baseline string // name of the baseline case this one is compared with
	Target   string // what the issue asks for, quoted in the table
	PathDir  string // put first on PATH for this case (another git-exarchos binary)
}

func cases() []benchCase {
	return []benchCase{
		{Name: "git rev-parse HEAD", Args: []string{"git", "rev-parse", "HEAD"}},
		{Name: "git cat-file state.json", Args: []string{"git", "cat-file", "-p", "refs/exarchos/{f}:state.json"}},
		{Name: "log --limit 1 --json", Args: []string{"git", "exarchos", "log", "{f}", "--limit", "1", "--json"}, Baseline: "git cat-file state.json", Target: "≤ 3x git cat-file"},
		{Name: "git-exarchos log --limit 1 --json (direct)", Args: []string{"git-exarchos", "log", "{f}", "--limit", "1", "--json"}, Baseline: "git cat-file state.json", Target: "git's share of the above"},
		{Name: "status --json", Args: []string{"git", "exarchos", "status", "{f}", "--json"}, Baseline: "git cat-file state.json", Target: "≤ 10 ms"},
		{Name: "transition (ideate → plan)", Args: []string{"git", "exarchos", "transition", "{f}-{i}", "plan"}, Baseline: "git cat-file state.json", Target: "≤ 15 ms"},
		{Name: "event (append one)", Args: []string{"git", "exarchos", "event", "{f}", "bench.tick"}, Baseline: "git rev-parse HEAD"},
		{Name: "git for-each-ref (list's data)", Args: []string{"git", "for-each-ref", "--format=%(refname) %(objectname) %(committerdate:iso-strict) %(contents:trailers)", "refs/exarchos/"}},
		{Name: "list --json (1 + n workflows)", Args: []string{"git", "exarchos", "list", "--json"}, Baseline: "git for-each-ref (list's data)", Target: "≤ 20 ms and ≤ 1x git for-each-ref"},
	}
}

func main() {
	n := flag.Int("n", 200, "runs per case")
	events := flag.Int("events", 10000, "events in the benchmarked workflow")
	only := flag.String("case", "", "run only cases whose name contains this")
	workflows := flag.Int("workflows", 0, "workflows besides the benchmarked one (default: -n, one per transition run)")
	gc := flag.Bool("gc", false, "run `git gc` after setup, so every object is read from a pack")
	keep := flag.String("keep", "", "set up the repository in this directory, keep it, and time nothing (for profiling by hand)")
	settle := flag.Duration("settle", 75*time.Second, "after setup, sync and wait this long before timing (see below)")
	other := flag.String("compare", "", "directory holding another git-exarchos binary (e.g. built from main) to time beside the one on PATH, case by case")
	flag.Parse()
	defer os.RemoveAll(benchutil.RequireOnPath("clibench"))
	dir := *keep
	if dir == "" {
		d, err := os.MkdirTemp("", "clibench")
		benchutil.Check(err)
		defer os.RemoveAll(d)
		dir = d
	} else {
		benchutil.Check(os.MkdirAll(dir, 0o755))
	}
	setup(dir, *events, max(*n, *workflows))
	if *gc {
		benchutil.Run(dir, "", "git", "gc", "-q", "--prune=now")
	}
	if *keep != "" {
		fmt.Printf("repository kept in %s (workflow bench, %d events)\n", dir, *events)
		return
	}
	// The setup creates and deletes tens of thousands of files in seconds (and -gc deletes the
	// loose objects and a thousand loose refs). Timed at once, an append (seven new files) pays for
	// that: dirty pages being written back, and on ext4 without a journal, as on this machine, an
	// inode allocator that reads and steps over every inode of the directory's group freed in the
	// last 60 s (recently_deleted in fs/ext4/ialloc.c; 300 s more while the inode table block is
	// dirty, hence the sync). Measured: an append took 12.8 ms right after setup, 8.4 ms after a
	// sync, 6.7 ms 40 s later; after gc, with 45 s of settling, the ref lock's creation in
	// refs/exarchos (where gc had just deleted the loose refs) was a third of an append's samples.
	benchutil.Run(dir, "", "sync")
	time.Sleep(*settle)

	// Copy the binary timed (and the -compare one) again now, together: how old a binary's copy
	// is changes its start-up by up to a millisecond (FreshCopy), and the first copy is as old as
	// the setup and the settling.
	defer os.RemoveAll(benchutil.RequireOnPath("clibench"))
	otherDir := ""
	if *other != "" {
		otherDir = benchutil.FreshCopy(filepath.Join(*other, "git-exarchos"))
		defer os.RemoveAll(otherDir)
	}
	var selected []benchCase
	for _, c := range cases() {
		if *only == "" || strings.Contains(c.Name, *only) || c.Baseline == "" {
			selected = append(selected, c)
			if *other != "" && len(c.Args) > 1 && c.Args[0] == "git" && c.Args[1] == "exarchos" && !strings.Contains(c.Name, "transition") {
				twin := c
				twin.Name, twin.PathDir, twin.Target = c.Name+" ["+*other+"]", otherDir, ""
				selected = append(selected, twin)
			}
		}
	}
	// Interleave: run i of every case before run i+1 of any, so drift on a shared machine hits all
	// cases alike and the ratios stay fair. A case and its -compare twin swap places every other
	// run: the first list after the writes of a run pays for updating the list cache.
	durations := make([][]time.Duration, len(selected))
	for i := 0; i < *n; i++ {
		for j := 0; j < len(selected); j++ {
			if i%2 == 1 && j+1 < len(selected) && selected[j+1].PathDir != "" {
				durations[j+1] = append(durations[j+1], timeOnce(dir, selected[j+1], i))
				durations[j] = append(durations[j], timeOnce(dir, selected[j], i))
				j++
				continue
			}
			durations[j] = append(durations[j], timeOnce(dir, selected[j], i))
		}
	}
	packed := "objects loose"
	if *gc {
		packed = "after git gc"
	}
	fmt.Printf("%d interleaved runs per case; workflow with %d events; %d other workflows; %s; settled %s after setup; %s\n\n", *n, *events, max(*n, *workflows), packed, *settle, time.Now().UTC().Format("2006-01-02"))
	rows := make([]benchutil.Row, len(selected))
	for j, c := range selected {
		label := strings.Join(c.Args, " ")
		if c.PathDir != "" {
			label += "` (" + *other + ")`"
		}
		rows[j] = benchutil.Row{Key: c.Name, Label: "`" + label + "`", Baseline: c.Baseline, Target: c.Target, Durations: durations[j]}
	}
	benchutil.PrintTable(rows)
}

// setup makes a repository with workflow "bench" of `events` events, and n copies "bench-<i>" in
// ideate with a design recorded, for the transition case (each run transitions its own copy). Each
// copy gets one event of its own, so list reads n distinct commits as in a real repository.
func setup(dir string, events, n int) {
	benchutil.Run(dir, "", "git", "init", "-q", "-b", "main")
	benchutil.Run(dir, "", "git", "config", "user.name", "Bench")
	benchutil.Run(dir, "", "git", "config", "user.email", "bench@example.com")
	benchutil.Run(dir, "", "git", "commit", "-q", "--allow-empty", "-m", "init")
	// The work happens on a branch of its own, whose design is a committed file: what the guards
	// of ideate → plan read (the artifact is new on the branch, nothing else changed).
	benchutil.WorkBranch(dir, "feat", map[string]string{"docs/design.md": "# design\n"})
	r, err := app.Open(dir)
	benchutil.Check(err)
	_, err = app.Init(r, app.InitOptions{Feature: "bench", Type: "feature", Branch: "feat"})
	benchutil.Check(err)
	_, err = app.Set(r, app.SetOptions{Feature: "bench", Assignments: []string{"artifacts.design=docs/design.md"}})
	benchutil.Check(err)
	for done := 2; done < events; {
		batch := make([]workflow.NewEvent, 0, 500)
		for ; done < events && len(batch) < 500; done++ {
			batch = append(batch, workflow.NewEvent{Type: "bench.note", Data: map[string]int{"i": done}})
		}
		_, err := r.Append("bench", batch...)
		benchutil.Check(err)
	}
	head := strings.TrimSpace(benchutil.Run(dir, "", "git", "rev-parse", "refs/exarchos/bench"))
	var tx strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&tx, "create refs/exarchos/bench-%d %s\n", i, head)
	}
	benchutil.Run(dir, tx.String(), "git", "update-ref", "--stdin")
	for i := 0; i < n; i++ {
		_, err := r.Append(fmt.Sprintf("bench-%d", i), workflow.NewEvent{Type: "bench.copy", Data: map[string]int{"i": i}})
		benchutil.Check(err)
	}
}

func timeOnce(dir string, c benchCase, i int) time.Duration {
	args := make([]string, len(c.Args))
	for j, a := range c.Args {
		args[j] = strings.NewReplacer("{f}", "bench", "{i}", fmt.Sprint(i)).Replace(a)
	}
	if c.PathDir != "" { // another binary first on PATH, for -compare
		defer os.Setenv("PATH", os.Getenv("PATH"))
		os.Setenv("PATH", c.PathDir+string(os.PathListSeparator)+os.Getenv("PATH"))
	}
	return benchutil.Time(dir, c.Stdin, args...)
}
