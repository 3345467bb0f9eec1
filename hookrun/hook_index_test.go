package hookrun_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/exarchos/git-exarchos/internal/gittest"
	"github.com/exarchos/git-exarchos/workflow"
)

// settleRefs gives the refs directory a modification time in the past (a different one each call),
// as if the last ref write were long ago: the index's stamp is then taken, not read again because
// it is younger than a clock tick.
func settleRefs(t *testing.T, dir string, n int) {
	t.Helper()
	past := time.Date(2020, 1, 1+n, 0, 0, 0, 0, time.UTC)
	require.NoError(t, os.Chtimes(filepath.Join(dir, ".git", "refs", "exarchos"), past, past))
}

// TestHookIndexIsNeverTakenAsComplete (issue 28): a workflow ref that arrives by plain git (fetch,
// update-ref, a restore) binds the next session on its branch, and a lost index line does not
// unbind one; the index is taken only while the refs are as it recorded them.
func TestHookIndexIsNeverTakenAsComplete(t *testing.T) {
	dir, r := newRepo(t, "main")
	_, err := r.CreateWorkflow(workflow.Init{Feature: "login", Type: "feature", Branch: "login"})
	require.NoError(t, err)
	settleRefs(t, dir, 1)
	assert.Empty(t, boundPhases(t, dir), "main binds nothing; the index is written")
	index := filepath.Join(dir, ".git", "exarchos-cache", "hooks", "index")
	b, err := os.ReadFile(index)
	require.NoError(t, err)
	require.NotContains(t, strings.Split(string(b), "\n")[1], "-|", "a settled stamp is kept")

	// A teammate's workflow fetched by plain git straight into refs/exarchos/.
	other, ro := newRepo(t, "main")
	_, err = ro.CreateWorkflow(workflow.Init{Feature: "signup", Type: "feature", Branch: "signup"})
	require.NoError(t, err)
	gittest.Git(t, dir, "", "fetch", "-q", other, "refs/exarchos/*:refs/exarchos/*")
	settleRefs(t, dir, 2)
	gittest.Git(t, dir, "", "switch", "-q", "-c", "signup")
	assert.Equal(t, map[string]string{"signup": "ideate"}, boundPhases(t, dir))

	// Deleted, then restored with update-ref (as the README's fix for two clones does).
	saved := gittest.Git(t, dir, "", "rev-parse", "refs/exarchos/signup")
	gittest.Git(t, dir, "", "update-ref", "-d", "refs/exarchos/signup")
	settleRefs(t, dir, 3)
	assert.Empty(t, boundPhases(t, dir))
	gittest.Git(t, dir, "", "update-ref", "refs/exarchos/signup", saved)
	settleRefs(t, dir, 4)
	assert.Equal(t, map[string]string{"signup": "ideate"}, boundPhases(t, dir))

	// Only in packed-refs (a restore by pack-refs, or a clone): the stamp of packed-refs tells.
	gittest.Git(t, dir, "", "update-ref", "-d", "refs/exarchos/signup")
	settleRefs(t, dir, 5)
	assert.Empty(t, boundPhases(t, dir))
	packed := filepath.Join(dir, ".git", "packed-refs")
	pb, _ := os.ReadFile(packed)
	require.NoError(t, os.WriteFile(packed, append(pb, []byte(saved+" refs/exarchos/signup\n")...), 0o644))
	assert.Equal(t, map[string]string{"signup": "ideate"}, boundPhases(t, dir))

	// A lost line: the index no longer matches its sum, and is read again from the refs.
	settleRefs(t, dir, 6)
	assert.Equal(t, map[string]string{"signup": "ideate"}, boundPhases(t, dir))
	// signup is packed: its line is in the base (index-base), the loose refs' in the head (index).
	for _, file := range []string{index + "-base", index} {
		settleRefs(t, dir, 7)
		assert.Equal(t, map[string]string{"signup": "ideate"}, boundPhases(t, dir))
		b, err = os.ReadFile(file)
		require.NoError(t, err)
		var kept []string
		for _, line := range strings.Split(string(b), "\n") {
			if !strings.HasPrefix(line, "signup ") && !strings.HasPrefix(line, "login ") {
				kept = append(kept, line)
			}
		}
		require.Less(t, len(kept), len(strings.Split(string(b), "\n")), "%s holds a line to lose", file)
		require.NoError(t, os.WriteFile(file, []byte(strings.Join(kept, "\n")), 0o644))
		assert.Equal(t, map[string]string{"signup": "ideate"}, boundPhases(t, dir), "a line lost from %s", file)
	}
	// An empty index file is no index.
	require.NoError(t, os.WriteFile(index, nil, 0o644))
	assert.Equal(t, map[string]string{"signup": "ideate"}, boundPhases(t, dir))
}

