package gitstore

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/exarchos/git-exarchos/gitrepo"
	"github.com/exarchos/git-exarchos/internal/gittest"
	"github.com/exarchos/git-exarchos/workflow"
)

func TestCreateAppendRead(t *testing.T) {
	dir := gittest.NewRepo(t, "sha1")
	s := openStore(t, dir)
	mustCreate(t, s, "login")

	_, err := s.Create("login", proj, nil)
	require.ErrorIs(t, err, ErrExists)

	res, err := s.Append("login", proj, workflow.NewEvent{Type: "phase", Data: "plan"}, workflow.NewEvent{Type: "note", Data: map[string]string{"a": "b"}})
	require.NoError(t, err)
	require.Len(t, res.Appended, 2)
	assert.Equal(t, int64(2), res.Appended[0].Seq)
	assert.Equal(t, int64(3), res.Appended[1].Seq)
	assert.Equal(t, uint64(3), res.Appended[1].Clock)
	assert.Equal(t, "Test User <test@example.com>", res.Appended[0].Actor)

	snap, err := s.State("login", proj)
	require.NoError(t, err)
	var st countState
	require.NoError(t, json.Unmarshal(snap.State, &st))
	assert.Equal(t, "plan", st.Phase)
	assert.EqualValues(t, 3, st.Count)
	assert.False(t, snap.Folded)

	// One commit per call, with the author from git config and a summarising message.
	assert.Equal(t, "2", gittest.Git(t, dir, "", "rev-list", "--count", "refs/exarchos/login"))
	assert.Equal(t, "Test User <test@example.com>", gittest.Git(t, dir, "", "log", "-1", "--format=%an <%ae>", "refs/exarchos/login"))
	msg := gittest.Git(t, dir, "", "log", "-1", "--format=%B", "refs/exarchos/login")
	assert.Contains(t, msg, "login: phase, note")
	assert.Contains(t, msg, "Exarchos-Phase: plan")
	// git itself agrees with what we wrote.
	gittest.Git(t, dir, "", "fsck", "--strict", "--no-dangling")
	assert.Equal(t, "1", gittest.Git(t, dir, "", "cat-file", "-p", "refs/exarchos/login:format"))

	list, err := s.List()
	require.NoError(t, err)
	require.Len(t, list, 1)
	assert.Equal(t, "login", list[0].Feature)
	assert.Equal(t, "plan", list[0].Phase)
	assert.EqualValues(t, 3, list[0].Events)
	assert.Equal(t, snap.Commit, list[0].Commit)

	problems, err := s.Verify("login", proj)
	require.NoError(t, err)
	assert.Empty(t, problems)
}

func TestUnknownFieldsSurviveRewrite(t *testing.T) {
	var e workflow.Event
	require.NoError(t, json.Unmarshal([]byte(`{"id":"x","seq":1,"type":"t","time":"2026-01-02T03:04:05Z","actor":"a","clock":1,"data":{"k":1},"zeta":[1, 2],"alpha":"keep"}`), &e))
	out, err := json.Marshal(e)
	require.NoError(t, err)
	assert.Equal(t, `{"id":"x","seq":1,"type":"t","time":"2026-01-02T03:04:05Z","actor":"a","clock":1,"data":{"k":1},"alpha":"keep","zeta":[1,2]}`, string(out))
}

func TestSegmentsAndFilters(t *testing.T) {
	dir := gittest.NewRepo(t, "sha1")
	s := openStore(t, dir)
	mustCreate(t, s, "seg")
	appendN(t, s, "seg", 600) // 601 events: segments of 256, 256, 89
	out := gittest.Git(t, dir, "", "ls-tree", "--name-only", "refs/exarchos/seg:events")
	assert.Equal(t, "00000000.jsonl\n00000001.jsonl\n00000002.jsonl", out)

	all, snap, err := s.Events("seg", EventFilter{})
	require.NoError(t, err)
	require.Len(t, all, 601)
	assert.EqualValues(t, 601, snap.Events)
	for i, e := range all {
		require.EqualValues(t, i+1, e.Seq)
	}
	some, _, err := s.Events("seg", EventFilter{SinceSeq: 300, Limit: 5})
	require.NoError(t, err)
	require.Len(t, some, 5)
	assert.EqualValues(t, 300, some[0].Seq)
	phases, _, err := s.Events("seg", EventFilter{Types: []string{"phase"}})
	require.NoError(t, err)
	require.Len(t, phases, 1)
	assert.EqualValues(t, 1, phases[0].Seq)

	problems, err := s.Verify("seg", proj)
	require.NoError(t, err)
	assert.Empty(t, problems)
}

