package gitstore

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/exarchos/git-exarchos/internal/gittest"
	"github.com/exarchos/git-exarchos/workflow"
)

// listFromGit is what git shows of every workflow's head commit: the summary list must equal it.
func listFromGit(t *testing.T, dir string) []Summary {
	t.Helper()
	refs := strings.Fields(gittest.Git(t, dir, "", "for-each-ref", "--format=%(refname)", "refs/exarchos/"))
	trailers := map[string][]string{} // commit id → committer time, phase, type, branch, events
	out := gittest.Git(t, dir, "", append([]string{"log", "--no-walk=unsorted", "--format=%H%x00%ct%x00" +
		"%(trailers:key=Exarchos-Phase,valueonly,separator=)%x00%(trailers:key=Exarchos-Type,valueonly,separator=)%x00" +
		"%(trailers:key=Exarchos-Branch,valueonly,separator=)%x00%(trailers:key=Exarchos-Events,valueonly,separator=)"}, refs...)...)
	for _, line := range strings.Split(out, "\n") {
		f := strings.Split(line, "\x00")
		require.Len(t, f, 6, line)
		trailers[f[0]] = f[1:]
	}
	var want []Summary
	for _, ref := range refs {
		id := gittest.Git(t, dir, "", "rev-parse", ref)
		f := trailers[id]
		var unix, events int64
		fmt.Sscan(f[0], &unix)
		fmt.Sscan(f[4], &events)
		want = append(want, Summary{Feature: strings.TrimPrefix(ref, RefPrefix), Commit: mustHash(id), Head: id, Phase: f[1], Type: f[2], Branch: f[3], Events: events, Updated: time.Unix(unix, 0).UTC()})
	}
	return want
}

func listNow(t *testing.T, dir string) []Summary {
	t.Helper()
	s := openStore(t, dir)
	defer s.Close()
	list, err := s.ListCached()
	require.NoError(t, err)
	return list
}

// repoWithWorkflows makes a repository with n workflows, wf-00, wf-01 and so on.
func repoWithWorkflows(t *testing.T, n int) (string, *Store) {
	t.Helper()
	dir := gittest.NewRepo(t, "sha1")
	s := openStore(t, dir)
	for i := 0; i < n; i++ {
		mustCreate(t, s, fmt.Sprintf("wf-%02d", i))
	}
	return dir, s
}

// commitWithTrailers makes a workflow head by hand, with whatever trailers a commit can carry.
func commitWithTrailers(t *testing.T, dir, feature, trailers string) {
	t.Helper()
	tree := gittest.Git(t, dir, "", "rev-parse", "HEAD^{tree}")
	c := gittest.Git(t, dir, feature+": workflow.started\n\n"+trailers, "commit-tree", tree)
	gittest.Git(t, dir, "", "update-ref", "refs/exarchos/"+feature, c)
}

// TestListCacheNeverShowsWhatGitDoesNot: list's rows come from its cache once read, and stay what
// git reads from the head commits through every way the refs and the cache change: appends,
// deletions, a gc, a cache edited by hand or replaced by junk, a trailer the cache cannot hold.
func TestListCacheNeverShowsWhatGitDoesNot(t *testing.T) {
	dir, s := repoWithWorkflows(t, 30)
	require.NoError(t, s.Close())
	commitWithTrailers(t, dir, "odd", "Exarchos-Phase: plan\nExarchos-Type: feature\nExarchos-Branch: tab\there\nExarchos-Events: 7\n")
	cache := filepath.Join(dir, ".git", filepath.FromSlash(listCacheFile))

	require.Equal(t, listFromGit(t, dir), listNow(t, dir))
	b, err := os.ReadFile(cache)
	require.NoError(t, err, "the first list writes the cache")
	assert.Equal(t, 30, bytes.Count(b, []byte{'\n'})-1, "one row a workflow; the branch with a tab is not cached")

	// Rows are served from the cache: with the head commits gone, list still shows them (and only
	// a row read now would fail).
	gittest.Git(t, dir, "", "update-ref", "-d", "refs/exarchos/odd") // the uncached row would need its commit
	heads := strings.Fields(gittest.Git(t, dir, "", "for-each-ref", "--format=%(objectname)", "refs/exarchos/"))
	away := t.TempDir()
	for _, id := range heads {
		require.NoError(t, os.Rename(filepath.Join(dir, ".git", "objects", id[:2], id[2:]), filepath.Join(away, id)))
	}
	gone := listNow(t, dir)
	for _, id := range heads {
		require.NoError(t, os.Rename(filepath.Join(away, id), filepath.Join(dir, ".git", "objects", id[:2], id[2:])))
	}
	require.Len(t, gone, 30)
	commitWithTrailers(t, dir, "odd", "Exarchos-Phase: plan\nExarchos-Type: feature\nExarchos-Branch: tab\there\nExarchos-Events: 7\n")
	require.Equal(t, listFromGit(t, dir), listNow(t, dir))

	s = openStore(t, dir)
	defer s.Close()
	appendN(t, s, "wf-03", 5)
	gittest.Git(t, dir, "", "update-ref", "-d", "refs/exarchos/wf-07")
	require.Equal(t, listFromGit(t, dir), listNow(t, dir), "a moved head is read again; a deleted workflow's row is gone")
	b, err = os.ReadFile(cache)
	require.NoError(t, err)
	assert.Equal(t, 29, bytes.Count(b, []byte{'\n'})-1, "the deleted workflow's row left the cache")

	// A row edited by hand: the file no longer hashes to its header, so all of it is ignored and
	// written again.
	head := gittest.Git(t, dir, "", "rev-parse", "refs/exarchos/wf-05")
	var edited []byte
	for _, line := range bytes.SplitAfter(b, []byte{'\n'}) {
		if bytes.HasPrefix(line, []byte(head+" ")) {
			line = []byte(head + " 1 999 done\tfeature\tmain\n")
		}
		edited = append(edited, line...)
	}
	require.NotEqual(t, b, edited)
	require.NoError(t, os.WriteFile(cache, edited, 0o644))
	require.Equal(t, listFromGit(t, dir), listNow(t, dir))
	rewritten, err := os.ReadFile(cache)
	require.NoError(t, err)
	assert.Equal(t, b, rewritten, "the edited cache was replaced by what the commits say")

	for name, junk := range map[string][]byte{
		"empty":          nil,
		"another format": []byte("exarchos-list 2 abc\n"),
		"binary":         bytes.Repeat([]byte{0, 0xff, '\n'}, 1000),
		"right hash, bad row": func() []byte {
			body := []byte("deadbeef x y z\n")
			return append([]byte(listCacheHeader+" "+bodySum(body)+"\n"), body...)
		}(),
	} {
		require.NoError(t, os.WriteFile(cache, junk, 0o644), name)
		require.Equal(t, listFromGit(t, dir), listNow(t, dir), name)
	}
	require.NoError(t, os.Remove(cache))
	require.NoError(t, os.Mkdir(cache, 0o755)) // a directory where the file goes: nothing is cached
	require.Equal(t, listFromGit(t, dir), listNow(t, dir))
	require.Equal(t, listFromGit(t, dir), listNow(t, dir))
	require.NoError(t, os.Remove(cache))

	gittest.Git(t, dir, "", "gc", "-q", "--prune=now")
	require.Equal(t, listFromGit(t, dir), listNow(t, dir), "after gc: refs packed, commits in a pack")
	appendN(t, openStore(t, dir), "wf-11", 1)
	require.Equal(t, listFromGit(t, dir), listNow(t, dir))
}

