// Package guidance renders what the Claude Code plugin gives its users — the workflow commands
// (slash commands), the per-phase skills and the agents' roles — in each other agent client's own
// form, from the plugin's one copy (gitexarchos.Plugin, embedded from claude-plugin/), so that no
// client's copy can drift from it:
//
//   - Codex CLI (0.117 removed custom prompts): skills in .agents/skills (the commands too, invoked
//     as $exarchos-feature), and a section of AGENTS.md between markers;
//   - Gemini CLI: an extension in ~/.gemini/extensions/exarchos (gemini-extension.json, the
//     context file GEMINI.md, commands/exarchos/*.toml invoked as /exarchos:feature, skills/);
//   - Qwen Code: .qwen/commands/exarchos/*.toml, .qwen/skills, a section of QWEN.md;
//   - Copilot CLI: skills in ~/.copilot/skills (invoked as /exarchos-feature), a section of
//     ~/.copilot/copilot-instructions.md.
//
// It may import the root package (the embedded plugin) and the standard library, and
// github.com/BurntSushi/toml.
package guidance

import (
	"bytes"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"

	gitexarchos "github.com/exarchos/git-exarchos"
)

// The clients with guidance (hooks.ClientCodex, …: the same names).
const (
	Codex   = "codex"
	Gemini  = "gemini"
	Qwen    = "qwen"
	Copilot = "copilot"
)

// Clients are the clients guidance is rendered for.
var Clients = []string{Codex, Gemini, Qwen, Copilot}

// Begin and End delimit exarchos's section of a file the user writes too (AGENTS.md, QWEN.md,
// copilot-instructions.md): install replaces what is between them, or appends the section;
// uninstall removes it; the user's text around it is never touched.
const (
	Begin = "<!-- exarchos:begin (written by `git exarchos hooks install`; edits between these markers are replaced) -->"
	End   = "<!-- exarchos:end -->"
)

// File is one file of a client's guidance.
type File struct {
	// Path is where the client reads it: absolute, from the root or home Place was given.
	Path string
	Body []byte
	// Section: Body is exarchos's section of a file the user may write too (Begin … End),
	// merged into it rather than written whole.
	Section bool
}

// doc is one document of the plugin: a command, a skill or an agent.
type doc struct {
	kind, name string
	meta       map[string]string // front matter (one-line values)
	body       string
}

const (
	kindCommand = "command"
	kindSkill   = "skill"
	kindAgent   = "agent"
)

// source reads the plugin's documents, in a stable order.
func source() ([]doc, error) {
	var docs []doc
	for _, k := range []struct{ kind, glob string }{
		{kindCommand, "claude-plugin/commands/*.md"},
		{kindSkill, "claude-plugin/skills/*/SKILL.md"},
		{kindAgent, "claude-plugin/agents/*.md"},
	} {
		files, err := fs.Glob(gitexarchos.Plugin, k.glob)
		if err != nil {
			return nil, err
		}
		sort.Strings(files)
		for _, f := range files {
			b, err := gitexarchos.Plugin.ReadFile(f)
			if err != nil {
				return nil, err
			}
			name := strings.TrimSuffix(path.Base(f), ".md")
			if k.kind == kindSkill {
				name = path.Base(path.Dir(f))
			}
			meta, body, err := frontMatter(string(b))
			if err != nil {
				return nil, fmt.Errorf("%s: %w", f, err)
			}
			docs = append(docs, doc{kind: k.kind, name: name, meta: meta, body: body})
		}
	}
	return docs, nil
}

// frontMatter splits a document's front matter (key: value lines between --- lines) from its body.
func frontMatter(s string) (map[string]string, string, error) {
	rest, ok := strings.CutPrefix(s, "---\n")
	if !ok {
		return nil, "", fmt.Errorf("no front matter")
	}
	head, body, ok := strings.Cut(rest, "\n---\n")
	if !ok {
		return nil, "", fmt.Errorf("front matter not closed")
	}
	meta := map[string]string{}
	for _, l := range strings.Split(head, "\n") {
		k, v, ok := strings.Cut(l, ":")
		if !ok {
			return nil, "", fmt.Errorf("front matter line %q", l)
		}
		v = strings.TrimSpace(v)
		if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' {
			v = v[1 : len(v)-1]
		}
		meta[strings.TrimSpace(k)] = v
	}
	return meta, strings.TrimLeft(body, "\n"), nil
}

// client is how one client invokes and names things.
type client struct {
	name string
	// command is how the user invokes a workflow command.
	command func(name string) string
	// args stands for the command's arguments in its text.
	args func(name string) string
}

var clients = map[string]client{
	Codex:   {Codex, func(n string) string { return "$exarchos-" + n }, skillArgs("$")},
	Gemini:  {Gemini, func(n string) string { return "/exarchos:" + n }, func(string) string { return "{{args}}" }},
	Qwen:    {Qwen, func(n string) string { return "/exarchos:" + n }, func(string) string { return "{{args}}" }},
	Copilot: {Copilot, func(n string) string { return "/exarchos-" + n }, skillArgs("/")},
}

