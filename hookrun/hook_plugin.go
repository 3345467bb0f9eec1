package hookrun

import (
	"cmp"
	"fmt"
	"os"

	"github.com/exarchos/git-exarchos/gitrepo"
	"github.com/exarchos/git-exarchos/hooks"
	"github.com/exarchos/git-exarchos/project"
)

// pluginStandsAside reports whether the handler the plugin started should answer nothing because
// a settings file of the project (or the user) installs the handler for the same event: Claude Code
// runs both, and the settings' one, which the user installed on purpose, decides. The project is
// CLAUDE_PROJECT_DIR, which Claude Code gives every hook, else the working directory.
func pluginStandsAside(event string) bool {
	root := os.Getenv("CLAUDE_PROJECT_DIR")
	if root == "" {
		root, _ = os.Getwd()
	}
	home, _ := os.UserHomeDir()
	return hooks.SettingsRunHandler(root, home, event, isThisHandler)
}

// isThisHandler reports whether program (a settings entry's path to git-exarchos) is the binary
// now running: an entry naming another file may run anything.
func isThisHandler(program string) bool {
	self, err := os.Executable()
	if err != nil {
		return false
	}
	a, err := os.Stat(self)
	if err != nil {
		return false
	}
	b, err := os.Stat(program)
	return err == nil && os.SameFile(a, b)
}

// pluginEnabledIn is the first settings file (project, local, user) that enables the exarchos
// plugin, or "".
func PluginEnabledIn(dir string) string {
	for _, scope := range hooks.Scopes {
		path, err := SettingsPath(dir, scope)
		if err != nil {
			continue
		}
		if s, err := hooks.LoadSettings(path); err == nil && s.PluginEnabled() {
			return path
		}
	}
	return ""
}

// SettingsPath is the settings file of a scope; project and local need the repository.
func SettingsPath(dir, scope string) (string, error) {
	if scope != hooks.ScopeProject && scope != hooks.ScopeLocal && scope != hooks.ScopeUser {
		return "", project.Usagef("unknown scope %q: use project, local or user", scope)
	}
	var root, home string
	if scope == hooks.ScopeUser {
		h, err := os.UserHomeDir()
		if err != nil && os.Getenv("CLAUDE_CONFIG_DIR") == "" {
			return "", fmt.Errorf("find the home directory for the user scope: %w", err)
		}
		home = h
	} else {
		loc, err := gitrepo.Discover(cmp.Or(dir, "."))
		if err != nil {
			return "", err
		}
		if loc.WorkTree == "" {
			return "", project.Usagef("a bare repository has no working tree for .claude/: use --scope user")
		}
		root = loc.WorkTree
	}
	return hooks.SettingsPath(scope, root, home)
}
