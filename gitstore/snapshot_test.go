package gitstore

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/exarchos/git-exarchos/gitrepo"
	"github.com/exarchos/git-exarchos/internal/gittest"
	"github.com/exarchos/git-exarchos/workflow"
)

// forge rewrites a workflow's head by hand, as an agent with git plumbing would: edit gets the
// head tree's files by path and changes them; the result is committed on top and the ref moved.
func forge(t *testing.T, dir, feature string, edit func(files map[string]string)) {
	t.Helper()
	ref := RefName(feature)
	files := map[string]string{}
	for _, line := range strings.Split(gittest.Git(t, dir, "", "ls-tree", "-r", "--name-only", ref), "\n") {
		files[line] = gittest.Git(t, dir, "", "cat-file", "blob", ref+":"+line) + "\n"
	}
	edit(files)
	index := filepath.Join(t.TempDir(), "index")
	run := func(stdin string, args ...string) string {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(gitrepo.CleanGitEnv(), "GIT_INDEX_FILE="+index)
		cmd.Stdin = strings.NewReader(stdin)
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "git %v: %s", args, out)
		return strings.TrimSpace(string(out))
	}
	for path, content := range files {
		blob := run(content, "hash-object", "-w", "--stdin")
		run("", "update-index", "--add", "--cacheinfo", "100644,"+blob+","+path)
	}
	tree := run("", "write-tree")
	commit := run("forged\n", "commit-tree", tree, "-p", ref)
	run("", "update-ref", ref, commit)
}

func snapshotOfFiles(t *testing.T, files map[string]string) map[string]any {
	var sf map[string]any
	require.NoError(t, json.Unmarshal([]byte(files["state.json"]), &sf))
	return sf
}

func putSnapshot(t *testing.T, files map[string]string, sf map[string]any) {
	b, err := json.Marshal(sf)
	require.NoError(t, err)
	files["state.json"] = string(b)
}

func phaseOf(t *testing.T, state json.RawMessage) string {
	var st countState
	require.NoError(t, json.Unmarshal(state, &st))
	return st.Phase
}

// A state.json edited to disagree with its events (its digest left as it was, or removed) is not
// shown, not decided against, and not carried forward: readers fold the events, the next write
// builds on the fold, fsck names the edit.
func TestEditedSnapshotIsNotTrusted(t *testing.T) {
	for _, dropDigest := range []bool{false, true} {
		dir := gittest.NewRepo(t, "sha1")
		s := openStore(t, dir)
		mustCreate(t, s, "snap")
		_, err := s.Append("snap", proj, workflow.NewEvent{ID: "k0", Type: "phase", Data: "review"}) // a keyed event, so the index is not empty
		require.NoError(t, err)

		forge(t, dir, "snap", func(files map[string]string) {
			sf := snapshotOfFiles(t, files)
			sf["state"] = map[string]any{"phase": "done", "count": 99, "byType": map[string]int{}}
			if dropDigest {
				delete(sf, "digest")
			}
			putSnapshot(t, files, sf)
		})
		problems, err := s.Verify("snap", proj)
		require.NoError(t, err)
		require.NotEmpty(t, problems)
		assert.Equal(t, "state.json", problems[0].Path)

		snap, err := s.State("snap", proj)
		require.NoError(t, err)
		assert.Equal(t, "review", phaseOf(t, snap.State), "the fold is shown, not the edit")
		assert.True(t, snap.Folded)

		var decidedOn string
		res, err := s.Update("snap", proj, func(cur *Snapshot) ([]workflow.NewEvent, error) {
			decidedOn = phaseOf(t, cur.State)
			return []workflow.NewEvent{{Type: "note"}}, nil
		})
		require.NoError(t, err)
		assert.Equal(t, "review", decidedOn, "decisions see the fold")
		var st countState
		require.NoError(t, json.Unmarshal(res.State, &st))
		assert.EqualValues(t, 3, st.Count, "the write carries the fold forward, not the edited count")
		problems, err = s.Verify("snap", proj)
		require.NoError(t, err)
		assert.Empty(t, problems, "the new head is consistent again")
		snap, err = s.State("snap", proj)
		require.NoError(t, err)
		assert.False(t, snap.Folded, "and trusted again")
	}
}

