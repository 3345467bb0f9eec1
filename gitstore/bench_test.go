package gitstore

import (
	"fmt"
	"os/exec"
	"sort"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/exarchos/git-exarchos/gitrepo"
	"github.com/exarchos/git-exarchos/internal/gittest"
	"github.com/exarchos/git-exarchos/workflow"
)

// seeded makes a repository whose workflow "w" holds n events.
func seeded(b *testing.B, n int) (string, *Store) {
	b.Helper()
	dir := gittest.NewRepo(b, "sha1")
	s := openStore(b, dir)
	mustCreate(b, s, "w")
	appendN(b, s, "w", n-1)
	return dir, s
}

// reportPercentiles adds p50 and p95 of the per-op durations to the benchmark output.
func reportPercentiles(b *testing.B, d []time.Duration) {
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	b.ReportMetric(float64(d[len(d)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(d[len(d)*95/100].Microseconds())/1000, "p95-ms")
}

// BenchmarkAppend shows that an append costs the same at 10 or 10,000 events: it rewrites only the
// last segment, one id bucket and the snapshot.
func BenchmarkAppend(b *testing.B) {
	for _, n := range []int{10, 1000, 10000} {
		b.Run(fmt.Sprintf("events=%d", n), func(b *testing.B) {
			_, s := seeded(b, n)
			d := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				t0 := time.Now()
				if _, err := s.Append("w", proj, workflow.NewEvent{Type: "note", Data: map[string]int{"i": i}}); err != nil {
					b.Fatal(err)
				}
				d = append(d, time.Since(t0))
			}
			reportPercentiles(b, d)
		})
	}
}

// BenchmarkState reads the snapshot of a 10,000-event workflow (a fresh store each time, as a
// CLI process would).
func BenchmarkState(b *testing.B) {
	dir, _ := seeded(b, 10000)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s := openStore(b, dir)
		if _, err := s.State("w", proj); err != nil {
			b.Fatal(err)
		}
	}
}

// listRepo makes 1,000 workflows, each its own commit, with one git transaction.
func listRepo(b *testing.B) string {
	dir := gittest.NewRepo(b, "sha1")
	s := openStore(b, dir)
	mustCreate(b, s, "w0")
	head, _, err := gitrepo.ReadRef(s.loc.CommonDir, "refs/exarchos/w0")
	require.NoError(b, err)
	tree := gittest.Git(b, dir, "", "rev-parse", head.String()+"^{tree}")
	var stdin []byte
	for i := 1; i < 1000; i++ {
		c := gittest.Git(b, dir, fmt.Sprintf("w%d: workflow.started\n\nExarchos-Phase: ideate\nExarchos-Type: feature\nExarchos-Branch: b%d\nExarchos-Events: 1\n", i, i), "commit-tree", tree)
		stdin = fmt.Appendf(stdin, "create refs/exarchos/w%d %s\n", i, c)
	}
	gittest.Git(b, dir, string(stdin), "update-ref", "--stdin")
	return dir
}

// BenchmarkList lists 1,000 workflows as the list command does (rows cached by commit), from commit trailers alone, with loose objects and after
// `git gc` (commits stored as deltas of one another in one pack), beside git reading the same
// 1,000 commits' trailers as a process in the same repository.
func BenchmarkList(b *testing.B) {
	dir := listRepo(b)
	for _, gc := range []bool{false, true} {
		name := "loose"
		if gc {
			name = "gc"
			gittest.Git(b, dir, "", "gc", "-q", "--prune=now")
		}
		b.Run(name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				s := openStore(b, dir)
				list, err := s.ListCached() // what `git exarchos list` reads
				if err != nil || len(list) != 1000 {
					b.Fatal(err, len(list))
				}
				s.Close()
			}
		})
		b.Run(name+"/baseline-git-for-each-ref", func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				cmd := exec.Command("git", "for-each-ref", "--format=%(refname) %(objectname) %(contents:trailers)", "refs/exarchos/")
				cmd.Dir = dir
				if out, err := cmd.Output(); err != nil || len(out) == 0 {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkBaselineReadRef is the floor for comparison: resolving the ref alone.
func BenchmarkBaselineReadRef(b *testing.B) {
	dir, s := seeded(b, 10)
	_ = dir
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, _, err := gitrepo.ReadRef(s.loc.CommonDir, "refs/exarchos/w"); err != nil {
			b.Fatal(err)
		}
	}
	_ = gitrepo.ZeroHash
}

// BenchmarkAppendBaselineGitUpdateRef is git moving one ref (a process, like every git command an
// agent's tooling would run instead): the floor an append is compared with.
func BenchmarkAppendBaselineGitUpdateRef(b *testing.B) {
	dir, _ := seeded(b, 10)
	head := gittest.Git(b, dir, "", "rev-parse", "HEAD")
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		cmd := exec.Command("git", "update-ref", "refs/bench/x", head)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatal(err, string(out))
		}
	}
}
