package hookrun

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/exarchos/git-exarchos/internal/gittest"
	"github.com/exarchos/git-exarchos/workflow"
)

// BenchmarkHookIndexOneRefMoved is the branch index read after one loose workflow ref moved among
// 1,000 (as a session's first call finds it after the previous session's binding): the refs'
// stamp differs, so the index is checked against the refs again.
func BenchmarkHookIndexOneRefMoved(b *testing.B) {
	dir := b.TempDir()
	run := func(stdin string, args ...string) { gittest.Git(b, dir, stdin, args...) }
	run("", "init", "-q", "-b", "main")
	run("", "config", "user.name", "B")
	run("", "config", "user.email", "b@example.com")
	run("", "commit", "-q", "--allow-empty", "-m", "initial")
	r, err := Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	createWorkflow(b, r, workflow.Init{Feature: "moved", Type: "feature", Branch: "moved"})
	var refs strings.Builder
	for i := range 999 {
		fmt.Fprintf(&refs, "create refs/exarchos/other-%d refs/exarchos/moved\n", i)
	}
	run(refs.String(), "update-ref", "--stdin")
	refsDir := filepath.Join(dir, ".git", "refs", "exarchos")
	entries, _ := os.ReadDir(refsDir)
	past := time.Now().Add(-time.Hour)
	for _, e := range entries {
		_ = os.Chtimes(filepath.Join(refsDir, e.Name()), past, past)
	}
	moved := filepath.Join(refsDir, "moved")
	content, err := os.ReadFile(moved)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := range b.N {
		b.StopTimer()
		// The ref moves by a rename (a new inode), as git's lock protocol moves it; the directory's
		// time is set back so that the refs' stamp is old and differs from the last one.
		tmp := moved + ".lock"
		if err := os.WriteFile(tmp, content, 0o644); err != nil {
			b.Fatal(err)
		}
		_ = os.Chtimes(tmp, past, past)
		if err := os.Rename(tmp, moved); err != nil {
			b.Fatal(err)
		}
		t := past.Add(time.Duration(i+1) * time.Second)
		_ = os.Chtimes(refsDir, t, t)
		r, err := Open(dir)
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		index, err := r.branchIndex()
		if err != nil {
			b.Fatal(err)
		}
		if entries, _ := index.entries(); len(entries) != 1000 {
			b.Fatalf("index of %d", len(entries))
		}
	}
}
