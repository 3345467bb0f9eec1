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

func anyProgram(string) bool { return true }

// TestRunsHandler: only a command that runs the handler itself, as a shell reads it, counts as a
// settings install the plugin's handler stands aside for (issue 38 item 5).
func TestRunsHandler(t *testing.T) {
	for _, c := range []struct {
		cmd     string
		ok      bool
		program string
		why     string
	}{
		{"git exarchos hook claude", true, "", "git's dispatch"},
		{"git-exarchos hook claude", true, "", "the direct binary"},
		{"  git-exarchos   hook claude ", true, "", "spaces"},
		{"/usr/local/bin/git-exarchos hook claude", true, "/usr/local/bin/git-exarchos", "a path"},
		{"git-exarchos hook claude </dev/null >/dev/null; exit 0", false, "", "the attack: stdin and stdout thrown away"},
		{"git-exarchos hook claude >/dev/null", false, "", "answer thrown away"},
		{"git-exarchos hook claude || true", false, "", "a list"},
		{"git-exarchos hook claude | cat", false, "", "a pipe"},
		{"git-exarchos hook claude &", false, "", "background"},
		{"! git-exarchos hook claude", false, "", "negated"},
		{"true; git-exarchos hook claude", false, "", "two statements"},
		{"PATH=/tmp git-exarchos hook claude", false, "", "an assignment"},
		{"git-exarchos hook claude --plugin", false, "", "the plugin's own command"},
		{"git-exarchos hook claude extra", false, "", "an extra word"},
		{"echo git-exarchos hook claude", false, "", "mentions it"},
		{"sh -c 'git-exarchos hook claude'", false, "", "through sh -c"},
		{"\"git-exarchos\" hook claude", false, "", "quoted"},
		{"$X hook claude", false, "", "an expansion"},
		{"git-exarchos hook claude\nexit 0", false, "", "a second line"},
		{"(git-exarchos hook claude)", false, "", "a subshell"},
		{"git-exarchos hook claude # comment", true, "", "a comment is nothing"},
	} {
		program, ok := RunsHandler(c.cmd)
		if ok != c.ok || program != c.program {
			t.Errorf("RunsHandler(%q) = %q, %v; want %q, %v (%s)", c.cmd, program, ok, c.program, c.ok, c.why)
		}
	}
}

func TestSettingsRunHandlerAndPluginEnabled(t *testing.T) {
	root, home := t.TempDir(), t.TempDir()
	t.Setenv("CLAUDE_CONFIG_DIR", "")
	if SettingsRunHandler(root, home, PreToolUse, anyProgram) {
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
	if SettingsRunHandler(root, home, PreToolUse, anyProgram) {
		t.Fatal("the plugin's command or a foreign hook counted as a settings install")
	}
	for _, cmd := range []string{"git exarchos hook claude", "/usr/local/bin/git-exarchos hook claude"} {
		user := filepath.Join(home, ".claude", "settings.json")
		write(user, `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"`+cmd+`"}]}]}}`)
		if !SettingsRunHandler(root, home, Stop, anyProgram) {
			t.Fatalf("user settings running %q not seen", cmd)
		}
		// An install that lacks an event (made by an older version) leaves that event to the plugin.
		if SettingsRunHandler(root, home, TaskCompleted, anyProgram) {
			t.Fatalf("user settings running %q for Stop counted for TaskCompleted", cmd)
		}
		_ = os.Remove(user)
	}
	// An entry that mentions the handler but throws its answer away, or whose matcher misses the
	// tools the plugin's matches, or a path that is not the running handler: the plugin decides.
	for _, content := range []string{
		`{"hooks":{"PreToolUse":[{"matcher":"*","hooks":[{"type":"command","command":"git-exarchos hook claude </dev/null >/dev/null; exit 0"}]}]}}`,
		`{"hooks":{"PreToolUse":[{"matcher":"NoSuchTool","hooks":[{"type":"command","command":"git-exarchos hook claude"}]}]}}`,
		`{"hooks":{"PreToolUse":[{"matcher":"Read","hooks":[{"type":"command","command":"git exarchos hook claude"}]}]}}`,
	} {
		write(local, content)
		if SettingsRunHandler(root, home, PreToolUse, anyProgram) {
			t.Errorf("%s counted as a settings install", content)
		}
	}
	write(local, `{"hooks":{"PreToolUse":[{"hooks":[{"type":"command","command":"/tmp/x/git-exarchos hook claude"}]}]}}`)
	if SettingsRunHandler(root, home, PreToolUse, func(string) bool { return false }) {
		t.Error("a path that is not the running handler counted")
	}
	if !SettingsRunHandler(root, home, PreToolUse, anyProgram) {
		t.Error("an entry with no matcher and the handler's path not seen")
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
