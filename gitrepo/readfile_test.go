package gitrepo

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/exarchos/git-exarchos/internal/gittest"
)

// TestReadFile: the three-call reader returns exactly the file, whatever its size against the
// hint, and a missing file is fs.ErrNotExist (ScanRefs skips a ref deleted under it on that).
func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	for _, size := range []int{0, 1, 63, 64, 128, 4096, 100_000} {
		want := bytes.Repeat([]byte("x"), size)
		path := filepath.Join(dir, "f")
		require.NoError(t, os.WriteFile(path, want, 0o644))
		for _, hint := range []int{0, 128, 1 << 20} {
			got, err := readFile(path, hint)
			require.NoError(t, err)
			assert.Equal(t, want, got, "size %d hint %d", size, hint)
		}
		got, err := readFileInto(path, []byte("keep:"))
		require.NoError(t, err)
		assert.Equal(t, append([]byte("keep:"), want...), got)
	}
	_, err := readFile(filepath.Join(dir, "missing"), 128)
	assert.ErrorIs(t, err, fs.ErrNotExist)
	_, err = readFile(dir, 128) // a directory: an error, not an empty file
	assert.Error(t, err)
}

// TestParallel: every index runs exactly once, in turn below the threshold and on goroutines above.
func TestParallel(t *testing.T) {
	for _, c := range []struct{ n, below int }{{0, 16}, {1, 0}, {5, 16}, {16, 16}, {1000, 16}, {1000, 0}} {
		runs := make([]atomic.Int32, c.n)
		Parallel(c.n, c.below, func(i int) { runs[i].Add(1) })
		for i := range runs {
			assert.EqualValues(t, 1, runs[i].Load(), "n %d: index %d", c.n, i)
		}
	}
}

// TestReadPackedRef: one ref is found by its whole name among refs that share its prefix or
// suffix, in any position of packed-refs; a name only a prefix of another is not found.
func TestReadPackedRef(t *testing.T) {
	a, b, c := strings.Repeat("a", 40), strings.Repeat("b", 40), strings.Repeat("c", 40)
	lines := a + " refs/exarchos/bench\n" +
		b + " refs/exarchos/bench-1\n" +
		c + " refs/exarchos/xbench\n" +
		b + " refs/exarchos/last"
	for header, content := range map[string]string{
		"no header":                lines,
		"header without sorted":    "# pack-refs with: peeled \n" + lines,
		"sorted (binary search)":   "# pack-refs with: peeled fully-peeled sorted \n" + a + " refs/exarchos/bench\n" + b + " refs/exarchos/bench-1\n" + b + " refs/exarchos/last\n" + c + " refs/exarchos/xbench",
		"sorted, CRLF line ending": "# pack-refs with: peeled fully-peeled sorted \r\n" + a + " refs/exarchos/bench\r\n" + b + " refs/exarchos/bench-1\r\n" + b + " refs/exarchos/last\r\n" + c + " refs/exarchos/xbench\r\n",
	} {
		dir := t.TempDir()
		require.NoError(t, os.WriteFile(filepath.Join(dir, "packed-refs"), []byte(content), 0o644))
		for name, want := range map[string]string{
			"refs/exarchos/bench": a, "refs/exarchos/bench-1": b, "refs/exarchos/xbench": c, "refs/exarchos/last": b,
			"refs/exarchos/ben": "", "refs/exarchos/bench-": "", "refs/exarchos/las": "", "refs/a": "", "refs/z": "",
		} {
			h, ok, err := ReadRef(dir, name)
			require.NoError(t, err)
			assert.Equal(t, want != "", ok, "%s: %s", header, name)
			if ok {
				assert.Equal(t, want, h.String(), "%s: %s", header, name)
			}
		}
	}
}