// Duplicated event ids and bad id-index lines are refused on read and on write, and reported by
// fsck, even when the forger fixed up the snapshot's events tree and digest.
func TestDuplicateIDsAndBadIndexLinesAreRefused(t *testing.T) {
	type forgery struct {
		name  string
		edit  func(t *testing.T, files map[string]string)
		fsck  string
		fixUp bool // recompute the digest as a careful forger would
	}
	dupLine := func(t *testing.T, files map[string]string) {
		seg := files["events/00000000.jsonl"]
		lines := strings.Split(strings.TrimSuffix(seg, "\n"), "\n")
		var ev map[string]any
		require.NoError(t, json.Unmarshal([]byte(lines[1]), &ev))
		ev["seq"] = len(lines) + 1
		b, _ := json.Marshal(ev)
		files["events/00000000.jsonl"] = seg + string(b) + "\n"
		sf := snapshotOfFiles(t, files)
		sf["events"] = len(lines) + 1
		putSnapshot(t, files, sf)
	}
	badIndex := func(t *testing.T, files map[string]string) {
		key := idKey("k1")
		path := "keys/" + key[:2]
		files[path] += "not an index line\n"
	}
	for _, f := range []forgery{
		{"duplicate id", dupLine, `id "k1" already used by seq 2`, false},
		{"bad index line", badIndex, "bad index line", false},
		{"bad index line, digest recomputed", badIndex, "bad index line", true},
	} {
		t.Run(f.name, func(t *testing.T) {
			dir := gittest.NewRepo(t, "sha1")
			s := openStore(t, dir)
			mustCreate(t, s, "dup")
			_, err := s.Append("dup", proj, workflow.NewEvent{ID: "k1", Type: "note"})
			require.NoError(t, err)
			forge(t, dir, "dup", func(files map[string]string) {
				f.edit(t, files)
				// The events tree id is kept right, so only the content checks can catch it.
				evTree := hashTree(t, dir, files, "events/")
				sf := snapshotOfFiles(t, files)
				sf["eventsTree"] = evTree.String()
				if f.fixUp {
					var typed snapshotFile
					b, _ := json.Marshal(sf)
					require.NoError(t, json.Unmarshal(b, &typed))
					sf["digest"] = typed.digest(hashTree(t, dir, files, "keys/"))
				}
				putSnapshot(t, files, sf)
			})
			before := gittest.Git(t, dir, "", "rev-parse", RefName("dup"))

			problems, err := s.Verify("dup", proj)
			require.NoError(t, err)
			var msgs []string
			for _, p := range problems {
				msgs = append(msgs, p.Path+": "+p.Message)
			}
			assert.Contains(t, strings.Join(msgs, "\n"), f.fsck)

			if !f.fixUp {
				_, err = s.State("dup", proj)
				require.Error(t, err)
				assert.True(t, IsCorrupt(err), "%v", err)
			}
			// A write that would touch the damage is refused: k1's bucket is read and checked.
			_, err = s.Append("dup", proj, workflow.NewEvent{ID: "k1", Type: "note"}, workflow.NewEvent{Type: "note"})
			require.Error(t, err)
			assert.True(t, IsCorrupt(err), "%v", err)
			assert.Equal(t, before, gittest.Git(t, dir, "", "rev-parse", RefName("dup")), "nothing written on top")
		})
	}
}

// hashTree writes the subtree of files under prefix and returns its id.
func hashTree(t *testing.T, dir string, files map[string]string, prefix string) gitrepo.Hash {
	t.Helper()
	var entries []gitrepo.TreeEntry
	for path, content := range files {
		name, ok := strings.CutPrefix(path, prefix)
		if !ok {
			continue
		}
		entries = append(entries, gitrepo.TreeEntry{Name: name, Mode: 0o100644, Hash: gitrepo.SHA1.Sum(plumbing.BlobObject, []byte(content))})
	}
	return gitrepo.SHA1.Sum(plumbing.TreeObject, gitrepo.EncodeTree(entries))
}