func TestIdempotentAppend(t *testing.T) {
	dir := gittest.NewRepo(t, "sha1")
	s := openStore(t, dir)
	mustCreate(t, s, "idem")
	first, err := s.Append("idem", proj, workflow.NewEvent{Type: "note", ID: "hook-123", Data: 1})
	require.NoError(t, err)
	require.Len(t, first.Appended, 1)

	// A fresh store (another process, later) sees the key and returns the stored event.
	again, err := openStore(t, dir).Append("idem", proj, workflow.NewEvent{Type: "note", ID: "hook-123", Data: 2}, workflow.NewEvent{Type: "note", ID: "hook-124"})
	require.NoError(t, err)
	require.Len(t, again.Appended, 1)
	assert.Equal(t, "hook-124", again.Appended[0].ID)
	require.Len(t, again.Duplicates, 1)
	assert.Equal(t, first.Appended[0].Seq, again.Duplicates[0].Seq)
	assert.JSONEq(t, "1", string(again.Duplicates[0].Data))

	noop, err := s.Append("idem", proj, workflow.NewEvent{Type: "note", ID: "hook-124"})
	require.NoError(t, err)
	assert.Empty(t, noop.Appended)
	assert.EqualValues(t, 3, noop.Events)
}

func TestBadFeatureIDs(t *testing.T) {
	dir := gittest.NewRepo(t, "sha1")
	s := openStore(t, dir)
	for _, id := range []string{"../x", "a..b", "x.lock", "A B", "", strings.Repeat("a", 65), "café", "-x", ".x", "x.", "a/b", "Upper"} {
		_, err := s.Create(id, proj, nil)
		require.ErrorIs(t, err, ErrBadFeature, "id %q", id)
		assert.Contains(t, err.Error(), "[a-z0-9][a-z0-9._-]{0,63}")
	}
	assert.NoError(t, ValidateFeature(strings.Repeat("a", 64)))
	assert.NoError(t, ValidateFeature("v1.2_fix-3"))
	assert.Empty(t, gittest.Git(t, dir, "", "for-each-ref", "refs/exarchos/"))
	_, err := os.Stat(filepath.Join(dir, ".git", "x"))
	assert.True(t, os.IsNotExist(err))
}

func TestBadPayloadWritesNothing(t *testing.T) {
	dir := gittest.NewRepo(t, "sha1")
	s := openStore(t, dir)
	mustCreate(t, s, "pay")
	before := gittest.Git(t, dir, "", "rev-parse", "refs/exarchos/pay")
	_, err := s.Append("pay", proj, workflow.NewEvent{Type: "note", Data: json.RawMessage(`{"open":`)})
	require.ErrorIs(t, err, ErrBadPayload)
	assert.Contains(t, err.Error(), "not valid JSON")
	_, err = s.Append("pay", proj, workflow.NewEvent{Type: "note", Data: strings.Repeat("x", MaxPayload+1)})
	require.ErrorIs(t, err, ErrBadPayload)
	assert.Contains(t, err.Error(), "1 MiB")
	assert.Equal(t, before, gittest.Git(t, dir, "", "rev-parse", "refs/exarchos/pay"))
}

func TestMissingWorkflowIsNotCreated(t *testing.T) {
	dir := gittest.NewRepo(t, "sha1")
	s := openStore(t, dir)
	_, err := s.Append("ghost", proj, workflow.NewEvent{Type: "note"})
	require.ErrorIs(t, err, ErrNotFound)
	assert.Contains(t, err.Error(), "git exarchos init ghost")
	assert.Empty(t, gittest.Git(t, dir, "", "for-each-ref", "refs/exarchos/"))
}

func TestMissingIdentity(t *testing.T) {
	dir := t.TempDir()
	gittest.Git(t, dir, "", "init", "-q")
	t.Setenv("HOME", t.TempDir())
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	t.Setenv("GIT_AUTHOR_NAME", "")
	t.Setenv("GIT_AUTHOR_EMAIL", "")
	s := openStore(t, dir)
	_, err := s.Create("who", proj, []workflow.NewEvent{{Type: "x"}})
	require.ErrorIs(t, err, gitrepo.ErrNoIdentity)
	assert.Contains(t, err.Error(), "git config --global user.email")
}

// craftCorrupt writes, with plain git plumbing, a child commit of the workflow head whose last
// segment has a broken line, and points the ref at it.
func craftCorrupt(t *testing.T, dir, feature string) string {
	ref := "refs/exarchos/" + feature
	lastSeg := gittest.Git(t, dir, "", "ls-tree", "--name-only", ref+":events")
	names := strings.Split(lastSeg, "\n")
	seg := names[len(names)-1]
	content := gittest.Git(t, dir, "", "cat-file", "-p", ref+":events/"+seg)
	broken := content[:len(content)/2] + "\n"
	blob := gittest.Git(t, dir, broken, "hash-object", "-w", "--stdin")
	evTree := gittest.Git(t, dir, "", "ls-tree", ref+":events")
	evTree = strings.Replace(evTree, gittest.Git(t, dir, "", "rev-parse", ref+":events/"+seg), blob, 1)
	newEv := gittest.Git(t, dir, evTree+"\n", "mktree")
	root := gittest.Git(t, dir, "", "ls-tree", ref)
	root = strings.Replace(root, gittest.Git(t, dir, "", "rev-parse", ref+":events"), newEv, 1)
	newRoot := gittest.Git(t, dir, root+"\n", "mktree")
	commit := gittest.Git(t, dir, "", "commit-tree", newRoot, "-p", ref, "-m", "crafted corruption")
	gittest.Git(t, dir, "", "update-ref", ref, commit)
	return commit
}

