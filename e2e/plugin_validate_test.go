package e2e

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The plugin passes the client's own validation with the plugin directory's submission checks,
// warnings included (README, license, icon, manifests, skills, agents, commands, hooks, MCP), and
// the repository's marketplace manifest, which `/plugin marketplace add` reads, validates too.
func TestPluginValidates(t *testing.T) {
	claude := claudePath(t)
	for _, args := range [][]string{
		{"plugin", "validate", "--profile", "directory", "--strict", filepath.Join(moduleRoot, "claude-plugin")},
		{"plugin", "validate", "--strict", moduleRoot},
	} {
		cmd := exec.Command(claude, args...)
		cmd.Env = []string{"HOME=" + t.TempDir(), "PATH=" + pathWithNode(), "DISABLE_TELEMETRY=1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1"}
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "Validation passed") {
			t.Errorf("claude %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
}

func pathWithNode() string {
	node, _ := exec.LookPath("node")
	return filepath.Dir(node) + ":/usr/local/bin:/usr/bin:/bin"
}
