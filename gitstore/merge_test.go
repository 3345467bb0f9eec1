package gitstore

import (
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/exarchos/git-exarchos/gitrepo"
	"github.com/exarchos/git-exarchos/internal/gittest"
	"github.com/exarchos/git-exarchos/workflow"
)

// diverge makes a workflow with base events, then two tips with a and b more events each on top
// of it; it leaves the ref at the first tip and returns both.
func diverge(t testing.TB, s *Store, feature string, base, a, b int) (gitrepo.Hash, gitrepo.Hash) {
	t.Helper()
	mustCreate(t, s, feature)
	appendN(t, s, feature, base)
	fork, _, err := gitrepo.ReadRef(s.loc.CommonDir, RefName(feature))
	require.NoError(t, err)
	appendN(t, s, feature, b)
	theirs, _, _ := gitrepo.ReadRef(s.loc.CommonDir, RefName(feature))
	require.NoError(t, gitrepo.CasRef(s.loc.CommonDir, RefName(feature), fork, theirs))
	appendN(t, s, feature, a)
	ours, _, _ := gitrepo.ReadRef(s.loc.CommonDir, RefName(feature))
	return ours, theirs
}

func TestIntegrateMergesDivergedLogs(t *testing.T) {
	s := openStore(t, gittest.NewRepo(t, "sha1"))
	ours, theirs := diverge(t, s, "f", 300, 40, 270)
	res, err := s.Integrate("f", proj, theirs, "test")
	require.NoError(t, err)
	require.Equal(t, Merged, res.Action)
	require.EqualValues(t, 270, res.Added)
	c, err := s.git.GetCommit(res.New)
	require.NoError(t, err)
	require.Equal(t, []gitrepo.Hash{ours, theirs}, c.Parents)
	problems, err := s.Verify("f", proj)
	require.NoError(t, err)
	require.Empty(t, problems)
	events, snap, err := s.Events("f", EventFilter{})
	require.NoError(t, err)
	require.Len(t, events, 1+300+40+270)
	for i := 1; i < len(events); i++ {
		require.True(t, workflow.Less(events[i-1], events[i]), "canonical order at %d", i)
	}
	// The next append's clock is above both sides.
	r, err := s.Append("f", proj, workflow.NewEvent{Type: "note"})
	require.NoError(t, err)
	require.Greater(t, r.Appended[0].Clock, snap.LastClock)

	// Merging the other way round writes the same snapshot; integrating again is a no-op.
	c1, snap1, err := s.MergeCommits("f", proj, ours, theirs)
	require.NoError(t, err)
	c2, snap2, err := s.MergeCommits("f", proj, theirs, ours)
	require.NoError(t, err)
	require.NotEqual(t, c1, c2)
	require.Equal(t, string(snap1.State), string(snap2.State))
	again, err := s.Integrate("f", proj, theirs, "test")
	require.NoError(t, err)
	require.Equal(t, Ahead, again.Action)
}

func TestIntegrateCreatesAndFastForwards(t *testing.T) {
	s := openStore(t, gittest.NewRepo(t, "sha1"))
	mustCreate(t, s, "f")
	old, _, _ := gitrepo.ReadRef(s.loc.CommonDir, RefName("f"))
	appendN(t, s, "f", 3)
	tip, _, _ := gitrepo.ReadRef(s.loc.CommonDir, RefName("f"))
	require.NoError(t, gitrepo.CasRef(s.loc.CommonDir, RefName("f"), old, tip))
	res, err := s.Integrate("f", proj, tip, "test")
	require.NoError(t, err)
	require.Equal(t, FastForward, res.Action)
	require.EqualValues(t, 3, res.Added)
	res, err = s.Integrate("g", proj, tip, "test")
	require.NoError(t, err)
	require.Equal(t, Created, res.Action)
	res, err = s.Integrate("g", proj, tip, "test")
	require.NoError(t, err)
	require.Equal(t, UpToDate, res.Action)
}

func TestIntegrateRefusesDamagedTip(t *testing.T) {
	dir := gittest.NewRepo(t, "sha1")
	s := openStore(t, dir)
	mustCreate(t, s, "f")
	// A commit whose tree is not a workflow (e.g. a branch pushed to refs/exarchos/ by mistake).
	bad := mustHash(gittest.Git(t, dir, "", "rev-parse", "HEAD"))
	_, err := s.Integrate("g", proj, bad, "test")
	require.True(t, IsCorrupt(err), "%v", err)
	ok, _ := s.Exists("g")
	require.False(t, ok)
}

