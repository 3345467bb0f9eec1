package gitstore

import (
	"bytes"
	"compress/zlib"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/exarchos/git-exarchos/internal/gittest"
)

// TestCheckObjectsFindsWhatGitFsckFinds: damage in a workflow's history (not its head, which
// Verify reads) is found as git fsck finds it, in both hashes: a tree with duplicate entries
// (a --strict finding) and an object whose content does not match its id.
func TestCheckObjectsFindsWhatGitFsckFinds(t *testing.T) {
	for _, f := range formats {
		t.Run(f.String(), func(t *testing.T) {
			dir := gittest.NewRepo(t, f.String())
			s := openStore(t, dir)
			mustCreate(t, s, "w")
			mustCreate(t, s, "clean")
			appendN(t, s, "w", 3)
			problems, err := s.CheckObjects([]string{"w", "clean"})
			require.NoError(t, err)
			require.Empty(t, problems)

			// A parent whose tree lists "a" twice: git fsck --strict says duplicateEntries.
			raw := mustHash(gittest.Git(t, dir, "", "hash-object", "-w", "README")).Bytes()
			var tree bytes.Buffer
			for i := 0; i < 2; i++ {
				tree.WriteString("100644 a\x00")
				tree.Write(raw)
			}
			badTree := gittest.Git(t, dir, tree.String(), "hash-object", "-t", "tree", "--literally", "-w", "--stdin")
			badCommit := gittest.Git(t, dir, "bad\n", "commit-tree", badTree)
			head := gittest.Git(t, dir, "", "rev-parse", "refs/exarchos/w")
			msg := gittest.Git(t, dir, "", "log", "-1", "--format=%B", head)
			grafted := gittest.Git(t, dir, msg+"\n", "commit-tree", head+"^{tree}", "-p", head, "-p", badCommit)
			gittest.Git(t, dir, "", "update-ref", "refs/exarchos/w", grafted, head)

			fsck, _ := gittest.Run(dir, "", "fsck", "--strict", "--no-dangling")
			require.Contains(t, fsck, "duplicateEntries")
			problems, err = s.CheckObjects([]string{"w", "clean"})
			require.NoError(t, err)
			require.NotEmpty(t, problems)
			assert.Equal(t, "w", problems[0].Feature)
			assert.Contains(t, problems[0].Message, "duplicateEntries")
			assert.Equal(t, badTree, problems[0].Path)
			// Verify, which reads the head, has nothing to say: only the object check finds it.
			vp, err := s.Verify("w", proj)
			require.NoError(t, err)
			assert.Empty(t, vp)
			gittest.Git(t, dir, "", "update-ref", "refs/exarchos/w", head, grafted)

			// An old segment (first commit's) whose file holds other content than its id says.
			first := gittest.Git(t, dir, "", "rev-list", "--max-parents=0", "refs/exarchos/w")
			seg := gittest.Git(t, dir, "", "rev-parse", first+":events/00000000.jsonl")
			path := filepath.Join(dir, ".git", "objects", seg[:2], seg[2:])
			require.FileExists(t, path)
			forged := []byte("{\"forged\":true}\n")
			var z bytes.Buffer
			zw := zlib.NewWriter(&z)
			fmt.Fprintf(zw, "blob %d\x00%s", len(forged), forged)
			zw.Close()
			require.NoError(t, os.Chmod(path, 0o644))
			require.NoError(t, os.WriteFile(path, z.Bytes(), 0o644))
			fsck, _ = gittest.Run(dir, "", "fsck", "--strict", "--no-dangling")
			require.Contains(t, fsck, seg)
			problems, err = s.CheckObjects([]string{"w", "clean"})
			require.NoError(t, err)
			require.NotEmpty(t, problems)
			var found bool
			for _, p := range problems {
				assert.Equal(t, "w", p.Feature, "the clean workflow shares no damaged object")
				found = found || strings.Contains(p.Message, seg) || p.Path == seg
			}
			assert.True(t, found, "%v", problems)
		})
	}
}