// TestHookIndexRereadsMovedRefsOnly (issue 28): the index keeps each loose ref's stamp and reads
// again only the files whose stamp moved, yet a ref rewritten in place (same inode, same size) is
// caught: by its modification time once settled, and within one clock tick because a stamp read
// while younger than a tick is never kept. A damaged stamp in a line is a damaged index.
func TestHookIndexRereadsMovedRefsOnly(t *testing.T) {
	dir, r := newRepo(t, "main")
	for _, f := range []string{"login", "signup"} {
		_, err := r.CreateWorkflow(workflow.Init{Feature: f, Type: "feature", Branch: f})
		require.NoError(t, err)
	}
	refs := filepath.Join(dir, ".git", "refs", "exarchos")
	settleFile := func(name string, n int) time.Time {
		past := time.Date(2021, 1, 1, 0, 0, n, 0, time.UTC)
		require.NoError(t, os.Chtimes(filepath.Join(refs, name), past, past))
		return past
	}
	settleFile("login", 1)
	settleFile("signup", 1)
	settleRefs(t, dir, 1)
	gittest.Git(t, dir, "", "switch", "-q", "-c", "signup")
	assert.Equal(t, map[string]string{"signup": "ideate"}, boundPhases(t, dir))
	index := filepath.Join(dir, ".git", "exarchos-cache", "hooks", "index")
	line := func(f string) []string {
		b, err := os.ReadFile(index)
		require.NoError(t, err)
		for _, l := range strings.Split(string(b), "\n") {
			if fields := strings.Fields(l); len(fields) == 5 && fields[0] == f {
				return fields
			}
		}
		t.Fatalf("no line for %s in %q", f, b)
		return nil
	}
	require.NotEqual(t, "-", line("signup")[3], "a settled ref's stamp is kept")

	loginCommit := gittest.Git(t, dir, "", "rev-parse", "refs/exarchos/login")
	signupCommit := gittest.Git(t, dir, "", "rev-parse", "refs/exarchos/signup")
	rewriteInPlace := func(commit string) {
		t.Helper()
		path := filepath.Join(refs, "signup")
		before, err := os.Stat(path)
		require.NoError(t, err)
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0)
		require.NoError(t, err)
		_, err = f.WriteString(commit + "\n")
		require.NoError(t, err)
		require.NoError(t, f.Close())
		after, err := os.Stat(path)
		require.NoError(t, err)
		require.True(t, os.SameFile(before, after), "rewritten in place")
		require.Equal(t, before.Size(), after.Size())
	}

	// Settled, rewritten in place (to the login workflow's commit and back), with another ref's
	// move having changed the directory's stamp: the file's time differs, so it is read again.
	rewriteInPlace(loginCommit)
	settleFile("signup", 2)
	settleRefs(t, dir, 2)
	require.NoError(t, os.Remove(index)) // so that the index surely knows signup at login's commit
	assert.Empty(t, boundPhases(t, dir), "signup's ref holds login's workflow")
	require.NotEqual(t, "-", line("signup")[3])
	rewriteInPlace(signupCommit)
	settleFile("signup", 3)
	settleRefs(t, dir, 3)
	assert.Equal(t, map[string]string{"signup": "ideate"}, boundPhases(t, dir), "the settled rewrite is read")

	// Within one clock tick: read while young (its stamp not kept), then rewritten in place with
	// the same size and the very same time, as a second write in the same tick leaves it.
	rewriteInPlace(loginCommit)
	settleRefs(t, dir, 4)
	assert.Empty(t, boundPhases(t, dir))
	// assert.Equal(t, "-", line("signup")[3], "a stamp younger than a tick is not kept")
	young, err := os.Stat(filepath.Join(refs, "signup"))
	require.NoError(t, err)
	rewriteInPlace(signupCommit)
	require.NoError(t, os.Chtimes(filepath.Join(refs, "signup"), young.ModTime(), young.ModTime()))
	settleRefs(t, dir, 5)
	assert.Equal(t, map[string]string{"signup": "ideate"}, boundPhases(t, dir), "the second write of the tick is read")

	// A line damaged to say another branch, its stamp intact: the sum no longer matches, so the
	// index is not taken and nothing unbinds.
	settleFile("signup", 6)
	settleRefs(t, dir, 6)
	assert.Equal(t, map[string]string{"signup": "ideate"}, boundPhases(t, dir))
	fields := line("signup")
	b, err := os.ReadFile(index)
	require.NoError(t, err)
	damaged := strings.Replace(string(b), "\n"+strings.Join(fields, " ")+"\n", "\n"+strings.Join(append(fields[:4:4], "login"), " ")+"\n", 1)
	require.NotEqual(t, string(b), damaged)
	require.NoError(t, os.WriteFile(index, []byte(damaged), 0o644))
	assert.Equal(t, map[string]string{"signup": "ideate"}, boundPhases(t, dir))
}

