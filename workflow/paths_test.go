package workflow_test

import (
	"testing"

	"github.com/exarchos/git-exarchos/workflow"
)

func TestPathPatterns(t *testing.T) {
	for _, c := range []struct {
		pats []string
		p    string
		want bool
	}{
		{[]string{"docs/**"}, "docs/design.md", true},
		{[]string{"docs/**"}, "docs/a/b/c.txt", true},
		{[]string{"docs/**"}, "src/docs/x.md", false},
		{[]string{"*.md"}, "README.md", true},
		{[]string{"*.md"}, "a/b/NOTES.md", true},
		{[]string{"*.md"}, "main.go", false},
		{[]string{"docs/*.md"}, "docs/a/b.md", false},
		{[]string{"docs/**/*.md"}, "docs/b.md", true},
		// A source file only through a pattern naming its extension.
		{[]string{"docs/**"}, "docs/main.go", false},
		{[]string{"*.md", "scripts/*.sh"}, "scripts/run.sh", true},
		{[]string{"**"}, "cmd/x.py", false},
	} {
		if got := workflow.PathAllowed(c.pats, c.p); got != c.want {
			t.Errorf("PathAllowed(%v, %s) = %v, want %v", c.pats, c.p, got, c.want)
		}
	}
}