func TestCorruptSegmentIsReportedAndNotBuiltOn(t *testing.T) {
	dir := gittest.NewRepo(t, "sha1")
	s := openStore(t, dir)
	mustCreate(t, s, "bad")
	appendN(t, s, "bad", 10)
	commit := craftCorrupt(t, dir, "bad")

	_, err := s.State("bad", proj)
	require.Error(t, err)
	var ce *CorruptError
	require.True(t, errors.As(err, &ce), "got %v", err)
	assert.Equal(t, commit, ce.Commit.String())
	assert.Contains(t, ce.Path, "events/00000000.jsonl", "%v", err)

	_, _, err = s.Events("bad", EventFilter{})
	require.True(t, IsCorrupt(err))
	assert.Contains(t, err.Error(), commit)

	_, err = s.Append("bad", proj, workflow.NewEvent{Type: "note"})
	require.True(t, IsCorrupt(err), "got %v", err)
	assert.Equal(t, commit, gittest.Git(t, dir, "", "rev-parse", "refs/exarchos/bad"), "no write builds on a corrupt commit")

	problems, err := s.Verify("bad", proj)
	require.NoError(t, err)
	require.NotEmpty(t, problems)
	var paths []string
	for _, pr := range problems {
		assert.Equal(t, commit, pr.Commit)
		paths = append(paths, pr.Path)
	}
	assert.Contains(t, strings.Join(paths, ","), "events/00000000.jsonl line")
}

func TestProjectorVersionChangeFolds(t *testing.T) {
	dir := gittest.NewRepo(t, "sha1")
	s := openStore(t, dir)
	mustCreate(t, s, "ver")
	appendN(t, s, "ver", 3)
	v2 := countProjector{version: "count/2"}
	snap, err := s.State("ver", v2)
	require.NoError(t, err)
	assert.True(t, snap.Folded)
	res, err := s.Append("ver", v2, workflow.NewEvent{Type: "note"})
	require.NoError(t, err)
	var st countState
	require.NoError(t, json.Unmarshal(res.State, &st))
	assert.EqualValues(t, 5, st.Count)
	assert.Contains(t, gittest.Git(t, dir, "", "cat-file", "-p", "refs/exarchos/ver:state.json"), `"projector":"count/2"`)
}

func TestSymbolicOrGarbageRefIsAnError(t *testing.T) {
	dir := gittest.NewRepo(t, "sha1")
	s := openStore(t, dir)
	require.NoError(t, os.MkdirAll(filepath.Join(dir, ".git/refs/exarchos"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, ".git/refs/exarchos/junk"), []byte("not a hash\n"), 0o644))
	_, err := s.State("junk", proj)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "rm -f -- '"+filepath.Join(dir, ".git/refs/exarchos/junk")+"'")
}

func TestCASRefusesStaleAndLock(t *testing.T) {
	dir := gittest.NewRepo(t, "sha1")
	s := openStore(t, dir)
	mustCreate(t, s, "cas")
	head, _, err := gitrepo.ReadRef(s.loc.CommonDir, "refs/exarchos/cas")
	require.NoError(t, err)
	other := mustHash(gittest.Git(t, dir, "", "rev-parse", "HEAD"))
	require.ErrorIs(t, gitrepo.CasRef(s.loc.CommonDir, "refs/exarchos/cas", other, other), gitrepo.ErrStale)

	// A fresh lock of unknown owner (git's) is waited for, then named with the fix.
	lock := filepath.Join(dir, ".git/refs/exarchos/cas.lock")
	require.NoError(t, os.WriteFile(lock, nil, 0o644))
	err = gitrepo.CasRef(s.loc.CommonDir, "refs/exarchos/cas", other, head)
	require.ErrorIs(t, err, gitrepo.ErrLocked)
	assert.Contains(t, err.Error(), "rm -f -- '"+lock+"'")
	require.NoError(t, os.Remove(lock))

	// After pack-refs the ref lives only in packed-refs; reads and CAS still work.
	gittest.Git(t, dir, "", "pack-refs", "--all")
	_, err = os.Stat(filepath.Join(dir, ".git/refs/exarchos/cas"))
	require.True(t, os.IsNotExist(err))
	_, err = s.Append("cas", proj, workflow.NewEvent{Type: "note"})
	require.NoError(t, err)
	assert.Equal(t, "2", gittest.Git(t, dir, "", "rev-list", "--count", "refs/exarchos/cas"))
}