func TestUnionKeepsOneCopyPerIDWhicheverSide(t *testing.T) {
	ev := func(id string, clock uint64, data string) logEvent {
		return logEvent{Event: workflow.Event{ID: id, Type: "note", Clock: clock, Data: []byte(data)}}
	}
	a := []logEvent{ev("x", 1, `1`), ev("k", 3, `"a"`)}
	b := []logEvent{ev("x", 1, `1`), ev("y", 2, `2`), ev("k", 3, `"b"`)}
	ab, err := unionEvents(a, b)
	require.NoError(t, err)
	ba, err := unionEvents(b, a)
	require.NoError(t, err)
	require.Equal(t, ab, ba)
	// x once (the same event on both sides), y, k with the first copy in canonical order, and the
	// other copy of k kept whole in a collision record.
	require.Len(t, ab, 4)
	require.Equal(t, []string{"x", "y", "k"}, []string{ab[0].ID, ab[1].ID, ab[2].ID})
	require.Equal(t, `"a"`, string(ab[2].Data))
	rec := ab[3]
	require.Equal(t, workflow.EventKeyCollided, rec.Type)
	require.EqualValues(t, 4, rec.Seq)
	var d workflow.KeyCollidedData
	require.NoError(t, rec.DecodeData(&d))
	require.Equal(t, "k", d.Key)
	var lost workflow.Event
	require.NoError(t, json.Unmarshal(d.Event, &lost))
	require.Equal(t, `"b"`, string(lost.Data))

	// Merging the merged log with either side again adds nothing: the record is written once.
	again, err := unionEvents(ab, b)
	require.NoError(t, err)
	require.Equal(t, ab, again)
}

func TestLineSplicesSeqOrEncodes(t *testing.T) {
	e := workflow.Event{ID: "a<b", Seq: 7, Type: "note", Actor: "A <a@x>", Clock: 3, Data: []byte(`{"seq":1}`)}
	raw, err := json.Marshal(e)
	require.NoError(t, err)
	le := logEvent{Event: e, raw: raw}
	le.Seq = 12345
	got, err := le.line()
	require.NoError(t, err)
	want, _ := json.Marshal(le.Event)
	require.Equal(t, string(want), string(got))
	le.raw = []byte(`{"seq":7,"id":"a<b"}`) // not our canonical opening: encoded afresh
	got, err = le.line()
	require.NoError(t, err)
	require.Equal(t, string(want), string(got))
}

// BenchmarkMerge5000x5000 merges two logs of 5,000 events each (a common first segment, then
// 4,744 events on each side), in process. Each iteration merges in a fresh copy of the repository
// so every new object is really written. The baseline, measured in the same run, only reads and
// parses both logs (what any merge must do at least).
func BenchmarkMerge5000x5000(b *testing.B) {
	dir := gittest.NewRepo(b, "sha1")
	s := openStore(b, dir)
	ours, theirs := diverge(b, s, "f", SegmentSize-1, 5000-SegmentSize, 5000-SegmentSize)
	b.Run("read-both-baseline", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			lh, err := s.parseHead("f", ours)
			require.NoError(b, err)
			th, err := s.parseHead("f", theirs)
			require.NoError(b, err)
			a, err := s.readSegments(lh, 0)
			require.NoError(b, err)
			c, err := s.readSegments(th, 0)
			require.NoError(b, err)
			require.Len(b, a, 5000)
			require.Len(b, c, 5000)
		}
	})
	b.Run("merge", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			copyDir := filepath.Join(b.TempDir(), fmt.Sprint(i))
			out, err := exec.Command("cp", "-a", dir, copyDir).CombinedOutput()
			require.NoError(b, err, "%s", out)
			c := openStore(b, copyDir)
			b.StartTimer()
			_, snap, err := c.MergeCommits("f", proj, ours, theirs)
			if err != nil || snap.Events != SegmentSize+2*(5000-SegmentSize) {
				b.Fatalf("%v %+v", err, snap)
			}
		}
	})
}
