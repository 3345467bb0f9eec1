package app

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/exarchos/git-exarchos/engine"
	"github.com/exarchos/git-exarchos/gitstore"
	"github.com/exarchos/git-exarchos/hookrun"
	"github.com/exarchos/git-exarchos/internal/gittest"
	"github.com/exarchos/git-exarchos/views"
	"github.com/exarchos/git-exarchos/workflow"
)

func commits(t *testing.T, dir, feature string) int {
	t.Helper()
	n, err := strconv.Atoi(gittest.Git(t, dir, "", "rev-list", "--count", "refs/exarchos/"+feature))
	require.NoError(t, err)
	return n
}

func eventTypes(t *testing.T, r *Repo, feature string) []string {
	t.Helper()
	lg, err := views.Log(r.Hook(), views.LogOptions{Feature: feature})
	require.NoError(t, err)
	var out []string
	for _, e := range lg.Events {
		out = append(out, e.Type)
	}
	return out
}

// TestOneCommitPerCall: a call writes one commit holding everything it records — the hook's
// denial waiting in the journal rides with a `set`, and a refused transition's guard.failed with
// the denials is one commit too (it used to be a second full write).
func TestOneCommitPerCall(t *testing.T) {
	dir, r := newRepo(t, "main")
	_, err := Init(r, InitOptions{Feature: "f", Type: "feature"})
	require.NoError(t, err)

	deny := func(id string) {
		require.NoError(t, r.hookRuntime().Journal("f", workflow.NewEvent{ID: id, Type: workflow.EventToolDenied, Data: map[string]string{"tool": "Edit"}}))
	}
	deny("deny-1")
	before := commits(t, dir, "f")
	_, err = Set(r, SetOptions{Feature: "f", Assignments: []string{"owner=\"ana\""}})
	require.NoError(t, err)
	assert.Equal(t, before+1, commits(t, dir, "f"), "one set after one hook denial: one commit")
	types := eventTypes(t, r, "f")
	assert.Equal(t, []string{workflow.EventToolDenied, workflow.EventFieldSet}, types[len(types)-2:])

	deny("deny-2")
	before = commits(t, dir, "f")
	_, err = Run(r, "f", workflow.TransitionTo{Phase: "plan"}) // no design artifact
	assert.Equal(t, workflow.CodeGuardFailed, rejection(t, err).Code)
	assert.Equal(t, before+1, commits(t, dir, "f"), "a refused transition: one commit")
	types = eventTypes(t, r, "f")
	assert.Equal(t, []string{workflow.EventToolDenied, workflow.EventGuardFailed}, types[len(types)-2:])
	st, _, err := r.State("f")
	require.NoError(t, err)
	assert.Equal(t, "ideate", st.Phase)

	// The same refusal again in the same visit records nothing new: no commit at all.
	before = commits(t, dir, "f")
	_, err = Run(r, "f", workflow.TransitionTo{Phase: "plan"})
	assert.Equal(t, workflow.CodeGuardFailed, rejection(t, err).Code)
	assert.Equal(t, before, commits(t, dir, "f"))

	// A refusal that records nothing (bad input) writes nothing, and leaves the journal waiting.
	deny("deny-3")
	_, err = Run(r, "f", workflow.TransitionTo{Phase: "no-such-phase"})
	require.Error(t, err)
	assert.Equal(t, before, commits(t, dir, "f"))
	_, err = Set(r, SetOptions{Feature: "f", Assignments: []string{"owner=\"bo\""}})
	require.NoError(t, err)
	assert.Equal(t, before+1, commits(t, dir, "f"))
	assert.Contains(t, eventTypes(t, r, "f"), workflow.EventToolDenied)
}

// guardedRepo is a repository whose base (main) defines a type "gated" with one shell guard.
func guardedRepo(t *testing.T, run string) (string, *Repo) {
	t.Helper()
	dir, _ := newRepo(t, "main")
	def := fmt.Sprintf("type: gated\ninitial: a\nphases:\n  - {id: a}\n  - {id: done, kind: final}\ntransitions:\n  - {from: a, to: done, guards: [\"shell:slow\"]}\nguards:\n  slow: {run: %q, timeout: 30s}\n", run)
	gittest.CommitFile(t, dir, ".exarchos/workflows/gated.yaml", def)
	r := reopen(t, dir)
	_, err := Init(r, InitOptions{Feature: "g", Type: "gated"})
	require.NoError(t, err)
	return dir, r
}