// skillArgs: a skill takes no arguments; the words after its name in the user's message are them.
func skillArgs(sigil string) func(string) string {
	return func(n string) string {
		return "(the words that follow `" + sigil + "exarchos-" + n + "` in the user's message)"
	}
}

// SkillName is a plugin skill's name in every other client; AgentName, an agent's role, which
// the other clients get as a skill (a sub-agent runs it where the client has sub-agents).
func SkillName(name string) string { return "exarchos-guide-" + name }

// AgentName is the skill an agent's role becomes.
func AgentName(name string) string { return "exarchos-agent-" + name }

var refRe = regexp.MustCompile(`(/?)exarchos:([a-z][a-z0-9-]*)`)

// rewrite turns the plugin's Claude Code references into the client's: /exarchos:x (a command),
// exarchos:x (a skill, else an agent, else a command), $ARGUMENTS.
func (c client) rewrite(text, command string, kinds map[string]map[string]bool) string {
	text = refRe.ReplaceAllStringFunc(text, func(m string) string {
		sub := refRe.FindStringSubmatch(m)
		slash, name := sub[1], sub[2]
		switch {
		case slash == "" && kinds[kindSkill][name]:
			return SkillName(name)
		case slash == "" && kinds[kindAgent][name]:
			return AgentName(name)
		case kinds[kindCommand][name]:
			return c.command(name)
		}
		return m
	})
	if command != "" {
		text = strings.ReplaceAll(text, "$ARGUMENTS", c.args(command))
	}
	return text
}

// Render is a client's guidance, each file relative to the place the client reads it
// (Place turns these into paths): keys are "skills/<name>/SKILL.md", "commands/<name>.toml",
// "context.md" (the section, or Gemini's GEMINI.md), "gemini-extension.json".
func Render(clientName string) (map[string][]byte, error) {
	c, ok := clients[clientName]
	if !ok {
		return nil, fmt.Errorf("no guidance for agent client %q: use codex, gemini, qwen or copilot", clientName)
	}
	docs, err := source()
	if err != nil {
		return nil, err
	}
	kinds := map[string]map[string]bool{kindCommand: {}, kindSkill: {}, kindAgent: {}}
	for _, d := range docs {
		kinds[d.kind][d.name] = true
	}
	for i := range docs {
		docs[i].meta["description"] = c.rewrite(docs[i].meta["description"], "", kinds)
	}
	out := map[string][]byte{}
	tomlCommands := clientName == Gemini || clientName == Qwen
	for _, d := range docs {
		switch {
		case d.kind == kindCommand && tomlCommands:
			b, err := tomlCommand(d.meta["description"], c.rewrite(d.body, d.name, kinds))
			if err != nil {
				return nil, fmt.Errorf("command %s: %w", d.name, err)
			}
			out["commands/"+d.name+".toml"] = b
		case d.kind == kindCommand:
			name := "exarchos-" + d.name
			intro := "Invoked as `" + c.command(d.name)
			if h := d.meta["argument-hint"]; h != "" {
				intro += " " + h
			}
			intro += "`: the words after the name are its arguments.\n\n"
			out["skills/"+name+"/SKILL.md"] = skillFile(name, d.meta["description"], intro+c.rewrite(d.body, d.name, kinds))
		case d.kind == kindSkill:
			out["skills/"+SkillName(d.name)+"/SKILL.md"] = skillFile(SkillName(d.name), d.meta["description"], c.rewrite(d.body, "", kinds))
		case d.kind == kindAgent:
			intro := "The role of the exarchos " + d.name + " agent. Run it in a sub-agent with fresh context when this client has sub-agents; otherwise take the role yourself for the task it names.\n\n"
			out["skills/"+AgentName(d.name)+"/SKILL.md"] = skillFile(AgentName(d.name), d.meta["description"], intro+c.rewrite(d.body, "", kinds))
		}
	}
	out["context.md"] = []byte(context(c, docs))
	if clientName == Gemini {
		out["gemini-extension.json"] = []byte(`{
  "name": "exarchos",
  "version": "` + version + `",
  "description": "git exarchos: durable, enforced development workflows stored in git (the workflow commands, the per-phase guides, the agents' roles)",
  "contextFileName": "GEMINI.md"
}
`)
	}
	return out, nil
}

// version is the extension's version: the plugin's.
const version = "0.1.0"

// skillFile is a SKILL.md: name and description front matter (the Agent Skills format every one
// of these clients reads), then the text.
func skillFile(name, description, body string) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "---\nname: %s\ndescription: %s\n---\n\n%s", name, yamlString(description), body)
	return b.Bytes()
}

// yamlString quotes a one-line value for YAML when it would not read back as itself.
func yamlString(s string) string {
	if s == "" || strings.ContainsAny(s, ":#'\"[]{}&*!|>%@`") || strings.TrimSpace(s) != s {
		return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
	}
	return s
}