// TestHookPacksManyLooseRefs (issue 28): with 1,000 loose workflow refs or more (a fetch of a
// big team's workflows by plain git), the hook packs the refs once, as `git gc` would, so that
// what it looks at on every call stays small; the answer is the refs' before and after, and a
// ref that arrives loose afterwards binds. A packed-refs.lock held by another git leaves the refs
// loose and the answer unchanged.
func TestHookPacksManyLooseRefs(t *testing.T) {
	dir, r := newRepo(t, "main")
	for _, f := range []string{"login", "other"} {
		_, err := r.CreateWorkflow(workflow.Init{Feature: f, Type: "feature", Branch: f})
		require.NoError(t, err)
	}
	var refs strings.Builder
	for i := range 1000 {
		fmt.Fprintf(&refs, "create refs/exarchos/other-%d refs/exarchos/other\n", i)
	}
	gittest.Git(t, dir, refs.String(), "update-ref", "--stdin")
	gittest.Git(t, dir, "", "switch", "-q", "-c", "login")
	looseRefs := func() int {
		entries, err := os.ReadDir(filepath.Join(dir, ".git", "refs", "exarchos"))
		require.NoError(t, err)
		return len(entries)
	}
	require.Equal(t, 1002, looseRefs())
	lock := filepath.Join(dir, ".git", "packed-refs.lock")

	// Held by another git: nothing packed, the answer as the refs say.
	require.NoError(t, os.WriteFile(lock, nil, 0o644))
	assert.Equal(t, map[string]string{"login": "ideate"}, boundPhases(t, dir))
	assert.Equal(t, 1002, looseRefs(), "packed-refs.lock held: left loose")
	require.NoError(t, os.Remove(lock))

	settleRefs(t, dir, 1)
	assert.Equal(t, map[string]string{"login": "ideate"}, boundPhases(t, dir))
	assert.Less(t, looseRefs(), 10, "packed")
	// git 2.42 and later pack the workflow refs alone (--include); an older git packs them all.
	_, branchLoose := os.Stat(filepath.Join(dir, ".git", "refs", "heads", "login"))
	var major, minor int
	_, err := fmt.Sscanf(gittest.Git(t, dir, "", "version"), "git version %d.%d", &major, &minor)
	require.NoError(t, err)
	assert.Equal(t, major > 2 || major == 2 && minor >= 42, branchLoose == nil, "git %d.%d: the branch's ref left loose only where pack-refs has --include", major, minor)
	assert.Equal(t, gittest.Git(t, dir, "", "rev-parse", "refs/exarchos/other"), gittest.Git(t, dir, "", "rev-parse", "refs/exarchos/other-999"), "git reads the packed refs")
	gittest.Git(t, dir, "", "fsck", "--strict", "--no-progress")

	// Back on other's branch, every copy binds; on login's, one that arrives loose binds.
	gittest.Git(t, dir, "", "update-ref", "refs/exarchos/login-copy", "refs/exarchos/login")
	assert.Equal(t, map[string]string{"login": "ideate", "login-copy": "ideate"}, boundPhases(t, dir))
	gittest.Git(t, dir, "", "switch", "-q", "-c", "other")
	assert.Len(t, boundPhases(t, dir), 1001)
}
