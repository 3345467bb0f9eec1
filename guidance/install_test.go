package guidance

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestInstallKeepsTheUsersText: the context goes into AGENTS.md between markers, after the user's
// own text, which install, a second install and uninstall never change; a second install changes
// nothing; uninstall removes every file it wrote and the directories that held only them.
func TestInstallKeepsTheUsersText(t *testing.T) {
	root, home := t.TempDir(), t.TempDir()
	agents := filepath.Join(root, "AGENTS.md")
	mine := "# Our project\n\nRun make test before committing.\n"
	if err := os.WriteFile(agents, []byte(mine), 0o644); err != nil {
		t.Fatal(err)
	}
	files, err := Place(Codex, "project", root, home, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	changed, err := Install(files)
	if err != nil || len(changed) != len(files) {
		t.Fatalf("install changed %d of %d files: %v", len(changed), len(files), err)
	}
	b, _ := os.ReadFile(agents)
	if !strings.HasPrefix(string(b), mine) || !strings.Contains(string(b), Begin) || !strings.HasSuffix(string(b), End+"\n") {
		t.Fatalf("AGENTS.md after install:\n%s", b)
	}
	// The user adds text after the section; an upgrade rewrites only the section.
	if err := os.WriteFile(agents, append(b, []byte("\n## Later notes\n")...), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if f.Path == agents {
			f.Body = []byte("an older version's section\n")
			if _, err := Install([]File{f}); err != nil {
				t.Fatal(err)
			}
		}
	}
	files, _ = Place(Codex, "project", root, home, func(string) string { return "" })
	stale := 0
	for _, f := range files {
		if !f.Current() {
			stale++
		}
	}
	if stale != 1 {
		t.Fatalf("%d files stale, want the section only", stale)
	}
	if changed, err := Install(files); err != nil || len(changed) != 1 || changed[0] != agents {
		t.Fatalf("reinstall changed %v, %v", changed, err)
	}
	if changed, _ := Install(files); len(changed) != 0 {
		t.Fatalf("a second install changed %v", changed)
	}
	b, _ = os.ReadFile(agents)
	if !strings.HasPrefix(string(b), mine) || !strings.HasSuffix(string(b), "## Later notes\n") || strings.Count(string(b), Begin) != 1 {
		t.Fatalf("AGENTS.md after the upgrade:\n%s", b)
	}
	if _, err := Uninstall(files); err != nil {
		t.Fatal(err)
	}
	b, _ = os.ReadFile(agents)
	if string(b) != mine+"\n## Later notes\n" {
		t.Fatalf("AGENTS.md after uninstall:\n%q", b)
	}
	if _, err := os.Stat(filepath.Join(root, ".agents")); !os.IsNotExist(err) {
		t.Fatalf(".agents left behind: %v", err)
	}
	// A context file that holds only exarchos's section goes whole.
	files, _ = Place(Qwen, "project", root, home, func(string) string { return "" })
	if _, err := Install(files); err != nil {
		t.Fatal(err)
	}
	if _, err := Uninstall(files); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{filepath.Join(root, "QWEN.md"), filepath.Join(root, ".qwen")} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Fatalf("%s left behind: %v", p, err)
		}
	}
}