func lines(t *testing.T, p string) int {
	t.Helper()
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	return strings.Count(string(b), "\n")
}

// TestShellGuardRunsOnceUnderConcurrentAppends: the guard (1 s) runs before the compare-and-swap
// loop, once, while 4 writers keep appending; the transition lands and no writer fails.
func TestShellGuardRunsOnceUnderConcurrentAppends(t *testing.T) {
	counter := filepath.Join(t.TempDir(), "runs")
	dir, r := guardedRepo(t, "echo run >> "+counter+"; sleep 1")
	before := commits(t, dir, "g")

	stop := make(chan struct{})
	var wg sync.WaitGroup
	var mu sync.Mutex
	var failures []error
	appended := 0
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			wr := reopen(t, dir)
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				_, err := wr.Store.Append("g", wr.Projector(), workflow.NewEvent{Type: "team.note", Data: map[string]int{"writer": w, "i": i}})
				mu.Lock()
				if err != nil {
					failures = append(failures, err)
				} else {
					appended++
				}
				mu.Unlock()
			}
		}(w)
	}
	res, err := Run(r, "g", workflow.TransitionTo{Phase: "done"})
	close(stop)
	wg.Wait()
	require.NoError(t, err)
	assert.Equal(t, "done", res.State.Phase)
	assert.Equal(t, 1, lines(t, counter), "the shell guard ran once")
	assert.Empty(t, failures, "no writer failed")
	assert.Greater(t, appended, 4, "the writers appended while the guard ran")
	assert.Equal(t, before+appended+1, commits(t, dir, "g"))
}

// TestFactsGatheredAgainWhenTheTipMoves: a verdict is only reused on the branch tip it was read
// on. The guard's first run moves the tip (as a push during a long guard would): the call gathers
// again, and the transition is decided on the second run's verdict.
func TestFactsGatheredAgainWhenTheTipMoves(t *testing.T) {
	counter := filepath.Join(t.TempDir(), "runs")
	dir, r := guardedRepo(t, "n=$(cat "+counter+" 2>/dev/null | wc -l); echo run >> "+counter+"; if [ $n -eq 0 ]; then git update-ref refs/heads/main $(git commit-tree -p main -m moved main^{tree}); fi")
	tip := gittest.Git(t, dir, "", "rev-parse", "main")
	res, err := Run(r, "g", workflow.TransitionTo{Phase: "done"})
	require.NoError(t, err)
	assert.Equal(t, "done", res.State.Phase)
	assert.NotEqual(t, tip, gittest.Git(t, dir, "", "rev-parse", "main"))
	assert.Equal(t, 2, lines(t, counter), "gathered again after the tip moved, once")
}

// TestFactsThatNeverSettleFailAsConcurrent: when every gathering finds the tip moved again, the
// call gives up after engine.MaxGathers as a concurrent update (exit 5) rather than run the guard inside
// the write loop, and writes nothing.
func TestFactsThatNeverSettleFailAsConcurrent(t *testing.T) {
	counter := filepath.Join(t.TempDir(), "runs")
	dir, r := guardedRepo(t, "echo run >> "+counter+"; git update-ref refs/heads/main $(git commit-tree -p main -m moved main^{tree})")
	head := gittest.Git(t, dir, "", "rev-parse", "refs/exarchos/g")
	_, err := Run(r, "g", workflow.TransitionTo{Phase: "done"})
	require.ErrorIs(t, err, gitstore.ErrConcurrent)
	assert.Equal(t, engine.MaxGathers, lines(t, counter))
	assert.Equal(t, head, gittest.Git(t, dir, "", "rev-parse", "refs/exarchos/g"))
}

