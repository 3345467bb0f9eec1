package gitrepo

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/exarchos/git-exarchos/internal/gittest"
)

// histCommit is one commit of a history built with git fast-import: its parents (marks), its
// committer time, and its changes (fast-import file commands).
type histCommit struct {
	parents []int
	when    int64
	changes []string
}

// file, del, link and gitlink are fast-import file commands.
func file(path, content string) string {
	return fmt.Sprintf("M 100644 inline %s\ndata %d\n%s\n", path, len(content), content)
}
func exe(path, content string) string {
	return fmt.Sprintf("M 100755 inline %s\ndata %d\n%s\n", path, len(content), content)
}
func link(path, target string) string {
	return fmt.Sprintf("M 120000 inline %s\ndata %d\n%s\n", path, len(target), target)
}
func del(path string) string                { return "D " + path + "\n" }
func gitlink(path string, id string) string { return "M 160000 " + id + " " + path + "\n" }

// shapes is a history with the shapes a merge-base and a diff meet: a linear run, a side branch
// merged back, a criss-cross (two merge-bases), an octopus, a committer clock that goes back, an
// unrelated root, a file that becomes a directory, a rename, mode and type changes, names that
// sort differently as files and as directories, deep trees and submodules.
func shapes(format string) []histCommit {
	sub := strings.Repeat("1", 40)
	sub2 := strings.Repeat("2", 40)
	if format == "sha256" {
		sub, sub2 = strings.Repeat("1", 64), strings.Repeat("2", 64)
	}
	return []histCommit{
		1:  {nil, 1000, []string{file("a.txt", "a"), file("dir/x", "x"), file("a.b", "dot"), file("a-b", "dash"), file("dir2", "was a file"), file("d/e/f/g.txt", "deep")}},
		2:  {[]int{1}, 1100, []string{file("a.txt", "a2"), exe("a-b", "dash")}},
		3:  {[]int{1}, 1050, []string{del("dir/x"), file("dir/y", "x"), link("link", "a.txt")}},
		4:  {[]int{2, 3}, 1200, []string{file("a.txt", "a2"), file("dir/y", "x"), link("link", "a.txt")}},
		5:  {[]int{4}, 1300, []string{file("c1.txt", "one")}},
		6:  {[]int{4}, 1310, []string{file("c2.txt", "two")}},
		7:  {[]int{5, 6}, 1400, []string{file("c2.txt", "two")}},
		8:  {[]int{6, 5}, 1410, []string{file("c1.txt", "one")}},
		9:  {[]int{4}, 1500, []string{del("dir2"), file("dir2/z", "now a dir"), del("link"), file("link", "a file now"), file("a/b", "a as a dir")}},
		10: {[]int{9}, 900, []string{file("a.txt", "skewed")}},
		11: {[]int{9}, 2000, []string{file("b.txt", "later")}},
		12: {nil, 1600, []string{file("other.txt", "unrelated")}},
		13: {[]int{4}, 1700, []string{gitlink("sub", sub)}},
		14: {[]int{13}, 1710, []string{gitlink("sub", sub2)}},
		15: {[]int{2, 3, 9}, 1800, []string{file("octopus", "three parents")}},
		16: {[]int{4}, 1900, []string{file("d/e/f/g.txt", "deeper"), file("d/e/h.txt", "new"), del("a.b")}},
		17: {[]int{10, 11}, 2100, []string{file("a.txt", "merged")}},
		18: {[]int{7, 8}, 2200, nil},
	}
}

