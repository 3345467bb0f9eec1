package app

import (
	"os"

	"github.com/exarchos/git-exarchos/hooks"
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
	return hooks.SettingsRunHandler(root, home, event)
}

// pluginEnabledIn is the first settings file (project, local, user) that enables the exarchos
// plugin, or "".
func pluginEnabledIn(dir string) string {
	for _, scope := range hooks.Scopes {
		path, err := settingsPath(dir, scope)
		if err != nil {
			continue
		}
		if s, err := hooks.LoadSettings(path); err == nil && s.PluginEnabled() {
			return path
		}
	}
	return ""
}
