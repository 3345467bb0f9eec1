package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// hostile are values an agent may put in any string argument of a tool: each would be an option,
// or the end of the options, were it handed to the CLI as a bare word.
var hostile = []string{"--human", "-h", "--json=false", "--resolve=x", "--", " --human", "a\nb", strings.Repeat("a", 10000)}

// inMemorySession is the server over in-memory transports, its tools running cli.
func inMemorySession(t *testing.T, cli string) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := New(cli, "test").Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// filler is a plain value for an argument of the given JSON Schema.
func filler(prop map[string]any) any {
	types, _ := prop["type"].(string)
	if types == "" {
		if ts, ok := prop["type"].([]any); ok && len(ts) > 0 {
			types, _ = ts[0].(string)
		}
	}
	switch types {
	case "string":
		return "x1"
	case "integer", "number":
		return 1
	case "boolean":
		return false
	case "array":
		if items, _ := prop["items"].(map[string]any); items != nil && items["type"] == "string" {
			return []any{"x1"}
		}
		return []any{}
	case "object":
		return map[string]any{}
	}
	return nil
}

// TestToolArgumentsNeverBecomeFlags: for every tool and every string argument (and every string
// in a string array), each hostile value either is refused before any process runs, with an error
// naming the argument, or reaches the CLI as a flag's --name=value or after the "--" that ends the
// options; never as a bare word among the options.
func TestToolArgumentsNeverBecomeFlags(t *testing.T) {
	dir := t.TempDir()
	argvFile := filepath.Join(dir, "argv")
	cli := filepath.Join(dir, "fake-cli")
	// The fake CLI records its arguments, NUL-separated, and answers a JSON object.
	if err := os.WriteFile(cli, []byte("#!/bin/sh\nprintf '%s\\0' \"$@\" > \"$ARGV_FILE\"\necho '{}'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("ARGV_FILE", argvFile)
	s := inMemorySession(t, cli)
	ctx := context.Background()
	tools, err := s.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, tl := range tools.Tools {
		schema, _ := json.Marshal(tl.InputSchema)
		var sch struct {
			Properties map[string]map[string]any `json:"properties"`
			Required   []string                  `json:"required"`
		}
		if err := json.Unmarshal(schema, &sch); err != nil {
			t.Fatal(err)
		}
		for field, prop := range sch.Properties {
			typ, _ := prop["type"].(string)
			items, _ := prop["items"].(map[string]any)
			isStrings := typ == "array" && items != nil && items["type"] == "string"
			if typ != "string" && !isStrings {
				continue
			}
			for _, v := range hostile {
				in := map[string]any{}
				for _, r := range sch.Required {
					in[r] = filler(sch.Properties[r])
				}
				if tl.Name == "review" {
					in["dimension"] = "spec" // a dimension (or resolve) is required
				}
				if isStrings {
					in[field] = []any{"x1", v}
				} else {
					in[field] = v
				}
				os.Remove(argvFile)
				res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: tl.Name, Arguments: in})
				if err != nil {
					t.Errorf("%s %s=%.20q: %v", tl.Name, field, v, err)
					continue
				}
				checked++
				raw, readErr := os.ReadFile(argvFile)
				if res.IsError {
					text := res.Content[0].(*mcp.TextContent).Text
					if !strings.Contains(text, `"message":"`+tl.Name+": "+field) {
						t.Errorf("%s %s=%.20q: refused without naming the argument: %.200s", tl.Name, field, v, text)
					}
					if !errors.Is(readErr, os.ErrNotExist) {
						t.Errorf("%s %s=%.20q: refused, yet the CLI ran: %q", tl.Name, field, v, raw)
					}
					continue
				}
				if readErr != nil {
					t.Fatalf("%s %s=%.20q: %v", tl.Name, field, v, readErr)
				}
				argv := strings.Split(strings.TrimSuffix(string(raw), "\x00"), "\x00")
				end := slices.Index(argv, "--")
				if end < 0 {
					t.Errorf("%s %s=%.20q: no -- ends the options: %q", tl.Name, field, v, argv)
					continue
				}
				if tl.Name == "validate" && field == "command" {
					if !slices.Equal(argv[end+1:], []string{"x1", v}) {
						t.Errorf("validate command=%.20q: the command after -- is %q", v, argv[end+1:])
					}
					continue
				}
				for _, a := range argv[:end] {
					if a == v || a == strings.TrimSpace(v) {
						t.Errorf("%s %s=%.20q: the value is a bare word among the options: %q", tl.Name, field, v, argv[:end])
					}
					if !strings.HasPrefix(a, "-") && strings.Contains(a, "x1") {
						t.Errorf("%s %s=%.20q: a positional value before --: %q", tl.Name, field, v, argv[:end])
					}
				}
				if !slices.Contains(argv[:end], "--json") {
					t.Errorf("%s: --json is not among the options: %q", tl.Name, argv[:end])
				}
			}
		}
	}
	if checked < 100 {
		t.Errorf("only %d calls checked: the tools' schemas were not read", checked)
	}
}

