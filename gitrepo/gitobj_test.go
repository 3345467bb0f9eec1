package gitrepo

import (
	"bytes"
	"encoding/hex"
	"errors"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/exarchos/git-exarchos/internal/gittest"
)

// gitRaw runs git in dir with stdin and extra environment and returns its exact stdout.
func gitRaw(t *testing.T, dir, stdin string, env []string, args ...string) []byte {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(append(CleanGitEnv(), "GIT_CONFIG_NOSYSTEM=1"), env...)
	cmd.Stdin = strings.NewReader(stdin)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "git %s: %s", strings.Join(args, " "), stderr.String())
	return out
}

func gitHash(t *testing.T, dir, stdin string, env []string, args ...string) Hash {
	t.Helper()
	return mustHash(strings.TrimSpace(string(gitRaw(t, dir, stdin, env, args...))))
}

// TestTreeCodecMatchesGit decodes trees written by `git mktree` and encodes them back, from
// shuffled entries, to the same bytes.
func TestTreeCodecMatchesGit(t *testing.T) {
	dir := gittest.NewRepo(t, "sha1")
	blob := func(content string) Hash {
		return gitHash(t, dir, content, nil, "hash-object", "-w", "--stdin")
	}
	head := mustHash(gittest.Git(t, dir, "", "rev-parse", "HEAD"))
	sub := gitHash(t, dir, "100644 blob "+blob("inner\n").String()+"\tinner.txt\n", nil, "mktree")

	tests := []struct {
		name    string
		entries []TreeEntry
	}{
		{"empty", nil},
		{"one file", []TreeEntry{{"README", filemode.Regular, blob("hello\n")}}},
		{"every mode", []TreeEntry{
			{"dir", filemode.Dir, sub},
			{"file.txt", filemode.Regular, blob("text\n")},
			{"link", filemode.Symlink, blob("file.txt")},
			{"run.sh", filemode.Executable, blob("#!/bin/sh\n")},
			{"vendor", filemode.Submodule, head},
		}},
		// "a" is a directory, so it sorts as "a/": after "a.b" ('.' < '/') and before "a0".
		{"directory sort rule", []TreeEntry{
			{"a", filemode.Dir, sub},
			{"a.b", filemode.Regular, blob("1\n")},
			{"a0", filemode.Regular, blob("2\n")},
			{"a-", filemode.Dir, sub},
			{"b", filemode.Regular, blob("3\n")},
		}},
		{"names with spaces and unicode", []TreeEntry{
			{"with space", filemode.Regular, blob("1\n")},
			{"ünïcode", filemode.Regular, blob("2\n")},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var in strings.Builder
			for _, e := range tc.entries {
				typ := map[filemode.FileMode]string{filemode.Dir: "tree", filemode.Submodule: "commit"}[e.Mode]
				if typ == "" {
					typ = "blob"
				}
				in.WriteString(strings.TrimLeft(e.Mode.String(), "0") + " " + typ + " " + e.Hash.String() + "\t" + e.Name + "\n")
			}
			want := gitHash(t, dir, in.String(), nil, "mktree")
			raw := gitRaw(t, dir, "", nil, "cat-file", "tree", want.String())

			got, err := DecodeTree(raw, SHA1)
			require.NoError(t, err)
			require.Len(t, got.Entries, len(tc.entries))
			for _, e := range tc.entries {
				found, ok := got.Entry(e.Name)
				require.True(t, ok, e.Name)
				assert.Equal(t, e, found)
			}

			shuffled := append([]TreeEntry(nil), tc.entries...)
			rand.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
			enc := EncodeTree(shuffled)
			require.Equal(t, string(raw), string(enc))
			assert.Equal(t, got.Entries, shuffled, "sorted in git's order")
			assert.Equal(t, want, SHA1.Sum(plumbing.TreeObject, enc))

			_, ok := got.Entry("missing")
			assert.False(t, ok)
		})
	}
}