// TestScanRefsNamesInOrder: ScanRefs's names are in git's order however packed-refs is written
// (sorted or not, whatever its header says) and with loose refs overriding and adding to it.
func TestScanRefsNamesInOrder(t *testing.T) {
	a, b, c := strings.Repeat("a", 40), strings.Repeat("b", 40), strings.Repeat("c", 40)
	for name, content := range map[string]string{
		"sorted":                   "# pack-refs with: peeled fully-peeled sorted \n" + a + " refs/exarchos/a\n" + b + " refs/exarchos/a-b\n" + c + " refs/exarchos/b\n",
		"unsorted, header says so": "# pack-refs with: peeled fully-peeled sorted \n" + c + " refs/exarchos/b\n" + a + " refs/exarchos/a\n" + b + " refs/exarchos/a-b\n",
		"no header":                b + " refs/exarchos/a-b\n" + c + " refs/exarchos/b\n" + a + " refs/exarchos/a\n",
	} {
		for _, loose := range []bool{false, true} {
			dir := t.TempDir()
			require.NoError(t, os.WriteFile(filepath.Join(dir, "packed-refs"), []byte(content), 0o644))
			want := []string{"refs/exarchos/a", "refs/exarchos/a-b", "refs/exarchos/b"}
			if loose {
				require.NoError(t, os.MkdirAll(filepath.Join(dir, "refs/exarchos/a"), 0o755))
				require.NoError(t, os.WriteFile(filepath.Join(dir, "refs/exarchos/a/x"), []byte(b+"\n"), 0o644))
				require.NoError(t, os.WriteFile(filepath.Join(dir, "refs/exarchos/b"), []byte(a+"\n"), 0o644))
				want = []string{"refs/exarchos/a", "refs/exarchos/a-b", "refs/exarchos/a/x", "refs/exarchos/b"}
			}
			refs, names, bad, err := ScanRefs(dir, "refs/exarchos/", nil)
			require.NoError(t, err)
			assert.Empty(t, bad)
			assert.Equal(t, want, names, "%s, loose %v", name, loose)
			assert.Len(t, refs, len(want))
			if loose {
				assert.Equal(t, a, refs["refs/exarchos/b"].String(), "the loose ref hides the packed one")
			}
		}
	}
}

// TestSearchSortedPackedRefs: the binary search finds every ref git wrote, and none it did not,
// at every size from empty to 10,000 refs, with peeled tag lines among them, names that are
// prefixes of others, and the last line without its newline.
func TestSearchSortedPackedRefs(t *testing.T) {
	for _, n := range []int{0, 1, 2, 3, 4, 5, 7, 8, 9, 16, 17, 100, 10000} {
		var names []string
		for i := range n {
			names = append(names, fmt.Sprintf("refs/exarchos/w%d", i))
			if i%3 == 0 {
				names = append(names, fmt.Sprintf("refs/exarchos/w%d-x", i))
			}
			if i%7 == 0 {
				names = append(names, fmt.Sprintf("refs/tags/v%d", i))
			}
		}
		slices.Sort(names)
		var b strings.Builder
		b.WriteString("# pack-refs with: peeled fully-peeled sorted \n")
		ids := map[string]string{}
		for i, name := range names {
			id := fmt.Sprintf("%040x", i+1)
			ids[name] = id
			fmt.Fprintf(&b, "%s %s\n", id, name)
			if strings.HasPrefix(name, "refs/tags/") {
				fmt.Fprintf(&b, "^%040x\n", 1<<20+i) // the commit the tag points at
			}
		}
		content := []byte(strings.TrimSuffix(b.String(), "\n"))
		for _, name := range names {
			h, found, ok := searchSortedPackedRefs(content, name)
			require.True(t, ok && found, "n=%d: %s not found", n, name)
			require.Equal(t, ids[name], h.String(), "n=%d: %s", n, name)
		}
		for _, name := range []string{"refs/", "refs/exarchos/w", "refs/exarchos/w1-", "refs/exarchos/w99999", "refs/tags/v", "refs/zzz", "a"} {
			_, found, ok := searchSortedPackedRefs(content, name)
			require.True(t, ok, "n=%d: %s", n, name)
			require.False(t, found, "n=%d: %s found, and git did not write it", n, name)
		}
	}
	// A line that is not "<id> <name>" hands the search back to the line-by-line reader.
	_, _, ok := searchSortedPackedRefs([]byte("# pack-refs with: sorted\ngarbage\n"), "refs/x")
	require.False(t, ok)
}