// TestListCacheUnderConcurrentWriters: lists running beside appends and other lists (each may
// rewrite the cache) only ever show rows that are their head commit's content.
func TestListCacheUnderConcurrentWriters(t *testing.T) {
	dir, _ := repoWithWorkflows(t, 20)
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for w := 0; w < 2; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := openStore(t, dir)
			defer s.Close()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				if _, err := s.Append(fmt.Sprintf("wf-%02d", (i*7+w)%20), proj, workflow.NewEvent{Type: "note"}); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	for r := 0; r < 3; r++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 15; i++ {
				s := openStore(t, dir)
				list, err := s.ListCached()
				if err != nil {
					t.Error(err)
					s.Close()
					return
				}
				for _, row := range list {
					content, err := s.git.ReadObject(row.Commit, plumbing.CommitObject)
					if err != nil {
						t.Error(err)
						continue
					}
					want, err := summarize(row.Feature, row.Commit, content)
					if assert.NoError(t, err) {
						assert.Equal(t, want, row)
					}
				}
				s.Close()
			}
		}()
	}
	time.Sleep(100 * time.Millisecond)
	close(stop)
	wg.Wait()
	require.Equal(t, listFromGit(t, dir), listNow(t, dir))
}

// TestOnlyTheListCommandReadsTheCache: a cache forged with a hash that matches (anyone can write
// .git/exarchos-cache) changes what the list command shows and nothing else: List, which verify,
// fsck, prune, the hooks and feature resolution use, reads the commits and never writes the cache.
func TestOnlyTheListCommandReadsTheCache(t *testing.T) {
	dir, s := repoWithWorkflows(t, 3)
	cache := filepath.Join(dir, ".git", filepath.FromSlash(listCacheFile))
	truth := listFromGit(t, dir)
	plain, err := s.List()
	require.NoError(t, err)
	require.Equal(t, truth, plain)
	require.NoFileExists(t, cache, "List writes no cache")

	var body []byte
	for _, w := range truth {
		body = fmt.Appendf(body, "%s %d 1 done\tfeature\tsomewhere-else\n", w.Head, w.Updated.Unix())
	}
	require.NoError(t, os.MkdirAll(filepath.Dir(cache), 0o755))
	require.NoError(t, os.WriteFile(cache, append([]byte(listCacheHeader+" "+bodySum(body)+"\n"), body...), 0o644))
	shown := listNow(t, dir)
	require.Len(t, shown, 3)
	assert.Equal(t, "somewhere-else", shown[0].Branch, "the list command shows the forged rows (documented)")
	plain, err = s.List()
	require.NoError(t, err)
	assert.Equal(t, truth, plain, "List reads the commits whatever the cache says")
}

// TestSummaryJSONIsEncodingJSON: list's hand-written JSON is byte for byte what encoding/json
// writes (HTML not escaped), for strings that need every kind of escape.
func TestSummaryJSONIsEncodingJSON(t *testing.T) {
	for _, text := range []string{"", "plain", `quote " and \ backslash`, "tab\there\nnewline\r\x00\x1f\x7f",
		"<html> & </html>", "é ü 日本", "\u2028\u2029", "bad \xff utf-8", strings.Repeat("x", 10000)} {
		s := Summary{Feature: text, Head: "0123456789abcdef0123456789abcdef01234567", Phase: text, Type: "feature", Branch: text,
			Events: -3, Updated: time.Date(2026, 11, 23, 22, 14, 5, 0, time.UTC)}
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		require.NoError(t, enc.Encode(s))
		assert.Equal(t, strings.TrimSuffix(want.String(), "\n"), string(s.AppendJSON(nil)), "%q", text)
	}
	s := Summary{Updated: time.Unix(1700000000, 0).UTC(), Events: 1 << 40}
	want, err := json.Marshal(s)
	require.NoError(t, err)
	assert.Equal(t, string(want), string(s.AppendJSON(nil)))
}
