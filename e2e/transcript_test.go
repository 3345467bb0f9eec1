package e2e

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

var update = flag.Bool("update", false, "rewrite the files the e2e tests compare (docs/claude-code-transcript.md, the hook payload fixture)")

// transcript renders a run's stream as the documentation shows it: the prompt, each tool call of
// the agent and its subagents with the first line of what came back, the human's steps where they
// happened (human maps a tool call id to the lines of the steps taken before it), and what the
// agents said.
func transcript(e *Env, prompt string, res *Result, human map[string][]string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "you    > %s\n", prompt)
	who := map[string]string{} // tool_use_id of a Task call → the agent it started
	for _, ev := range res.Events {
		msg, _ := ev["message"].(map[string]any)
		blocks, _ := msg["content"].([]any)
		parent, _ := ev["parent_tool_use_id"].(string)
		actor := "agent"
		if a, ok := who[parent]; ok {
			actor = "  " + a
		}
		for _, raw := range blocks {
			bl, _ := raw.(map[string]any)
			switch {
			case ev["type"] == "assistant" && bl["type"] == "tool_use":
				id, _ := bl["id"].(string)
				for _, h := range human[id] {
					fmt.Fprintf(&b, "%s\n", h)
				}
				in, _ := bl["input"].(map[string]any)
				name, _ := bl["name"].(string)
				switch name {
				case "Bash":
					fmt.Fprintf(&b, "%-6s $ %s\n", actor, in["command"])
				case "Task", "Agent":
					sub := strings.TrimPrefix(fmt.Sprint(in["subagent_type"]), "exarchos:")
					who[id] = sub
					fmt.Fprintf(&b, "%-6s ⇢ %s agent: %s\n", actor, sub, in["description"])
				case "Write", "Edit", "MultiEdit":
					fmt.Fprintf(&b, "%-6s ✎ %s %s\n", actor, name, in["file_path"])
				default:
					fmt.Fprintf(&b, "%-6s ⚙ %s\n", actor, name)
				}
			case ev["type"] == "user" && bl["type"] == "tool_result":
				text := firstLine(normalize(e, contentText(bl["content"]))) // truncated after the paths are shortened: they differ in length
				if id, _ := bl["tool_use_id"].(string); who[id] != "" {
					continue // the subagent's report is its last words below
				}
				mark := "  "
				if isErr, _ := bl["is_error"].(bool); isErr {
					mark = "✗ "
				}
				fmt.Fprintf(&b, "%-6s   %s%s\n", "", mark, text)
			case ev["type"] == "assistant" && bl["type"] == "text":
				if t, _ := bl["text"].(string); t != "" {
					fmt.Fprintf(&b, "%-6s : %s\n", actor, firstLine(normalize(e, t)))
				}
			}
		}
	}
	return normalize(e, b.String())
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i] + " …"
	}
	if len(s) > 160 {
		s = s[:157] + "…"
	}
	return s
}

var (
	hexRun = regexp.MustCompile(`\b[0-9a-f]{7,64}\b`)
	hookID = regexp.MustCompile(`(PreToolUse|PostToolUse):(\w+) hook error: `)
)

// normalize takes out what differs between runs: the temporary directories, commit and object
// ids, the client's own prefix on a hook's refusal.
func normalize(e *Env, s string) string {
	s = strings.ReplaceAll(s, e.Dir, "~/app")
	s = strings.ReplaceAll(s, e.Remote, "~/origin.git")
	s = hexRun.ReplaceAllString(s, "…")
	return hookID.ReplaceAllString(s, "$1 refused: ")
}

// compareDoc compares a generated document with the committed one (rewriting it with -update).
func compareDoc(path, got string) error {
	path = filepath.Join(moduleRoot, path)
	if *update {
		return os.WriteFile(path, []byte(got), 0o644)
	}
	want, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if string(want) != got {
		return fmt.Errorf("%s is not what the test produced (go test ./e2e -run %s -update rewrites it):\n%s", path, "TestFeatureThroughThePluginInOneSession", got)
	}
	return nil
}