// TestCommitCodecMatchesGit decodes commits written by `git commit-tree` and encodes them back to
// the same bytes.
func TestCommitCodecMatchesGit(t *testing.T) {
	dir := gittest.NewRepo(t, "sha1")
	tree := mustHash(gittest.Git(t, dir, "", "rev-parse", "HEAD^{tree}"))
	p1 := mustHash(gittest.Git(t, dir, "", "rev-parse", "HEAD"))
	p2 := gitHash(t, dir, "other\n", nil, "commit-tree", tree.String())
	ident := func(role, name, email, date string) []string {
		return []string{"GIT_" + role + "_NAME=" + name, "GIT_" + role + "_EMAIL=" + email, "GIT_" + role + "_DATE=" + date}
	}
	ist := time.FixedZone("", 5*3600+30*60)
	pst := time.FixedZone("", -8*3600)
	tests := []struct {
		name    string
		env     []string
		parents []Hash
		message string
		author  Signature
		commit  Signature
	}{
		{
			name: "root commit, UTC", message: "first\n",
			env:    append(ident("AUTHOR", "Ann", "ann@example.com", "1700000000 +0000"), ident("COMMITTER", "Ann", "ann@example.com", "1700000000 +0000")...),
			author: Signature{"Ann", "ann@example.com", time.Unix(1700000000, 0).UTC()},
			commit: Signature{"Ann", "ann@example.com", time.Unix(1700000000, 0).UTC()},
		},
		{
			name: "one parent, +0530 and -0800", parents: []Hash{p1}, message: "subject\n\nbody line\n\nExarchos-Events: 3\n",
			env:    append(ident("AUTHOR", "Ravi K", "ravi@example.in", "1700000100 +0530"), ident("COMMITTER", "Bo", "bo@example.com", "1700000200 -0800")...),
			author: Signature{"Ravi K", "ravi@example.in", time.Unix(1700000100, 0).In(ist)},
			commit: Signature{"Bo", "bo@example.com", time.Unix(1700000200, 0).In(pst)},
		},
		{
			name: "merge with two parents", parents: []Hash{p1, p2}, message: "merge\n",
			env:    append(ident("AUTHOR", "Ann", "ann@example.com", "1700000300 +0100"), ident("COMMITTER", "Ann", "ann@example.com", "1700000300 +0100")...),
			author: Signature{"Ann", "ann@example.com", time.Unix(1700000300, 0).In(time.FixedZone("", 3600))},
			commit: Signature{"Ann", "ann@example.com", time.Unix(1700000300, 0).In(time.FixedZone("", 3600))},
		},
		{
			name: "message without trailing newline", parents: []Hash{p2}, message: "no newline at the end",
			env:    append(ident("AUTHOR", "Ann", "ann@example.com", "1700000400 +0000"), ident("COMMITTER", "Ann", "ann@example.com", "1700000400 +0000")...),
			author: Signature{"Ann", "ann@example.com", time.Unix(1700000400, 0).UTC()},
			commit: Signature{"Ann", "ann@example.com", time.Unix(1700000400, 0).UTC()},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			args := []string{"commit-tree", tree.String()}
			for _, p := range tc.parents {
				args = append(args, "-p", p.String())
			}
			h := gitHash(t, dir, tc.message, tc.env, args...)
			raw := gitRaw(t, dir, "", nil, "cat-file", "commit", h.String())

			c, err := DecodeCommit(raw, SHA1)
			require.NoError(t, err)
			assert.Equal(t, tree, c.Tree)
			assert.Equal(t, tc.parents, c.Parents)
			assert.Equal(t, tc.message, c.Message)
			for _, pair := range [][2]Signature{{tc.author, c.Author}, {tc.commit, c.Committer}} {
				assert.Equal(t, pair[0].Name, pair[1].Name)
				assert.Equal(t, pair[0].Email, pair[1].Email)
				assert.True(t, pair[0].When.Equal(pair[1].When), "%v != %v", pair[0].When, pair[1].When)
				_, wantOff := pair[0].When.Zone()
				_, gotOff := pair[1].When.Zone()
				assert.Equal(t, wantOff, gotOff)
			}

			require.Equal(t, string(raw), string(c.Encode()))
			fresh := &Commit{Tree: tree, Parents: tc.parents, Author: tc.author, Committer: tc.commit, Message: tc.message}
			require.Equal(t, string(raw), string(fresh.Encode()))
		})
	}
}