// TestPackedRefsReadAgainWhenChanged: the packed-refs kept in memory is dropped when the file is
// replaced (git renames a new one in) or rewritten in place with the same size.
func TestPackedRefsReadAgainWhenChanged(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "packed-refs")
	read := func() string {
		h, ok, err := ReadRef(dir, "refs/exarchos/f")
		require.NoError(t, err)
		require.True(t, ok)
		return h.String()
	}
	for i, c := range []string{"a", "b", "c", "d"} {
		id := strings.Repeat(c, 40)
		content := []byte(id + " refs/exarchos/f\n")
		if i%2 == 0 { // replaced, as git does
			tmp := path + ".new"
			require.NoError(t, os.WriteFile(tmp, content, 0o644))
			require.NoError(t, os.Rename(tmp, path))
		} else { // rewritten in place, same size
			require.NoError(t, os.WriteFile(path, content, 0o644))
		}
		assert.Equal(t, id, read(), "version %d", i)
		assert.Equal(t, id, read(), "version %d, read again", i)
	}
	require.NoError(t, os.Remove(path))
	_, ok, err := ReadRef(dir, "refs/exarchos/f")
	require.NoError(t, err)
	assert.False(t, ok, "a deleted packed-refs holds nothing")
}

// TestReadRefAfterGitPackRefs: every ref `git pack-refs` wrote is read as git reads it, names of
// every shape (dashes, dots, capitals, digits, nested paths, annotated tags with peeled lines),
// and a name git did not write is not found.
func TestReadRefAfterGitPackRefs(t *testing.T) {
	dir := gittest.NewRepo(t, "sha1")
	gittest.Git(t, dir, "", "commit", "-q", "--allow-empty", "-m", "one")
	var script strings.Builder
	for i := range 300 {
		for _, name := range []string{"refs/exarchos/f%d", "refs/exarchos/f%d-x", "refs/exarchos/F.%d", "refs/heads/topic/%d/deep", "refs/exarchos-dup/%d"} {
			fmt.Fprintf(&script, "create "+name+" HEAD\n", i)
		}
	}
	gittest.Git(t, dir, script.String(), "update-ref", "--stdin")
	gittest.Git(t, dir, "", "tag", "-a", "-m", "annotated", "v1")
	gittest.Git(t, dir, "", "commit", "-q", "--allow-empty", "-m", "two")
	gittest.Git(t, dir, "", "update-ref", "refs/exarchos/f7", "HEAD")
	gittest.Git(t, dir, "", "pack-refs", "--all")
	packed, err := os.ReadFile(filepath.Join(dir, ".git", "packed-refs"))
	require.NoError(t, err)
	require.Contains(t, string(packed), " sorted", "git writes packed-refs sorted, so the binary search is what runs")
	for _, line := range strings.Split(gittest.Git(t, dir, "", "for-each-ref", "--format=%(objectname) %(refname)"), "\n") {
		id, name, _ := strings.Cut(line, " ")
		h, ok, err := ReadRef(filepath.Join(dir, ".git"), name)
		require.NoError(t, err)
		require.True(t, ok, name)
		require.Equal(t, id, h.String(), name)
	}
	for _, name := range []string{"refs/exarchos/f", "refs/exarchos/f300", "refs/exarchos/f1-", "refs/heads/topic/1", "refs/tags/v", "refs/tags/v10"} {
		_, ok, err := ReadRef(filepath.Join(dir, ".git"), name)
		require.NoError(t, err)
		require.False(t, ok, name)
	}
}
