package main

import (
	"bytes"
	"testing"

	"github.com/exarchos/git-exarchos/internal/gittest"
)

// TestStatusJSONFastPathIsRun: `status --json` answered before the command tree is built prints
// what the command tree prints, byte for byte and with the same exit code, for every shape it
// takes (feature given or not, either order) and for errors (an unknown feature, a bad name, no
// repository); the shapes it leaves alone (--fields, text, a second argument, help) go to run.
func TestStatusJSONFastPathIsRun(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"config", "user.name", "T"}, {"config", "user.email", "t@example.com"}, {"commit", "-q", "--allow-empty", "-m", "c"}} {
		gittest.Git(t, dir, "", args...)
	}
	call := func(f func([]string, *bytes.Buffer) int, args ...string) (string, int) {
		var out bytes.Buffer
		code := f(append([]string{"git-exarchos"}, args...), &out)
		return out.String(), code
	}
	fast := func(args []string, out *bytes.Buffer) int {
		code, ok := statusJSON(args, out)
		if !ok {
			t.Fatalf("%q not answered by the fast path", args)
		}
		return code
	}
	full := func(args []string, out *bytes.Buffer) int { return run(args, nil, out, &bytes.Buffer{}) }

	notStarted := [][]string{{"status", "--json"}, {"status", "--json", "login"}}
	for _, args := range notStarted {
		got, code := call(fast, args...)
		want, wantCode := call(full, args...)
		if got != want || code != wantCode || code == exitOK {
			t.Errorf("%q before init: fast %d %q, run %d %q", args, code, got, wantCode, want)
		}
	}
	if _, code := call(full, "init", "login", "--type", "feature"); code != exitOK {
		t.Fatalf("init: exit %d", code)
	}
	if _, code := call(full, "set", "login", "artifacts.design=docs/<a&b>.md"); code != exitOK {
		t.Fatalf("set: exit %d", code)
	}
	for _, args := range [][]string{{"status", "--json"}, {"status", "--json", "login"}, {"status", "login", "--json"},
		{"status", "--json", "missing"}, {"status", "--json", "Bad Name"}} {
		got, code := call(fast, args...)
		want, wantCode := call(full, args...)
		if got != want || code != wantCode {
			t.Errorf("%q: fast %d %q, run %d %q", args, code, got, wantCode, want)
		}
	}
	for _, args := range [][]string{{"status"}, {"status", "login"}, {"status", "--json", "--fields", "phase"}, {"status", "--json", "a", "b"},
		{"status", "--json", "--json"}, {"status", "--json", "-h"}, {"status", "help", "--json"}, {"list", "--json"}, {"status", "--format", "mermaid", "--json"}} {
		if _, ok := statusJSON(append([]string{"git-exarchos"}, args...), &bytes.Buffer{}); ok {
			t.Errorf("%q was answered by the fast path; it is run's", args)
		}
	}
	t.Chdir(t.TempDir()) // no repository
	got, code := call(fast, "status", "--json")
	want, wantCode := call(full, "status", "--json")
	if got != want || code != wantCode || code == exitOK {
		t.Errorf("outside a repository: fast %d %q, run %d %q", code, got, wantCode, want)
	}
}