// TestCommitWithSignatureHeaders skips headers it does not use, continuation lines included.
func TestCommitWithSignatureHeaders(t *testing.T) {
	raw := "tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\n" +
		"author A <a@x> 1700000000 +0000\n" +
		"committer C <c@x> 1700000001 +0200\n" +
		"gpgsig -----BEGIN PGP SIGNATURE-----\n \n abc\n -----END PGP SIGNATURE-----\n" +
		"\nmsg\n"
	c, err := DecodeCommit([]byte(raw), SHA1)
	require.NoError(t, err)
	assert.Equal(t, "msg\n", c.Message)
	assert.Equal(t, "C", c.Committer.Name)
	assert.Equal(t, int64(1700000001), c.Committer.When.Unix())
}

func TestCodecRejectsCorruptObjects(t *testing.T) {
	hash := strings.Repeat("ab", 20)
	for name, raw := range map[string]string{
		"no tree":            "author A <a@x> 1 +0000\n\nmsg",
		"short tree id":      "tree abc\n\nmsg",
		"bad parent":         "tree " + hash + "\nparent " + strings.ToUpper(hash) + "\n\nmsg",
		"committer no email": "tree " + hash + "\ncommitter C 1 +0000\n\nmsg",
		"committer no time":  "tree " + hash + "\ncommitter C <c@x>\n\nmsg",
		"no blank line":      "tree " + hash,
	} {
		_, err := DecodeCommit([]byte(raw), SHA1)
		assert.Error(t, err, name)
	}
	id := bytes.Repeat([]byte{0xab}, 20)
	for name, raw := range map[string][]byte{
		"truncated id": append([]byte("100644 f\x00"), id[:10]...),
		"no name":      append([]byte("100644 \x00"), id...),
		"bad mode":     append([]byte("10064x f\x00"), id...),
		"no nul":       []byte("100644 f"),
	} {
		_, err := DecodeTree(raw, SHA1)
		assert.Error(t, err, name)
	}
}

// TestGetObjectErrors: a missing object stays plumbing.ErrObjectNotFound (retried while a gc
// runs); a wrong type or corrupt content names the object.
func TestGetObjectErrors(t *testing.T) {
	dir := gittest.NewRepo(t, "sha1")
	s := openRepo(t, dir)
	blob := gitHash(t, dir, "not a commit\n", nil, "hash-object", "-w", "--stdin")
	badTree := gitHash(t, dir, "100644 f", nil, "hash-object", "-w", "-t", "tree", "--literally", "--stdin")

	_, err := s.GetCommit(mustHash(strings.Repeat("12", 20)))
	require.True(t, errors.Is(err, plumbing.ErrObjectNotFound), "%v", err)
	_, err = s.GetCommit(blob)
	require.ErrorContains(t, err, blob.String())
	_, err = s.GetTree(badTree)
	require.ErrorContains(t, err, "tree "+badTree.String()+" is corrupt")

	c, err := s.GetCommit(mustHash(gittest.Git(t, dir, "", "rev-parse", "HEAD")))
	require.NoError(t, err)
	assert.Equal(t, "initial\n", c.Message)
	assert.Equal(t, "Test User", c.Author.Name)
}

