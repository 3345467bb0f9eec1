package workflow_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/exarchos/git-exarchos/internal/gittest"
	"github.com/exarchos/git-exarchos/workflow"
)

// The hand-written branch rule agrees with git's own, name by name, including the shapes an
// adversary tries (an option, HEAD, a reflog selector, a lock file).
func TestBranchProblemAgreesWithGit(t *testing.T) {
	names := []string{
		"main", "feature/login", "a-b_c.d", "v1.2", "ünïcode", "a@b", "x+y", "a{b}",
		"", "-", "--orphan", "-b", "HEAD", "@", "a..b", "..", ".hidden", "a/.b", "a.lock", "a/b.lock/c",
		"a//b", "/a", "a/", "a.", "a b", "a\tb", "a~1", "a^", "a:b", "a?", "a*", "a[b", `a\b`, "a@{1}", "@{-1}",
		"a\x7fb", strings.Repeat("b", 256),
	}
	dir := t.TempDir()
	for _, name := range names {
		_, err := gittest.Run(dir, "", "check-ref-format", "--branch", name)
		gitOK := err == nil && !strings.HasPrefix(name, "-")
		why := workflow.BranchProblem(name)
		switch name {
		case strings.Repeat("b", 256):
			gitOK = false // git accepts it; the file system may not, so the rule bounds it
		case "@":
			gitOK = false // --branch reads it as HEAD's shorthand; as a ref name git refuses it
		}
		assert.Equal(t, gitOK, why == "", "%q: git accepts=%v, rule says %q", name, gitOK, why)
	}
}

func TestEventTypeProblem(t *testing.T) {
	for _, ok := range []string{"note.added", "ci.run", "hook.session-ended", "team.v2_sync", "x", "a.1b"} {
		assert.Empty(t, workflow.EventTypeProblem(ok), ok)
	}
	for _, bad := range []string{"", "--x", "-x", "1note", "note..added", ".note", "note.", "note added", "note/added", "nöte", strings.Repeat("a", 101)} {
		assert.NotEmpty(t, workflow.EventTypeProblem(bad), bad)
	}
}

func TestValidTaskID(t *testing.T) {
	for _, ok := range []string{"t1", "T1", "api-login", "a.b_c", strings.Repeat("t", 64)} {
		assert.True(t, workflow.ValidTaskID(ok), ok)
	}
	for _, bad := range []string{"", "-t", "--x", ".t", "t..2", "t.", "t.lock", "t/2", "t 2", strings.Repeat("t", 65)} {
		assert.False(t, workflow.ValidTaskID(bad), bad)
	}
}

func TestClipKeepsCharacters(t *testing.T) {
	assert.Equal(t, "short", workflow.Clip("short"))
	long := strings.Repeat("a", 63) + "éééé"
	got := workflow.Clip(long)
	assert.True(t, strings.HasSuffix(got, "…"))
	assert.Equal(t, strings.Repeat("a", 63)+"…", got) // é would straddle byte 64: cut before it
}

// A definition cannot name a review dimension pass or fail: `review <feature> pass` would read as a
// dimension and a verdict, or the other way round.
func TestDefinitionRefusesVerdictAsDimension(t *testing.T) {
	base, ok := workflow.Builtin("feature")
	assert.True(t, ok)
	assert.NoError(t, base.Validate())
	for _, dim := range []string{"pass", "fail"} {
		def := *base
		def.Reviews = append([]string{"spec"}, dim)
		err := def.Validate()
		if assert.Error(t, err, dim) {
			assert.Contains(t, err.Error(), `review dimension "`+dim+`" is a verdict's name`)
		}
	}
}