// TestJournalLossDetected: denials journaled by the hook and deleted before the next write are
// not silently gone. The counter next to the journal numbers every line and the log records what
// each flush covered, so deleting the journal (or the journal and its counter) shows as "denials
// lost" in audit and fsck; a flush redone after a crash and concurrent denials do not.
func TestJournalLossDetected(t *testing.T) {
	_, r := newRepo(t, "main")
	_, err := Init(r, InitOptions{Feature: "f", Type: "feature"})
	require.NoError(t, err)
	deny := func(id string) {
		require.NoError(t, r.hookRuntime().Journal("f", workflow.NewEvent{ID: id, Type: workflow.EventToolDenied, Data: map[string]string{"tool": "Edit"}}))
	}
	set := func(v string) {
		_, err := Set(r, SetOptions{Feature: "f", Assignments: []string{"owner=\"" + v + "\""}})
		require.NoError(t, err)
	}
	lost := func() []hookrun.JournalLoss {
		a, err := views.ShowAudit(r.Hook(), views.AuditOptions{Feature: "f"})
		require.NoError(t, err)
		return a.DenialsLost
	}
	fsckLost := func() []string {
		res, err := views.Fsck(r.Hook(), views.FsckOptions{Feature: "f"})
		require.NoError(t, err)
		var out []string
		for _, p := range res.Problems {
			out = append(out, p.Message)
		}
		return out
	}

	// Clean: denials flushed by a write, concurrent denials, then by audit.
	deny("d-1")
	deny("d-2")
	set("a")
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() { defer wg.Done(); deny(fmt.Sprintf("c-%d", i)) }()
	}
	wg.Wait()
	assert.Empty(t, lost())
	assert.Empty(t, fsckLost())

	// Deny, delete the journal file, next write: audit and fsck show the loss.
	deny("d-3")
	deny("d-4")
	require.NoError(t, os.Remove(r.hookRuntime().JournalPath("f")))
	set("b")
	l := lost()
	require.Len(t, l, 1)
	assert.Contains(t, l[0].Message, "journal lines 11-12 were missing")
	f := fsckLost()
	require.Len(t, f, 1)
	assert.Contains(t, f[0], "denials lost: journal lines 11-12")

	// The journal and its counter deleted: the next denial is numbered 1 again, behind the log.
	deny("d-5")
	require.NoError(t, os.Remove(r.hookRuntime().JournalPath("f")))
	require.NoError(t, os.Remove(r.hookRuntime().JournalCounterPath("f")))
	deny("d-6")
	set("c")
	l = lost()
	require.Len(t, l, 2)
	assert.Contains(t, l[1].Message, "counter went back to 1 after 12 had been flushed")

	// A flush redone after a crash (appended, files and counter not yet updated) is no loss.
	deny("d-7")
	b, err := r.hookRuntime().Journaled("f")
	require.NoError(t, err)
	_, err = r.Store.Append("f", r.Projector(), b.Events...)
	require.NoError(t, err)
	deny("d-8")
	set("d")
	assert.Len(t, lost(), 2, "a redone flush is not a loss")
	assert.Len(t, fsckLost(), 2)

	// The flush record is the engine's: `event` refuses it.
	_, err = AppendEvent(r, EventOptions{Feature: "f", Type: workflow.EventHookJournalFlushed, Data: `{"from":1,"to":1}`})
	require.Error(t, err)
}

// TestJournalConcurrentFlushesLoseNothing: denials journaled while other processes flush (each
// flush moving the journal aside, appending, then removing it) are all appended, and no flush
// reports a loss that did not happen.
func TestJournalConcurrentFlushesLoseNothing(t *testing.T) {
	_, r := newRepo(t, "main")
	_, err := Init(r, InitOptions{Feature: "f", Type: "feature"})
	require.NoError(t, err)
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 10 {
				require.NoError(t, r.hookRuntime().Journal("f", workflow.NewEvent{ID: fmt.Sprintf("d-%d-%d", w, i), Type: workflow.EventToolDenied, Data: map[string]string{"tool": "Edit"}}))
			}
		}()
	}
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 5 {
				r.hookRuntime().FlushJournal("f")
			}
		}()
	}
	wg.Wait()
	a, err := views.ShowAudit(r.Hook(), views.AuditOptions{Feature: "f"})
	require.NoError(t, err)
	assert.Empty(t, a.DenialsLost)
	denied := 0
	for _, e := range a.Entries {
		if e.Type == workflow.EventToolDenied {
			denied++
		}
	}
	assert.Equal(t, 40, denied)
}