// TestFileExistsWalksSubtrees checks FileExists on nested paths, directories and missing parts.
func TestFileExistsWalksSubtrees(t *testing.T) {
	dir := gittest.NewRepo(t, "sha1")
	gittest.Git(t, dir, "", "checkout", "-q", "-b", "nested")
	for _, f := range []string{"docs/plans/plan.md", "docs/a.b", "bin/run.sh"} {
		require.NoError(t, os.MkdirAll(filepath.Join(dir, filepath.Dir(f)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, f), []byte("x\n"), 0o755))
	}
	gittest.Git(t, dir, "", "add", ".")
	gittest.Git(t, dir, "", "commit", "-q", "-m", "files")
	head := gittest.Git(t, dir, "", "rev-parse", "HEAD")
	f := openRepo(t, dir).Facts()
	for path, want := range map[string]bool{
		"README":                  true,
		"./README":                true,
		"docs/plans/plan.md":      true,
		"./docs/plans/plan.md":    true,
		"docs/a.b":                true,
		"docs":                    false, // a directory, not a file
		"docs/plans":              false,
		"docs/plans/missing.md":   false,
		"docs/nothere/plan.md":    false,
		"README/inside":           false, // README is a file, not a directory
		"":                        false,
		"docs/":                   false,
		"bin/run.sh":              true,
		"missing/deeper/and/more": false,
	} {
		got, err := f.FileExists(head, path)
		require.NoError(t, err, path)
		assert.Equal(t, want, got, path)
	}
	_, err := f.FileExists(strings.Repeat("12", 20), "README")
	assert.Error(t, err)
}

func TestDirFiles(t *testing.T) {
	dir := gittest.NewRepo(t, "sha1")
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "defs", "nested"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "defs", "a.yaml"), []byte("type: a\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "defs", "b.yml"), []byte("type: b\n"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "defs", "nested", "c.yaml"), []byte("type: c\n"), 0o644))
	require.NoError(t, os.Symlink("a.yaml", filepath.Join(dir, "defs", "link.yaml")))
	gittest.Git(t, dir, "", "add", "defs")
	gittest.Git(t, dir, "", "commit", "-q", "-m", "defs")
	head := gittest.Git(t, dir, "", "rev-parse", "HEAD")
	// A file written after the commit is not part of it.
	require.NoError(t, os.WriteFile(filepath.Join(dir, "defs", "uncommitted.yaml"), []byte("x"), 0o644))

	facts := openRepo(t, dir).Facts()
	files, err := facts.DirFiles(head, "defs")
	require.NoError(t, err)
	assert.Equal(t, map[string][]byte{"a.yaml": []byte("type: a\n"), "b.yml": []byte("type: b\n")}, files,
		"regular files directly in the directory, at the commit: no subdirectory, symlink or working-tree file")
	for _, missing := range []string{"nope", "README", "defs/a.yaml"} {
		files, err := facts.DirFiles(head, missing)
		require.NoError(t, err)
		assert.Nil(t, files, missing)
	}
}

// TestParseHash: an object id is 40 or 64 lowercase hex digits; all zeros is the zero id; the
// bytes are those hex digits, as git reads them, from a string or from bytes alike.
func TestParseHash(t *testing.T) {
	for _, tc := range []struct {
		in   string
		ok   bool
		zero bool
	}{
		{"0123456789abcdef0123456789abcdef01234567", true, false},
		{strings.Repeat("f", 64), true, false},
		{strings.Repeat("0", 40), true, true},
		{strings.Repeat("0", 64), true, true},
		{strings.Repeat("0", 39) + "1", true, false},
		{"0123456789ABCDEF0123456789abcdef01234567", false, false},
		{"0123456789abcdeg0123456789abcdef01234567", false, false},
		{strings.Repeat("a", 41), false, false},
		{strings.Repeat("a", 63), false, false},
		{"", false, false},
	} {
		h, ok := ParseHash(tc.in)
		hb, okb := ParseHash([]byte(tc.in))
		require.Equal(t, tc.ok, ok, tc.in)
		require.Equal(t, h, hb, tc.in)
		require.Equal(t, ok, okb, tc.in)
		if !ok {
			continue
		}
		assert.Equal(t, tc.zero, h.IsZero(), tc.in)
		if !tc.zero {
			assert.Equal(t, tc.in, h.String())
			want, err := hex.DecodeString(tc.in)
			require.NoError(t, err)
			assert.Equal(t, want, h.Bytes())
		}
	}
}
