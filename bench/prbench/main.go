// Command prbench times whole `git exarchos pr refresh` invocations against an in-process fake
// GitHub (ghclient/fakegithub), next to `git rev-parse HEAD` measured in the same run, and counts
// the API requests each refresh makes. It prints a markdown table for BENCHMARKS.md.
//
//	CGO_ENABLED=0 go build -o /tmp/gx/git-exarchos ./cmd/git-exarchos
//	PATH=/tmp/gx:$PATH go run ./bench/prbench [-n 100]
//
// Like every program under bench/, it may import app, the packages below it, bench/benchutil and
// ghclient/fakegithub; nothing imports it.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/exarchos/git-exarchos/bench/benchutil"

	"github.com/exarchos/git-exarchos/ghclient/fakegithub"
)

const token = "ghp_benchToken0000000000000000000"

func main() {
	n := flag.Int("n", 100, "runs per case")
	flag.Parse()
	defer os.RemoveAll(benchutil.RequireOnPath("prbench"))
	dir, err := os.MkdirTemp("", "prbench")
	benchutil.Check(err)
	defer os.RemoveAll(dir)
	fake := fakegithub.New("github.com", "acme", "app", token)
	defer fake.Close()
	env := append(os.Environ(), "GITHUB_API_URL="+fake.URL, "GH_TOKEN="+token, "GIT_AUTHOR_NAME=Bench", "GIT_AUTHOR_EMAIL=bench@example.com",
		"GIT_COMMITTER_NAME=Bench", "GIT_COMMITTER_EMAIL=bench@example.com")
	run := func(args ...string) string {
		cmd := exec.Command(args[0], args[1:]...)
		cmd.Dir, cmd.Env = dir, env
		out, err := cmd.CombinedOutput()
		if err != nil {
			benchutil.Fail(fmt.Sprintf("%s: %v\n%s", strings.Join(args, " "), err, out))
		}
		return strings.TrimSpace(string(out))
	}
	run("git", "init", "-q", "-b", "login", ".")
	run("git", "remote", "add", "origin", "https://github.com/acme/app.git")
	run("git", "commit", "-q", "--allow-empty", "-m", "work")
	sha := run("git", "rev-parse", "HEAD")
	fake.SetPR(fakegithub.PR{Number: 12, Head: "login", Base: "main", HeadSHA: sha})
	fake.AddCheckRun(sha, fakegithub.CheckRun{Name: "build", Status: "completed", Conclusion: "success"})
	fake.AddStatus(sha, fakegithub.Status{Context: "jenkins", State: "success"})
	run("git", "exarchos", "init", "login", "--type", "feature")
	run("git", "exarchos", "pr", "link", "login", "12")

	fake.ResetRequests()
	run("git", "exarchos", "pr", "refresh", "login")
	_, first := fake.Requests()

	time1 := func(args ...string) time.Duration {
		start := time.Now()
		run(args...)
		return time.Since(start)
	}
	var base, refresh []time.Duration
	fake.ResetRequests()
	for i := 0; i < *n; i++ { // interleaved, so both see the same machine load
		base = append(base, time1("git", "rev-parse", "HEAD"))
		refresh = append(refresh, time1("git", "exarchos", "pr", "refresh", "login"))
	}
	by, total := fake.Requests()
	events := run("git", "exarchos", "log", "login", "--type", "pr.observed", "--json")
	fmt.Printf("%d runs per case, %s, fake GitHub in process (%s)\n\n", *n, time.Now().UTC().Format("2006-01-02"), filepath.Base(os.Args[0]))
	fmt.Println("| command | median | p90 | ratio to `git rev-parse HEAD` | API requests per call |")
	fmt.Println("|---|---|---|---|---|")
	fmt.Printf("| git rev-parse HEAD | %s | %s | 1.0x | – |\n", benchutil.Percentile(base, 0.50), benchutil.Percentile(base, 0.90))
	fmt.Printf("| pr refresh (nothing changed) | %s | %s | %.1fx | %.1f (%v) |\n", benchutil.Percentile(refresh, 0.50), benchutil.Percentile(refresh, 0.90),
		float64(benchutil.Percentile(refresh, 0.50))/float64(benchutil.Percentile(base, 0.50)), float64(total)/float64(*n), by)
	fmt.Printf("\nfirst refresh of the open pull request (records the observation): %d requests\n", first)
	fmt.Printf("pr.observed events after %d unchanged refreshes: %d\n", *n, strings.Count(events, `"type":"pr.observed"`))
}
