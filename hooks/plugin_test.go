package hooks

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var updatePlugin = flag.Bool("update-plugin", false, "rewrite claude-plugin/hooks/hooks.json from ClaudeEntries")

// The plugin's hooks.json is generated from the table `hooks install --claude` installs, so the
// two cannot drift: same events, matchers, timeouts and onFailure.
func TestPluginHooksJSONIsTheInstallTable(t *testing.T) {
	path := filepath.Join("..", "claude-plugin", "hooks", "hooks.json")
	want := PluginHooksJSON()
	if *updatePlugin {
		if err := os.WriteFile(path, want, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s is not what hooks.ClaudeEntries generates: go test ./hooks -run TestPluginHooksJSONIsTheInstallTable -update-plugin\ngot:\n%s\nwant:\n%s", path, got, want)
	}
	// The same entries as a settings install with the plugin's command.
	s := &Settings{top: object{}, indent: "  ", newline: true}
	if _, err := s.Install(PluginCommand, ClaudeEntries); err != nil {
		t.Fatal(err)
	}
	plugin, _ := parseObject(want)
	fromPlugin, _ := plugin.get("hooks")
	fromSettings, _ := s.top.get("hooks")
	var compact bytes.Buffer
	_ = json.Compact(&compact, fromPlugin)
	if !bytes.Equal(compact.Bytes(), fromSettings) {
		t.Fatalf("plugin hooks %s\nsettings install %s", fromPlugin, fromSettings)
	}
}

func TestSettingsRunHandlerAndPluginEnabled(t *testing.T) {
	root, home := t.TempDir(), t.TempDir()
	t.Setenv("CLAUDE_CONFIG_DIR", "")
	if SettingsRunHandler(root, home, PreToolUse) {
		t.Fatal("nothing installed yet")
	}
	write := func(path, content string) {
		t.Helper()
		_ = os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// A settings file that runs the plugin's own command (copied by hand) is not a second install,
	// nor is another tool's hook that mentions the words.
	local := filepath.Join(root, ".claude", "settings.local.json")
	write(local, `{"hooks":{"PreToolUse":[{"matcher":"*","hooks":[{"type":"command","command":"git-exarchos hook claude --plugin"},{"type":"command","command":"echo hook claude"}]}]}}`)
	if SettingsRunHandler(root, home, PreToolUse) {
		t.Fatal("the plugin's command or a foreign hook counted as a settings install")
	}
	for _, cmd := range []string{"git exarchos hook claude", "/usr/local/bin/git-exarchos hook claude"} {
		user := filepath.Join(home, ".claude", "settings.json")
		write(user, `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"`+cmd+`"}]}]}}`)
		if !SettingsRunHandler(root, home, Stop) {
			t.Fatalf("user settings running %q not seen", cmd)
		}
		// An install that lacks an event (made by an older version) leaves that event to the plugin.
		if SettingsRunHandler(root, home, TaskCompleted) {
			t.Fatalf("user settings running %q for Stop counted for TaskCompleted", cmd)
		}
		_ = os.Remove(user)
	}
	for content, want := range map[string]bool{
		`{"enabledPlugins":{"exarchos@exarchos":false,"other@x":true}}`: false,
		`{"enabledPlugins":{"exarchos-fork@x":true}}`:                   false,
		`{"enabledPlugins":{"exarchos@exarchos":true}}`:                 true,
		`{"enabledPlugins":{"exarchos@my-marketplace":true}}`:           true,
		`{"enabledPlugins":["exarchos@exarchos"]}`:                      false,
	} {
		write(local, content)
		s, err := LoadSettings(local)
		if err != nil {
			t.Fatal(err)
		}
		if got := s.PluginEnabled(); got != want {
			t.Errorf("%s: PluginEnabled %v, want %v", content, got, want)
		}
	}
}