// buildHistory writes the history into a new repository, each commit on its own branch c<N>, and
// returns the repository and each commit's id.
func buildHistory(t *testing.T, format string, hist []histCommit) (string, []string) {
	t.Helper()
	dir := t.TempDir()
	gittest.Git(t, dir, "", "init", "-q", "--object-format="+format)
	var b strings.Builder
	for n, c := range hist {
		if n == 0 {
			continue
		}
		fmt.Fprintf(&b, "commit refs/heads/c%d\nmark :%d\ncommitter T <t@example.com> %d +0000\ndata 3\nc%d\n", n, n, c.when, n%10)
		for i, p := range c.parents {
			if i == 0 {
				fmt.Fprintf(&b, "from :%d\n", p)
			} else {
				fmt.Fprintf(&b, "merge :%d\n", p)
			}
		}
		for _, ch := range c.changes {
			b.WriteString(ch)
		}
		b.WriteString("\n")
	}
	gittest.Git(t, dir, b.String(), "fast-import", "--quiet")
	ids := make([]string, len(hist))
	for _, line := range strings.Split(gittest.Git(t, dir, "", "for-each-ref", "--format=%(refname:short) %(objectname)", "refs/heads/"), "\n") {
		name, id, _ := strings.Cut(line, " ")
		var n int
		_, err := fmt.Sscanf(name, "c%d", &n)
		require.NoError(t, err, line)
		ids[n] = id
	}
	return dir, ids
}

// gitMergeBases is `git merge-base --all`: every best common ancestor.
func gitMergeBases(t *testing.T, dir, a, b string) []string {
	out, err := gittest.Run(dir, "", "merge-base", "--all", a, b)
	if err != nil {
		require.Empty(t, out, "git merge-base %s %s", a, b)
		return nil
	}
	return strings.Fields(out)
}

// The merge-base read in process is git's on every pair of commits, or it declines, and only
// where git finds several best common ancestors (the criss-cross): then git is asked.
func TestMergeBaseMatchesGit(t *testing.T) {
	for _, format := range []string{"sha1", "sha256"} {
		t.Run(format, func(t *testing.T) {
			dir, ids := buildHistory(t, format, shapes(format))
			r := openRepo(t, dir)
			require.True(t, r.plainHistory())
			answered, declined := 0, 0
			for i := 1; i < len(ids); i++ {
				for j := 1; j < len(ids); j++ {
					want := gitMergeBases(t, dir, ids[i], ids[j])
					got, ok, err := r.mergeBase(mustHash(ids[i]), mustHash(ids[j]))
					if errors.Is(err, errNotHere) {
						declined++
						assert.Greater(t, len(want), 1, "c%d c%d: declined where git has one merge-base %v", i, j, want)
						continue
					}
					require.NoError(t, err)
					answered++
					if len(want) == 0 {
						assert.False(t, ok, "c%d c%d: git finds no merge-base, the reader %s", i, j, got)
						continue
					}
					require.True(t, ok, "c%d c%d: git finds %v", i, j, want)
					assert.Equal(t, want, []string{got.String()}, "c%d c%d", i, j)
				}
			}
			assert.Positive(t, declined, "the criss-cross (c7, c8) has two merge-bases")
			assert.Greater(t, answered, 9*declined, "the reader answers nearly every pair")

			// Through Facts, the criss-cross is git's answer.
			f := r.Facts()
			mb, ok, err := f.MergeBase(ids[7], ids[8])
			require.NoError(t, err)
			require.True(t, ok)
			assert.Equal(t, gittest.Git(t, dir, "", "merge-base", ids[7], ids[8]), mb)
		})
	}
}

