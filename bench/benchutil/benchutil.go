// Package benchutil holds what the whole-process benchmark programs under bench/ share: running a
// command, failing loudly, and summarising timings.
//
// It may import the standard library only.
package benchutil

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// Percentile returns the p-th percentile (0 ≤ p < 1) of d, without reordering d.
func Percentile(d []time.Duration, p float64) time.Duration {
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[int(float64(len(s))*p)]
}

// Ms renders a duration in milliseconds.
func Ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// Run runs a command in dir with stdin and returns its output; a failure ends the program.
func Run(dir, stdin string, args ...string) string {
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.CombinedOutput()
	if err != nil {
		Fail(fmt.Sprintf("%s: %v: %s", strings.Join(args, " "), err, out))
	}
	return string(out)
}

// Time runs a command in dir with stdin once and returns how long it took; a failure ends the
// program.
func Time(dir, stdin string, args ...string) time.Duration {
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(stdin)
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	t0 := time.Now()
	err := cmd.Run()
	d := time.Since(t0)
	if err != nil {
		Fail(fmt.Sprintf("%s: %v: %s", strings.Join(args, " "), err, out.String()))
	}
	return d
}

// Check ends the program on an error.
func Check(err error) {
	if err != nil {
		Fail(err.Error())
	}
}

// Fail prints msg, prefixed with the program's name, and exits 1.
func Fail(msg string) {
	fmt.Fprintf(os.Stderr, "%s: %s\n", filepath.Base(os.Args[0]), msg)
	os.Exit(1)
}

// RequireOnPath ends the program, saying how to build it, when git-exarchos is not on PATH, and
// puts a fresh copy of it first on PATH (FreshCopy). It returns the copy's directory, to remove.
func RequireOnPath(program string) string {
	p, err := exec.LookPath("git-exarchos")
	if err != nil {
		Fail("git-exarchos is not on PATH: CGO_ENABLED=0 go build -o /tmp/gx/git-exarchos ./cmd/git-exarchos && PATH=/tmp/gx:$PATH go run ./bench/" + program)
	}
	dir := FreshCopy(p)
	Check(os.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH")))
	return dir
}

// FreshCopy copies the binary at path into a new temporary directory, under the same name, and
// returns the directory. How a binary's file came into the page cache changes its start-up: the
// same git-exarchos started in 5.2 ms copied a moment before and in 6.5 ms from a file written an
// hour earlier (its pages read back since). Timing copies made together compares the code.
func FreshCopy(path string) string {
	b, err := os.ReadFile(path)
	Check(err)
	dir, err := os.MkdirTemp("", "exarchos-bench-bin")
	Check(err)
	Check(os.WriteFile(filepath.Join(dir, filepath.Base(path)), b, 0o755))
	return dir
}

// Row is one line of a results table: Key names it for later rows' Baseline, Label is what is
// printed.
type Row struct {
	Key, Label, Baseline, Target string
	Durations                    []time.Duration
}

// PrintTable prints rows as a markdown table of median, p90 and the ratio of each median to the
// median of an earlier row named by Baseline (the baseline is timed in the same run).
func PrintTable(rows []Row) {
	fmt.Println("| command | median | p90 | ratio to baseline | target |")
	fmt.Println("|---|---|---|---|---|")
	med := map[string]time.Duration{}
	for _, r := range rows {
		m, p90 := Percentile(r.Durations, 0.5), Percentile(r.Durations, 0.9)
		med[r.Key] = m
		ratio := ""
		if b, ok := med[r.Baseline]; ok && b > 0 {
			ratio = fmt.Sprintf("%.2fx %s", float64(m)/float64(b), r.Baseline)
		}
		fmt.Printf("| %s | %.2f ms | %.2f ms | %s | %s |\n", r.Label, Ms(m), Ms(p90), ratio, r.Target)
	}
}

// WorkBranch switches the repository in dir to a new branch and commits files (path → content)
// on it: the planning guards read artifacts as new work on a branch of its own, apart from the
// base branch that holds the rules.
func WorkBranch(dir, branch string, files map[string]string) {
	Run(dir, "", "git", "switch", "-q", "-c", branch)
	for p, content := range files {
		Check(os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755))
		Check(os.WriteFile(filepath.Join(dir, p), []byte(content), 0o644))
		Run(dir, "", "git", "add", p)
	}
	Run(dir, "", "git", "commit", "-q", "-m", "work on "+branch)
}
