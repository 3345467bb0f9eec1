package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/exarchos/git-exarchos/app"
	"github.com/exarchos/git-exarchos/hooks"
)

// exitContract is the exit code of a script's git exarchos that broke the JSON contract.
const exitContract = 99

// checkedRun is the binary the scripts run: every fix it prints must parse (fixesParse); with --json, stdout must be exactly one JSON object,
// and a non-zero exit must come with {"error":{"exit":<the same code>,…}}. Every --json call in
// every script is checked this way.
func checkedRun(args []string) int {
	if terminal(os.Stdout) { // a terminal is what the command must see (colour, prompts): unchecked
		return dispatch(args, os.Stdin, os.Stdout, os.Stderr)
	}
	var out, errOut bytes.Buffer
	code := dispatch(args, os.Stdin, &out, &errOut)
	os.Stdout.Write(out.Bytes())
	os.Stderr.Write(errOut.Bytes())
	if err := oneObject(out.Bytes(), code); wantsJSON(args) && err != nil {
		fmt.Fprintf(os.Stderr, "JSON CONTRACT BROKEN by %q: %v\n", args, err)
		return exitContract
	}
	if err := fixesParse(out.String() + errOut.String()); err != nil {
		fmt.Fprintf(os.Stderr, "FIX CONTRACT BROKEN by %q: %v\n", args, err)
		return exitContract
	}
	return code
}

// fixLine finds the commands the CLI tells people to run in text output: fixes and next steps.
var fixLine = regexp.MustCompile(`(?m)(?:fix|next): (git .*)$`)

// fixesParse: every fix (a "fix" field in JSON, a "fix:" line in text) is a command the CLI
// accepts, once placeholders (<path>, <url of …>, "…") are filled in.
func fixesParse(output string) error {
	var fixes []string
	var doc any
	if json.Unmarshal([]byte(output), &doc) == nil {
		collectFixes(doc, &fixes)
	} else {
		collectFixes(output, &fixes)
	}
	root, _ := commandTree()
	var steps []string // a fix may chain commands with &&: each of ours must parse
	for _, fix := range fixes {
		steps = append(steps, strings.Split(fix, " && ")...)
	}
	for _, fix := range steps {
		filled := regexp.MustCompile(`<[^>]*>|…`).ReplaceAllString(fix, "x")
		words, err := shellWords(filled)
		if err != nil || len(words) < 2 || words[0] != "git" || words[1] != "exarchos" {
			if strings.HasPrefix(fix, "git exarchos") || err != nil {
				return fmt.Errorf("fix %q: not a command line (%v)", fix, err)
			}
			continue // a human's step ("ask the user to …", "git fetch"), not a command of ours
		}
		if _, err := normalize(root, append([]string{"git-exarchos"}, words[2:]...)); err != nil {
			return fmt.Errorf("fix %q does not parse: %v", fix, err)
		}
	}
	return nil
}

func collectFixes(v any, out *[]string) {
	switch v := v.(type) {
	case string:
		for _, m := range fixLine.FindAllStringSubmatch(v, -1) {
			*out = append(*out, m[1])
		}
	case map[string]any:
		for k, x := range v {
			if s, ok := x.(string); ok && k == "fix" && s != "" {
				*out = append(*out, s)
				continue
			}
			collectFixes(x, out)
		}
	case []any:
		for _, x := range v {
			collectFixes(x, out)
		}
	}
}

// shellWords splits a command line as sh does for the quoting fixes use ('…', "…").
func shellWords(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case ch == ' ' || ch == '\t':
			if inWord {
				words, inWord = append(words, cur.String()), false
				cur.Reset()
			}
		case ch == '\'' || ch == '"':
			end := strings.IndexByte(s[i+1:], ch)
			if end < 0 {
				return nil, fmt.Errorf("unterminated quote")
			}
			cur.WriteString(s[i+1 : i+1+end])
			i += end + 1
			inWord = true
		default:
			cur.WriteByte(ch)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}