// The tree diff read in process is `git diff --name-status --no-renames` on every pair of
// commits (and against git's empty tree), in git's order, or it declines where a submodule
// changed.
func TestTreeDiffMatchesGit(t *testing.T) {
	for _, format := range []string{"sha1", "sha256"} {
		t.Run(format, func(t *testing.T) {
			dir, ids := buildHistory(t, format, shapes(format))
			r := openRepo(t, dir)
			empty := gittest.Git(t, dir, "", "hash-object", "-t", "tree", "--stdin", "-w")
			froms := append([]string{empty}, ids[1:]...)
			declined := 0
			for _, a := range froms {
				for _, b := range ids[1:] {
					out, err := gittest.Run(dir, "", "diff", "--name-status", "-z", "--no-renames", a, b, "--")
					require.NoError(t, err, out)
					wantPaths, wantStatus, err := parseNameStatus(strings.TrimSuffix(out, "\x00") + "\x00")
					if out == "" {
						wantPaths, wantStatus, err = nil, nil, nil
					}
					require.NoError(t, err)
					ta, err := r.treeOf(a)
					require.NoError(t, err)
					tb, err := r.treeOf(b)
					require.NoError(t, err)
					var got diff
					if err := r.diffTrees("", ta, tb, &got); errors.Is(err, errNotHere) {
						declined++
						assert.Contains(t, out, "sub", "%s..%s declined with no submodule in git's diff", a, b)
						continue
					}
					assert.Equal(t, wantPaths, got.paths, "%s..%s", a, b)
					assert.Equal(t, string(wantStatus), string(got.status), "%s..%s", a, b)
				}
			}
			assert.Positive(t, declined, "the submodule commits are git's to diff")

			// Through Facts, a submodule's change is git's answer.
			changed, err := r.Facts().ChangedPaths(ids[13], ids[14])
			require.NoError(t, err)
			assert.Equal(t, []string{"sub"}, changed)
		})
	}
}

// Where the commit graph git walks is not the one the objects hold (a shallow clone, grafts,
// replace refs), the reader steps aside and Facts gives git's answers.
func TestHistoryFallsBackOutsideThePlainGraph(t *testing.T) {
	dir, ids := buildHistory(t, "sha1", shapes("sha1"))

	t.Run("replace ref", func(t *testing.T) {
		clone := filepath.Join(t.TempDir(), "clone")
		gittest.Git(t, "", "", "clone", "-q", "--mirror", dir, clone)
		// c11 replaced by a commit whose parent is the unrelated root: no merge-base with c10 now.
		gittest.Git(t, clone, "", "replace", "--graft", ids[11], ids[12])
		r := openRepo(t, clone)
		require.False(t, r.plainHistory())
		_, want := gittest.Run(clone, "", "merge-base", ids[10], ids[11])
		require.Error(t, want, "git follows the replacement")
		_, ok, err := r.Facts().MergeBase(ids[10], ids[11])
		require.NoError(t, err)
		assert.False(t, ok, "Facts follows git, not the objects")
	})
	t.Run("grafts", func(t *testing.T) {
		clone := filepath.Join(t.TempDir(), "clone")
		gittest.Git(t, "", "", "clone", "-q", "--mirror", dir, clone)
		require.NoError(t, os.MkdirAll(filepath.Join(clone, "info"), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(clone, "info", "grafts"), []byte(ids[11]+"\n"), 0o644))
		require.False(t, openRepo(t, clone).plainHistory())
	})
	t.Run("shallow", func(t *testing.T) {
		clone := filepath.Join(t.TempDir(), "clone")
		gittest.Git(t, "", "", "clone", "-q", "--depth", "1", "--no-single-branch", "file://"+dir, clone)
		r := openRepo(t, clone)
		require.False(t, r.plainHistory())
		tip10 := gittest.Git(t, clone, "", "rev-parse", "origin/c10")
		tip11 := gittest.Git(t, clone, "", "rev-parse", "origin/c11")
		_, gitErr := gittest.Run(clone, "", "merge-base", tip10, tip11)
		_, ok, err := r.Facts().MergeBase(tip10, tip11)
		require.NoError(t, err)
		assert.Equal(t, gitErr == nil, ok, "Facts answers as git does on the cut history")
	})
}

