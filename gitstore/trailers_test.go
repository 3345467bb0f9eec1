package gitstore

import (
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/exarchos/git-exarchos/internal/gittest"
	"github.com/exarchos/git-exarchos/workflow"
)

// The writer's trailers are what git itself reads as trailers (%(trailers:key=…)), and the reader
// gets back what was written.
func TestTrailersAgreeWithGit(t *testing.T) {
	dir := gittest.NewRepo(t, "sha1")
	tree := gittest.Git(t, dir, "", "rev-parse", "HEAD^{tree}")
	for _, want := range []Trailers{
		{Phase: "plan", Type: "feature", Branch: "feat/a b", FirstSeq: 3, LastSeq: 7, Events: 7},
		{Phase: "synthesize", Type: "refactor", Events: 12}, // a merge: no Seq, no branch
		{Events: 1, FirstSeq: 1, LastSeq: 1},
	} {
		msg := want.Message("f: phase, note")
		require.Equal(t, want, ReadTrailers([]byte(msg)))
		commit := gittest.Git(t, dir, msg, "commit-tree", tree)
		for key, value := range map[string]string{TrailerPhase: want.Phase, TrailerType: want.Type, TrailerBranch: want.Branch,
			TrailerEvents: orEmpty(want.Events), TrailerSeq: seqRange(want)} {
			require.Equal(t, value, gittest.Git(t, dir, "", "log", "-1", "--format=%(trailers:key="+key+",valueonly)", commit), key)
		}
	}
	// A value that does not parse is left zero, as are lines that only look like trailers.
	got := ReadTrailers([]byte("s\n\nExarchos-Seq: 9..2\nExarchos-Events: many\nNot-Exarchos-Phase: x\nExarchos-Phase:no-space\n"))
	require.Equal(t, Trailers{}, got)
}

func orEmpty(n int64) string {
	if n == 0 {
		return ""
	}
	return strconv.FormatInt(n, 10)
}

func seqRange(t Trailers) string {
	if t.FirstSeq == 0 {
		return ""
	}
	return orEmpty(t.FirstSeq) + ".." + orEmpty(t.LastSeq)
}

// Each event maps to the commit that added it, oldest first; a commit without a readable Seq
// range (a hand-made one) maps none.
func TestEventCommits(t *testing.T) {
	dir := gittest.NewRepo(t, "sha1")
	s := openStore(t, dir)
	mustCreate(t, s, "f") // seq 1
	first := gittest.Git(t, dir, "", "rev-parse", "refs/exarchos/f")
	_, err := s.Append("f", proj, workflow.NewEvent{Type: "note"}, workflow.NewEvent{Type: "note"}) // 2, 3
	require.NoError(t, err)
	second := gittest.Git(t, dir, "", "rev-parse", "refs/exarchos/f")
	odd := gittest.Git(t, dir, "hand-made\n\nExarchos-Seq: 9..2\n", "commit-tree", second+"^{tree}", "-p", second)
	gittest.Git(t, dir, "", "update-ref", "refs/exarchos/f", odd, second)
	_, err = s.Append("f", proj, workflow.NewEvent{Type: "note"}) // 4
	require.NoError(t, err)
	third := gittest.Git(t, dir, "", "rev-parse", "refs/exarchos/f")

	got, err := s.EventCommits("f")
	require.NoError(t, err)
	require.Equal(t, map[int64]string{1: first, 2: second, 3: second, 4: third}, got)
}
