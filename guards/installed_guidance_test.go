package guards

import "testing"

// TestGuidanceIsInstalled: the guidance `hooks install --codex|--qwen` writes into a worktree is an
// installed file (so a planning phase does not count it while it holds what was written), under
// exarchos's own names only: a file beside it, or a path that climbs out, is not.
func TestGuidanceIsInstalled(t *testing.T) {
	for _, c := range []struct {
		path string
		fix  string
	}{
		{".agents/skills/exarchos-feature/SKILL.md", "git exarchos hooks install --codex"},
		{"AGENTS.md", "git exarchos hooks install --codex"},
		{"./QWEN.md", "git exarchos hooks install --qwen"},
		{".qwen/commands/exarchos/feature.toml", "git exarchos hooks install --qwen"},
		{".qwen/skills/exarchos-guide-tdd/SKILL.md", "git exarchos hooks install --qwen"},
		{".codex/hooks.json", "git exarchos hooks install --codex"},
		{".agents/skills/mine/SKILL.md", ""},
		{".qwen/commands/deploy.toml", ""},
		{"src/AGENTS.md", ""},
		{"AGENTS.md.bak", ""},
		{".agents/skills/exarchos-x/../../../src/a.go", ""},
	} {
		if got := IsInstalledFile(c.path); got != (c.fix != "") {
			t.Errorf("IsInstalledFile(%q) = %v", c.path, got)
		}
		if got := InstallFix(c.path); got != c.fix {
			t.Errorf("InstallFix(%q) = %q, want %q", c.path, got, c.fix)
		}
	}
}
