package guidance

import (
	"bytes"
	"encoding/json"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
	"gopkg.in/yaml.v3"

	gitexarchos "github.com/exarchos/git-exarchos"
)

var update = flag.Bool("update", false, "rewrite guidance/testdata from the plugin")

// TestGeneratedCopiesAreCurrent: every client's guidance, regenerated from the plugin, is the copy
// checked in under testdata/<client> (the review copy: a change of the plugin shows there, for every
// client at once); a file left over from an older rendering fails too.
// Regenerate: go test ./guidance -run TestGeneratedCopiesAreCurrent -update
func TestGeneratedCopiesAreCurrent(t *testing.T) {
	for _, c := range Clients {
		files, err := Render(c)
		if err != nil {
			t.Fatal(err)
		}
		dir := filepath.Join("testdata", c)
		if *update {
			if err := os.RemoveAll(dir); err != nil {
				t.Fatal(err)
			}
			for rel, b := range files {
				p := filepath.Join(dir, filepath.FromSlash(rel))
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, b, 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}
		seen := map[string]bool{}
		err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			rel, _ := filepath.Rel(dir, p)
			rel = filepath.ToSlash(rel)
			seen[rel] = true
			got, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			want, ok := files[rel]
			switch {
			case !ok:
				t.Errorf("%s: no longer generated from the plugin: go test ./guidance -run %s -update", p, t.Name())
			case !bytes.Equal(got, want):
				t.Errorf("%s differs from what the plugin generates: go test ./guidance -run %s -update", p, t.Name())
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		for rel := range files {
			if !seen[rel] {
				t.Errorf("%s/%s is generated but not checked in: go test ./guidance -run %s -update", dir, rel, t.Name())
			}
		}
	}
}

// TestEveryClientGetsEverything: each command, skill and agent of the plugin reaches every client,
// with no Claude Code syntax left ($ARGUMENTS, exarchos:<name> references) and every reference to
// another command or guide naming one that the client has.
func TestEveryClientGetsEverything(t *testing.T) {
	docs, err := source()
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]int{}
	for _, d := range docs {
		counts[d.kind]++
	}
	if counts[kindCommand] < 10 || counts[kindSkill] < 5 || counts[kindAgent] < 2 {
		t.Fatalf("the plugin read as %v: the embedded copy lost files", counts)
	}
	claudeRef := regexp.MustCompile(`\bexarchos:[a-z]`)
	guideRef := regexp.MustCompile(`exarchos-(?:guide|agent)-[a-z0-9-]+`)
	for _, c := range Clients {
		files, err := Render(c)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range docs {
			var key, named string
			switch {
			case d.kind == kindCommand && (c == Gemini || c == Qwen):
				key, named = "commands/"+d.name+".toml", clients[c].command(d.name)
			case d.kind == kindCommand:
				key, named = "skills/exarchos-"+d.name+"/SKILL.md", clients[c].command(d.name)
			case d.kind == kindSkill:
				key, named = "skills/"+SkillName(d.name)+"/SKILL.md", SkillName(d.name)
			default:
				key, named = "skills/"+AgentName(d.name)+"/SKILL.md", AgentName(d.name)
			}
			if _, ok := files[key]; !ok {
				t.Errorf("%s: the plugin's %s %s has no %s", c, d.kind, d.name, key)
			}
			if !strings.Contains(string(files["context.md"]), "`"+named) {
				t.Errorf("%s: the context does not name the %s %s (%s)", c, d.kind, d.name, named)
			}
		}
		for rel, b := range files {
			s := string(b)
			if strings.Contains(s, "$ARGUMENTS") {
				t.Errorf("%s %s: $ARGUMENTS left (Claude Code's)", c, rel)
			}
			if c != Gemini && c != Qwen && claudeRef.MatchString(s) {
				t.Errorf("%s %s: a Claude Code reference left: %q", c, rel, claudeRef.FindString(s))
			}
			for _, ref := range guideRef.FindAllString(s, -1) {
				if _, ok := files["skills/"+ref+"/SKILL.md"]; !ok {
					t.Errorf("%s %s names %s, which the client does not get", c, rel, ref)
				}
			}
		}
	}
}

// TestEachFileParsesInItsClientsFormat: Gemini's and Qwen's commands are TOML with a description
// and the prompt the plugin's text becomes (arguments as {{args}}); the extension's manifest is
// JSON with the name, version and context file Gemini CLI requires; every SKILL.md has the front
// matter the Agent Skills format requires (name = its directory, a description).
func TestEachFileParsesInItsClientsFormat(t *testing.T) {
	feature, err := gitexarchos.Plugin.ReadFile("claude-plugin/commands/feature.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range Clients {
		files, err := Render(c)
		if err != nil {
			t.Fatal(err)
		}
		for rel, b := range files {
			switch {
			case strings.HasSuffix(rel, ".toml"):
				var cmd struct{ Description, Prompt string }
				md, err := toml.Decode(string(b), &cmd)
				if err != nil {
					t.Errorf("%s %s: not TOML: %v", c, rel, err)
					continue
				}
				if len(md.Undecoded()) > 0 || cmd.Description == "" || cmd.Prompt == "" {
					t.Errorf("%s %s: want exactly description and prompt, got %+v (undecoded %v)", c, rel, cmd, md.Undecoded())
				}
				// Gemini CLI and Qwen Code run !{…} in a command's prompt as a shell command and
				// inline @{…} as a file's content: a plugin text holding either must not become one.
				if strings.Contains(cmd.Prompt, "!{") || strings.Contains(cmd.Prompt, "@{") {
					t.Errorf("%s %s: the prompt holds !{ or @{, which the client would run or inline", c, rel)
				}
				if rel == "commands/feature.toml" {
					_, body, _ := frontMatter(string(feature))
					want := strings.ReplaceAll(body, "$ARGUMENTS", "{{args}}")
					want = regexp.MustCompile(`exarchos:(design-and-plan|split-plan|delegate|review|synthesize|cleanup)\b`).ReplaceAllString(want, "exarchos-guide-$1")
					want = regexp.MustCompile(`exarchos:(implementer|reviewer)\b`).ReplaceAllString(want, "exarchos-agent-$1")
					if cmd.Prompt != want {
						t.Errorf("%s feature.toml's prompt is not the plugin's command:\n%s", c, cmd.Prompt)
					}
				}
			case strings.HasSuffix(rel, "/SKILL.md"):
				var fm struct{ Name, Description string }
				rest, ok := strings.CutPrefix(string(b), "---\n")
				head, body, ok2 := strings.Cut(rest, "\n---\n")
				if !ok || !ok2 {
					t.Errorf("%s %s: no front matter", c, rel)
					continue
				}
				if err := yaml.Unmarshal([]byte(head), &fm); err != nil {
					t.Errorf("%s %s: front matter is not YAML: %v", c, rel, err)
					continue
				}
				if want := filepath.Base(filepath.Dir(rel)); fm.Name != want || fm.Description == "" || strings.TrimSpace(body) == "" {
					t.Errorf("%s %s: name %q (want %q), description %q", c, rel, fm.Name, want, fm.Description)
				}
			case rel == "gemini-extension.json":
				var m struct{ Name, Version, ContextFileName string }
				if err := json.Unmarshal(b, &m); err != nil || m.Name != "exarchos" || m.Version == "" || m.ContextFileName != "GEMINI.md" {
					t.Errorf("%s %s: %+v, %v", c, rel, m, err)
				}
			}
		}
	}
}
