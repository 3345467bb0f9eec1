package app

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/exarchos/git-exarchos/hookrun"
	"github.com/exarchos/git-exarchos/internal/gittest"
	"github.com/exarchos/git-exarchos/project"
)

// TestInputBounds: --data and `set` input over a documented bound is refused as a usage error
// (exit 2) naming the limit, and nothing is written.
func TestInputBounds(t *testing.T) {
	dir, r := newSagaRepo(t)
	head := gittest.Git(t, dir, "", "rev-parse", "refs/exarchos/login")
	usage := func(t *testing.T, err error, want string) {
		t.Helper()
		var u *project.UsageError
		if !errors.As(err, &u) || !strings.Contains(u.Msg, want) {
			t.Fatalf("want a usage error naming %q, got %v", want, err)
		}
		if got := gittest.Git(t, dir, "", "rev-parse", "refs/exarchos/login"); got != head {
			t.Fatal("a refused input was written")
		}
	}
	deep := strings.Repeat("[", 10000) + strings.Repeat("]", 10000)
	_, err := AppendEvent(r, EventOptions{Feature: "login", Type: "note.added", Data: deep})
	usage(t, err, "more than 64 levels")
	_, err = AppendEvent(r, EventOptions{Feature: "login", Type: "note.added", Data: `{"text":"caf` + "\xe9" + `"}`})
	usage(t, err, "not valid UTF-8")
	_, err = AppendEvent(r, EventOptions{Feature: "login", Type: "note.added", Data: `"` + strings.Repeat("x", 300<<10) + `"`})
	usage(t, err, "over the limit of 256 KiB")
	// Brackets inside strings are not nesting.
	_, err = AppendEvent(r, EventOptions{Feature: "login", Type: "note.added", Data: `{"text":"` + strings.Repeat("[{", 100) + `\"]"}`})
	require.NoError(t, err)
	head = gittest.Git(t, dir, "", "rev-parse", "refs/exarchos/login")

	_, err = Set(r, SetOptions{Feature: "login", Assignments: []string{strings.Repeat("a.", 59999) + "a=1"}})
	usage(t, err, "more than 32 segments")
	_, err = Set(r, SetOptions{Feature: "login", Assignments: []string{strings.Repeat("a.", 999) + "a=1"}})
	usage(t, err, "more than 32 segments")
	_, err = Set(r, SetOptions{Feature: "login", Assignments: []string{"owner=" + strings.Repeat("{\"a\":", 100) + "1" + strings.Repeat("}", 100)}})
	usage(t, err, "more than 64 levels")
	_, err = Set(r, SetOptions{Feature: "login", Assignments: []string{"owner=caf\xe9"}})
	usage(t, err, "not valid UTF-8")
	_, err = Set(r, SetOptions{Feature: "login", Assignments: []string{strings.Repeat("a.", 31) + "a=1"}})
	require.NoError(t, err, "32 segments")
}

// TestHookStdinBound: a hook payload over 16 MiB is read no further than the limit, and refused
// with a message naming the limit: the hook fails closed (hookrun.ErrHookBlock, exit 2, which Claude Code
// reads as a block; issue 14).
func TestHookStdinBound(t *testing.T) {
	var out, errOut strings.Builder
	huge := io.LimitReader(zeros{}, 1<<40) // a runaway pipe: only 16 MiB + 1 may be read
	err := hookrun.ClaudeHook(hookrun.ClaudeHookOptions{Stdin: huge, Stdout: &out, Stderr: &errOut})
	if !errors.Is(err, hookrun.ErrHookBlock) {
		t.Fatalf("err = %v, want hookrun.ErrHookBlock", err)
	}
	if !strings.Contains(errOut.String(), "over the limit of 16 MiB") || !strings.Contains(err.Error(), "16 MiB") {
		t.Fatalf("stdout %q, stderr %q", out.String(), errOut.String())
	}
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = ' '
	}
	return len(p), nil
}
