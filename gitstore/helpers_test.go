package gitstore

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/exarchos/git-exarchos/gitrepo"
	"github.com/exarchos/git-exarchos/internal/agentenv"
	"github.com/exarchos/git-exarchos/internal/gittest"
	"github.com/exarchos/git-exarchos/workflow"
)

// countProjector is a small deterministic projector: the number of events per type and a phase
// taken from "phase" events.
type countProjector struct{ version string }

type countState struct {
	Phase  string         `json:"phase"`
	Count  int64          `json:"count"`
	ByType map[string]int `json:"byType"`
}

func (p countProjector) Version() string {
	if p.version == "" {
		return "count/1"
	}
	return p.version
}

func (p countProjector) Project(prev json.RawMessage, events []workflow.Event) (json.RawMessage, error) {
	s := countState{ByType: map[string]int{}}
	if len(prev) > 0 {
		if err := json.Unmarshal(prev, &s); err != nil {
			return nil, err
		}
	}
	for _, e := range events {
		s.Count++
		s.ByType[e.Type]++
		if e.Type == "phase" {
			var to string
			e.DecodeData(&to)
			s.Phase = to
		}
	}
	return json.Marshal(s)
}

var proj = countProjector{}

func openStore(t testing.TB, dir string) *Store {
	t.Helper()
	s, err := Open(dir)
	require.NoError(t, err)
	return s
}

func mustCreate(t testing.TB, s *Store, feature string) {
	t.Helper()
	_, err := s.Create(feature, proj, []workflow.NewEvent{{Type: "phase", Data: "start"}})
	require.NoError(t, err)
}

func appendN(t testing.TB, s *Store, feature string, n int) {
	t.Helper()
	for i := 0; i < n; {
		batch := []workflow.NewEvent{}
		for j := 0; j < 100 && i < n; j++ {
			batch = append(batch, workflow.NewEvent{Type: "note", Data: map[string]int{"i": i}})
			i++
		}
		_, err := s.Append(feature, proj, batch...)
		require.NoError(t, err)
	}
}

// TestMain lets the test binary act as a writer process for the multi-process tests.
func TestMain(m *testing.M) {
	agentenv.ClearProcess() // the same inside an agent's session as in CI
	if mode := os.Getenv("GITSTORE_HELPER"); mode != "" {
		os.Exit(helperMain(mode))
	}
	os.Exit(gittest.RunIsolated(m))
}

// helperMain appends GITSTORE_N events, one call each, to GITSTORE_FEATURE in the current directory.
func helperMain(mode string) int {
	s, err := Open(".")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	n, _ := strconv.Atoi(os.Getenv("GITSTORE_N"))
	feature := os.Getenv("GITSTORE_FEATURE")
	switch mode {
	case "hold-lock": // take the ref's lock as a writer does, then wait to be killed
		if _, err := gitrepo.LockRef(s.loc.CommonDir, RefName(feature)); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		fmt.Println("locked")
		time.Sleep(time.Hour)
	case "hold-tmp": // start writing an object as a writer does, then wait to be killed
		dir := filepath.Join(s.loc.CommonDir, "objects", "ab")
		os.MkdirAll(dir, 0o777)
		f, err := os.CreateTemp(dir, gitrepo.TmpObjectPattern())
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		f.WriteString("partial")
		fmt.Println(f.Name())
		time.Sleep(time.Hour)
	}
	for i := 0; i < n; i++ {
		ev := workflow.NewEvent{Type: "note", Data: map[string]any{"writer": os.Getpid(), "i": i}}
		if mode == "keyed" {
			ev.ID = fmt.Sprintf("key-%d", i)
		}
		if _, err := s.Append(feature, proj, ev); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		if mode == "slow" {
			fmt.Println(i) // lets the killer see progress
		}
	}
	return 0
}

func helperCmd(t testing.TB, dir, mode, feature string, n int) *exec.Cmd {
	exe, err := os.Executable()
	require.NoError(t, err)
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Dir = dir
	cmd.Env = append(gitrepo.CleanGitEnv(), "GITSTORE_HELPER="+mode, "GITSTORE_FEATURE="+feature, fmt.Sprintf("GITSTORE_N=%d", n))
	return cmd
}

// mustHash parses an object id printed by git.
func mustHash(s string) gitrepo.Hash {
	h, ok := gitrepo.ParseHash(strings.TrimSpace(s))
	if !ok {
		panic("not an object id: " + s)
	}
	return h
}