// TestHostileArgumentsRecordNothing runs the real git-exarchos in a scratch repository: a hostile
// positional value is refused with an error naming the argument and nothing is recorded (the
// workflow refs stay as they were), and a flag's value that starts with "-" is recorded as given.
func TestHostileArgumentsRecordNothing(t *testing.T) {
	bin := builtBinary(t)
	env := mcpEnv(t, bin)
	a, _ := twinRepos(t, env)
	s := mcpSession(t, bin, a, env)
	ctx := context.Background()
	call := func(name string, in map[string]any) (bool, string) {
		t.Helper()
		res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: in})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return res.IsError, res.Content[0].(*mcp.TextContent).Text
	}
	refs := func() string {
		cmd := exec.Command("git", "for-each-ref", "refs/exarchos")
		cmd.Dir, cmd.Env = a, env
		out, err := cmd.Output()
		if err != nil {
			t.Fatal(err)
		}
		return string(out)
	}
	if failed, out := call("workflow_init", map[string]any{"feature": "login", "type": "feature"}); failed {
		t.Fatal(out)
	}
	before := refs()
	long := strings.Repeat("a", 10000)
	for _, c := range []struct {
		tool, arg string
		in        map[string]any
	}{
		{"workflow_init", "feature", map[string]any{"feature": "--human", "type": "feature"}},
		{"workflow_init", "feature", map[string]any{"feature": "-h", "type": "feature"}},
		{"workflow_transition", "phase", map[string]any{"feature": "login", "phase": "--json=false"}},
		{"workflow_transition", "feature", map[string]any{"feature": "--", "phase": "plan"}},
		{"workflow_cancel", "feature", map[string]any{"feature": "--human"}},
		{"workflow_set", "assignments[0]", map[string]any{"feature": "login", "assignments": []string{"--inline", "artifacts.design=x"}}},
		{"review", "dimension", map[string]any{"feature": "login", "dimension": "--finding=high:docs/design.md:1:x", "verdict": "fail"}},
		{"review", "feature", map[string]any{"feature": "--resolve=x", "dimension": "spec", "verdict": "pass"}},
		{"event_append", "type", map[string]any{"feature": "login", "type": long}},
		{"event_append", "type", map[string]any{"feature": "login", "type": " --human"}},
		{"task_add", "task", map[string]any{"feature": "login", "task": "a\nb"}},
		{"task_add", "task", map[string]any{"feature": "login", "task": long}},
		{"workflow_init", "branch", map[string]any{"feature": "other", "type": "feature", "branch": "--orphan"}},
		{"task_start", "base", map[string]any{"feature": "login", "task": "t1", "worktree": true, "base": "--output=x"}},
		{"validate", "feature", map[string]any{"feature": "--json", "command": []string{"true"}}},
	} {
		failed, out := call(c.tool, c.in)
		if !failed || !strings.Contains(out, `"message":"`+c.tool+": "+c.arg) {
			t.Errorf("%s %v: not refused naming %s: %.300s", c.tool, c.in, c.arg, out)
		}
	}
	if after := refs(); after != before {
		t.Errorf("hostile arguments recorded something:\nbefore %s\nafter  %s", before, after)
	}
	// A flag's value is taken as given, whatever it starts with.
	if failed, out := call("checkpoint", map[string]any{"feature": "login", "note": "--human"}); failed {
		t.Fatalf("checkpoint with the note --human: %s", out)
	}
	_, out := call("event_query", map[string]any{"feature": "login", "types": []string{"checkpoint.recorded"}})
	if !strings.Contains(out, `"note":"--human"`) {
		t.Errorf("the note --human was not recorded as the note: %.500s", out)
	}
}