// On every repository shape of the suite (shared, reference, shallow, partial, packed with a
// multi-pack index and a commit-graph, SHA-256, reftable, …), Facts' merge-base and changed paths
// are git's: read in process where the graph is plain, asked of git where it is not.
func TestHistoryOnEveryShape(t *testing.T) {
	origins := map[string][]string{}
	top := t
	origin := func(format string) (string, []string) {
		if o := origins[format]; o != nil {
			return o[0], o[1:]
		}
		dir, ids := buildHistory(top, format, shapes(format))
		bare := filepath.Join(top.TempDir(), "origin.git")
		gittest.Git(top, "", "", "clone", "-q", "--mirror", dir, bare)
		gittest.Git(top, bare, "", "symbolic-ref", "HEAD", "refs/heads/c17")
		gittest.Git(top, bare, "", "config", "uploadpack.allowFilter", "true")
		gittest.Git(top, bare, "", "config", "uploadpack.allowAnySHA1InWant", "true")
		origins[format] = append([]string{bare}, ids...)
		return bare, ids
	}
	pairs := [][2]int{{7, 8}, {8, 7}, {10, 11}, {17, 4}, {12, 1}, {15, 16}, {9, 3}, {16, 14}, {17, 17}, {2, 1}}
	for _, shape := range gittest.Shapes() {
		t.Run(shape.Name, func(t *testing.T) {
			if shape.Skip != nil {
				if why := shape.Skip(); why != "" {
					t.Skip(why)
				}
			}
			if shape.RefsThroughGit {
				was := RouteRefsThroughGit(true)
				t.Cleanup(func() { RouteRefsThroughGit(was) })
			}
			format := cmp.Or(shape.Format, "sha1")
			bare, ids := origin(format)
			dir := shape.Make(t, bare)
			if shape.Settle != nil {
				shape.Settle(t, dir)
			}
			f := openRepo(t, dir).Facts()
			for _, p := range pairs {
				a, b := ids[p[0]], ids[p[1]]
				want, gitErr := gittest.Run(dir, "", "merge-base", a, b)
				got, ok, err := f.MergeBase(a, b)
				switch {
				case gitErr == nil:
					require.NoError(t, err, "c%d c%d", p[0], p[1])
					assert.Equal(t, want, got, "merge-base c%d c%d", p[0], p[1])
				case want == "":
					assert.False(t, ok && err == nil, "c%d c%d: git finds none, Facts %s", p[0], p[1], got)
				default:
					assert.Error(t, err, "c%d c%d: git failed (%s)", p[0], p[1], want)
				}
				out, gitErr := gittest.Run(dir, "", "diff", "--name-status", "-z", "--no-renames", a, b, "--")
				changed, err := f.ChangedPaths(a, b)
				if gitErr != nil {
					assert.Error(t, err, "diff c%d c%d: git failed (%s)", p[0], p[1], out)
					continue
				}
				require.NoError(t, err, "diff c%d c%d", p[0], p[1])
				var wantPaths []string
				if out != "" {
					wantPaths, _, err = parseNameStatus(strings.TrimSuffix(out, "\x00") + "\x00")
					require.NoError(t, err)
				}
				assert.Equal(t, wantPaths, changed, "diff c%d c%d", p[0], p[1])
			}
		})
	}
}

// A walk longer than maxWalk commits gives way to git (whose commit-graph makes long walks cheap),
// and the answer is still git's.
func TestLongWalkGoesToGit(t *testing.T) {
	hist := []histCommit{1: {nil, 1000, []string{file("f", "0")}}}
	for n := 2; n <= maxWalk+100; n++ {
		hist = append(hist, histCommit{[]int{n - 1}, int64(1000 + n), []string{file("f", fmt.Sprint(n))}})
	}
	hist = append(hist, histCommit{[]int{1}, 5000, []string{file("side", "s")}})
	dir, ids := buildHistory(t, "sha1", hist)
	r := openRepo(t, dir)
	tip, side := ids[maxWalk+100], ids[len(ids)-1]
	_, _, err := r.mergeBase(mustHash(tip), mustHash(side))
	require.ErrorIs(t, err, errNotHere)
	mb, ok, err := r.Facts().MergeBase(tip, side)
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, ids[1], mb)
	// A short one is answered in process.
	mb2, ok, err := r.mergeBase(mustHash(ids[maxWalk+100]), mustHash(ids[maxWalk+90]))
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, ids[maxWalk+90], mb2.String())
}