// tomlCommand is a Gemini CLI / Qwen Code command file: description and prompt.
func tomlCommand(description, prompt string) ([]byte, error) {
	var b bytes.Buffer
	if err := toml.NewEncoder(&b).Encode(struct {
		Description string `toml:"description"`
	}{description}); err != nil {
		return nil, err
	}
	if strings.Contains(prompt, "'''") {
		// No literal string can hold it: a basic string, escaped by the encoder.
		if err := toml.NewEncoder(&b).Encode(struct {
			Prompt string `toml:"prompt,multiline"`
		}{prompt}); err != nil {
			return nil, err
		}
		return b.Bytes(), nil
	}
	// A multi-line literal string keeps the text as written (no escapes); its first newline
	// is dropped by TOML, so the text starts on the next line.
	b.WriteString("prompt = '''\n" + prompt + "'''\n")
	return b.Bytes(), nil
}

// context is the text every session starts with: what exarchos is, the commands and the guides.
func context(c client, docs []doc) string {
	var b strings.Builder
	b.WriteString("# git exarchos\n\n")
	b.WriteString("This repository's development workflows are recorded by `git exarchos` (state under " +
		"`refs/exarchos/<feature>`); its hooks refuse what the current phase does not allow. Read a refusal " +
		"and do what it says; never work around it. You never approve, reject, override, unblock, grant or " +
		"budget: those are the user's decisions, refused from your session. When a guard refuses, run the " +
		"`fix` it prints, or, when it says \"ask the user to run …\", stop and ask. After a context reset, " +
		"`git exarchos rehydrate` says where a workflow stands.\n\n")
	b.WriteString("Workflow commands:\n\n")
	for _, d := range docs {
		if d.kind == kindCommand {
			inv := c.command(d.name)
			if h := d.meta["argument-hint"]; h != "" {
				inv += " " + h
			}
			fmt.Fprintf(&b, "- `%s`: %s\n", inv, d.meta["description"])
		}
	}
	b.WriteString("\nGuides (skills) for each phase and role:\n\n")
	for _, d := range docs {
		switch d.kind {
		case kindSkill:
			fmt.Fprintf(&b, "- `%s`: %s\n", SkillName(d.name), d.meta["description"])
		case kindAgent:
			fmt.Fprintf(&b, "- `%s`: %s\n", AgentName(d.name), d.meta["description"])
		}
	}
	return b.String()
}

// Place is a client's guidance where the client reads it, in scope ("project" or "user"): root is
// the top of the worktree, home the user's home directory, getenv the environment (CODEX_HOME and
// COPILOT_HOME move those clients' homes). Gemini CLI reads extensions only from the user's
// ~/.gemini/extensions and Copilot CLI's hooks are the user's, so both are in the user's home
// whatever the scope.
func Place(clientName, scope, root, home string, getenv func(string) string) ([]File, error) {
	files, err := Render(clientName)
	if err != nil {
		return nil, err
	}
	base := root
	if scope == "user" {
		base = home
	}
	var dir, context string // where skills/ and commands/ go; the context file
	switch clientName {
	case Codex:
		codexHome := filepath.Join(home, ".codex")
		if d := getenv("CODEX_HOME"); d != "" {
			codexHome = d
		}
		dir, context = filepath.Join(base, ".agents"), filepath.Join(base, "AGENTS.md")
		if scope == "user" {
			context = filepath.Join(codexHome, "AGENTS.md")
		}
	case Gemini:
		dir = filepath.Join(home, ".gemini", "extensions", "exarchos")
		context = filepath.Join(dir, "GEMINI.md")
	case Qwen:
		dir, context = filepath.Join(base, ".qwen"), filepath.Join(base, "QWEN.md")
		if scope == "user" {
			context = filepath.Join(dir, "QWEN.md")
		}
	case Copilot:
		dir = filepath.Join(home, ".copilot")
		if d := getenv("COPILOT_HOME"); d != "" {
			dir = d
		}
		context = filepath.Join(dir, "copilot-instructions.md")
	}
	if base == "" || dir == "" {
		return nil, fmt.Errorf("no directory for the %s guidance in the %s scope", clientName, scope)
	}
	var out []File
	for _, rel := range sortedKeys(files) {
		body := files[rel]
		switch {
		case rel == "context.md" && clientName == Gemini:
			out = append(out, File{Path: context, Body: body})
		case rel == "context.md":
			out = append(out, File{Path: context, Body: body, Section: true})
		case strings.HasPrefix(rel, "commands/"):
			// commands/exarchos/<name>.toml: the client names it exarchos:<name>.
			out = append(out, File{Path: filepath.Join(dir, "commands", "exarchos", filepath.FromSlash(strings.TrimPrefix(rel, "commands/"))), Body: body})
		default:
			out = append(out, File{Path: filepath.Join(dir, filepath.FromSlash(rel)), Body: body})
		}
	}
	return out, nil
}

func sortedKeys(m map[string][]byte) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
