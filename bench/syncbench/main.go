// Command syncbench times a whole `git exarchos sync` of 100 workflows, 10 of which diverged
// (each side appended events since they last agreed), against a file:// remote, and a plain
// `git fetch` of the same refs into a fresh copy measured in the same run as the baseline. Every
// run starts from a fresh copy of the prepared repositories, made outside the timed region.
//
//	CGO_ENABLED=0 go build -o /tmp/gx/git-exarchos ./cmd/git-exarchos
//	PATH=/tmp/gx:$PATH go run ./bench/syncbench [-n 15] [-workflows 100] [-diverged 10]
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
	"github.com/exarchos/git-exarchos/engine"
	"github.com/exarchos/git-exarchos/teamsync"

	"github.com/exarchos/git-exarchos/app"
	"github.com/exarchos/git-exarchos/workflow"
)

func main() {
	n := flag.Int("n", 15, "timed runs of each command")
	workflows := flag.Int("workflows", 100, "workflows in the repository")
	diverged := flag.Int("diverged", 10, "workflows changed on both sides")
	flag.Parse()
	defer os.RemoveAll(benchutil.RequireOnPath("syncbench"))
	root, err := os.MkdirTemp("", "syncbench")
	benchutil.Check(err)
	defer os.RemoveAll(root)
	prepare(root, *workflows, *diverged)

	var syncs, fetches []time.Duration
	for i := 0; i < *n; i++ {
		run := filepath.Join(root, fmt.Sprintf("run%d", i))
		benchutil.Check(os.MkdirAll(run, 0o755))
		for _, d := range []string{"remote.git", "bob"} {
			benchutil.Run(root, "", "cp", "-a", d, filepath.Join(run, d))
		}
		// bob's origin must point at this run's copy of the remote.
		benchutil.Run(filepath.Join(run, "bob"), "", "git", "remote", "set-url", "origin", "file://"+filepath.Join(run, "remote.git"))
		benchutil.Run(root, "", "cp", "-a", filepath.Join(run, "bob"), filepath.Join(run, "bob-fetch"))
		fetches = append(fetches, timed(filepath.Join(run, "bob-fetch"), "git", "fetch", "-q", "--prune", "--no-tags", "origin", "+refs/exarchos/*:refs/exarchos-remotes/origin/*"))
		t0 := time.Now()
		out := benchutil.Run(filepath.Join(run, "bob"), "", "git", "exarchos", "sync", "--json")
		syncs = append(syncs, time.Since(t0))
		if want := fmt.Sprintf(`"merged":%d`, *diverged); !strings.Contains(out, want) {
			benchutil.Fail("sync did not merge the diverged workflows: " + out)
		}
		os.RemoveAll(run)
	}
	fm, sm := benchutil.Percentile(fetches, 0.5), benchutil.Percentile(syncs, 0.5)
	fmt.Printf("%d runs; %d workflows, %d diverged; file:// remote; %s\n\n", *n, *workflows, *diverged, time.Now().UTC().Format("2006-01-02"))
	fmt.Println("| command | median | p90 | ratio to baseline | target |")
	fmt.Println("|---|---|---|---|---|")
	fmt.Printf("| `git fetch origin +refs/exarchos/*:refs/exarchos-remotes/origin/*` (baseline) | %.1f ms | %.1f ms | | |\n", benchutil.Ms(fm), benchutil.Ms(benchutil.Percentile(fetches, 0.9)))
	fmt.Printf("| `git exarchos sync` | %.1f ms | %.1f ms | %.1fx git fetch | ≤ 2 s |\n", benchutil.Ms(sm), benchutil.Ms(benchutil.Percentile(syncs, 0.9)), float64(sm)/float64(fm))
}

// prepare makes a bare remote and two clones, alice and bob, sharing `workflows` workflows; then
// both append to the first `diverged` of them and alice pushes, so bob's sync must merge those
// (and push the merges) and finds the rest up to date.
func prepare(root string, workflows, diverged int) {
	remote := filepath.Join(root, "remote.git")
	benchutil.Run(root, "", "git", "init", "-q", "--bare", "-b", "main", remote)
	var repos []*app.Repo
	for _, name := range []string{"alice", "bob"} {
		dir := filepath.Join(root, name)
		benchutil.Run(root, "", "git", "clone", "-q", "file://"+remote, dir)
		benchutil.Run(dir, "", "git", "config", "user.name", name)
		benchutil.Run(dir, "", "git", "config", "user.email", name+"@example.com")
		benchutil.Run(dir, "", "git", "commit", "-q", "--allow-empty", "-m", "init")
		r, err := app.Open(dir)
		benchutil.Check(err)
		repos = append(repos, r)
	}
	alice, bob := repos[0], repos[1]
	for i := 0; i < workflows; i++ {
		f := fmt.Sprintf("wf-%03d", i)
		_, err := app.Init(alice, app.InitOptions{Feature: f, Type: "feature", Branch: f}) // a branch each: a second workflow on a branch is the user's decision
		benchutil.Check(err)
		note(alice, f, 20)
	}
	_, err := engine.Follow(alice.Engine, func() (*teamsync.PushResult, error) { return teamsync.Push(alice.Repo, teamsync.PushOptions{}) })
	benchutil.Check(err)
	_, err = engine.Follow(bob.Engine, func() (*teamsync.PullResult, error) { return teamsync.Pull(bob.Repo, teamsync.PullOptions{}) })
	benchutil.Check(err)
	for i := 0; i < diverged; i++ {
		f := fmt.Sprintf("wf-%03d", i)
		note(alice, f, 5)
		note(bob, f, 5)
	}
	_, err = engine.Follow(alice.Engine, func() (*teamsync.PushResult, error) { return teamsync.Push(alice.Repo, teamsync.PushOptions{}) })
	benchutil.Check(err)
}

func note(r *app.Repo, f string, n int) {
	for i := 0; i < n; i++ {
		_, err := r.Append(f, workflow.NewEvent{Type: "bench.note", Data: map[string]int{"i": i}})
		benchutil.Check(err)
	}
}

func timed(dir string, args ...string) time.Duration {
	t0 := time.Now()
	benchutil.Run(dir, "", args...)
	return time.Since(t0)
}