// oneObject checks the --json contract (docs/json.md) on one invocation's stdout and exit code.
func oneObject(stdout []byte, code int) error {
	dec := json.NewDecoder(bytes.NewReader(stdout))
	var obj map[string]json.RawMessage
	if err := dec.Decode(&obj); err != nil {
		return fmt.Errorf("stdout is not a JSON object: %v", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return fmt.Errorf("more than one JSON value on stdout")
	}
	if code == exitOK {
		if _, isErr := obj["error"]; isErr {
			return fmt.Errorf("an error object with exit code 0")
		}
		return nil
	}
	var e struct {
		Error *struct {
			Code    string `json:"code"`
			Message string `json:"message"`
			Exit    int    `json:"exit"`
		} `json:"error"`
	}
	if err := json.Unmarshal(stdout, &e); err != nil || e.Error == nil || e.Error.Code == "" {
		return fmt.Errorf("exit %d without an error object with a code", code)
	}
	if e.Error.Exit != code {
		return fmt.Errorf("exit %d but the error object says %d", code, e.Error.Exit)
	}
	return nil
}

// TestJSONEveryCommand: every command is run with --json by some script (so checkedRun checks it)
// both where it succeeds and where it fails.
func TestJSONEveryCommand(t *testing.T) {
	root, _ := commandTree()
	seen := map[string]map[bool]bool{} // command path → succeeded?
	files, _ := filepath.Glob("testdata/script/*.txtar")
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(src), "\n") {
			f := strings.Fields(line)
			ok := true
			switch {
			case len(f) > 3 && f[0] == "exec" && f[1] == "git":
				f = f[2:]
			case len(f) > 4 && f[0] == "!" && f[1] == "exec" && f[2] == "git":
				f, ok = f[3:], false
			case len(f) > 4 && f[0] == "exits" && f[2] == "git":
				f, ok = f[3:], f[1] == "0"
			default:
				continue
			}
			for len(f) > 1 && f[0] == "-C" {
				f = f[2:]
			}
			if len(f) == 0 || f[0] != "exarchos" || !wantsJSON(append([]string{"git-exarchos"}, f[1:]...)) {
				continue
			}
			path := commandPath(root, f[1:])
			if seen[path] == nil {
				seen[path] = map[bool]bool{}
			}
			seen[path][ok] = true
		}
	}
	var missing []string
	for _, leaf := range leaves(root, "") {
		cases := []bool{true, false}
		if l, found := strings.CutSuffix(leaf, " ok"); found {
			leaf, cases = l, []bool{true}
		}
		for _, ok := range cases {
			if !seen[leaf][ok] {
				missing = append(missing, fmt.Sprintf("%s (%s)", leaf, map[bool]string{true: "success", false: "error"}[ok]))
			}
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("no script runs these with --json:\n  %s", strings.Join(missing, "\n  "))
	}
}

// commandPath is the command a command line runs ("task add").
func commandPath(cmds []*cli.Command, args []string) string {
	var path []string
	for _, a := range args {
		c := find(cmds, a)
		if c == nil {
			break
		}
		path, cmds = append(path, c.Name), c.Commands
	}
	return strings.Join(path, " ")
}

// leaves are the runnable commands, less the hidden completion helper, git's hook protocol (no
// --json: git reads its exit code) and Claude Code's (hook claude always exits 0: checked in success
// and with malformed input).
func leaves(cmds []*cli.Command, prefix string) []string {
	var out []string
	for _, c := range cmds {
		name := strings.TrimSpace(prefix + " " + c.Name)
		switch {
		case c.Hidden || name == "hook git":
		case name == "hook claude", strings.HasPrefix(name, "hook ") && hooks.IsClient(c.Name):
			out = append(out, name+" ok")
		case len(c.Commands) > 0:
			out = append(out, leaves(c.Commands, name)...)
		default:
			out = append(out, name)
		}
	}
	return out
}

// TestListJSONIsEncodingJSON: list's JSON, written row by row in chunks, is byte for byte what
// encoding/json writes of {"workflows": [...]}, for no rows, one, and enough to fill many chunks.
func TestListJSONIsEncodingJSON(t *testing.T) {
	for _, n := range []int{0, 1, 3000} {
		list := &app.ListResult{Workflows: []app.WorkflowSummary{}}
		for i := 0; i < n; i++ {
			list.Workflows = append(list.Workflows, app.WorkflowSummary{Feature: fmt.Sprintf("wf-%d", i), Head: strings.Repeat("ab", 20), Phase: "ideate",
				Type: "feature", Branch: "feature/é\"<x>", Events: int64(i), Updated: time.Unix(int64(1700000000+i), 0).UTC()})
		}
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(list); err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		if err := list.WriteJSON(&got); err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() {
			t.Fatalf("%d rows: got %d bytes, want %d:\n%.300s\nwant\n%.300s", n, got.Len(), want.Len(), got.String(), want.String())
		}
	}
}
