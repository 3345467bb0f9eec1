package hooks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/exarchos/git-exarchos/workflow"
)

func feature(phase string) Bound {
	def, _ := workflow.Builtin("feature")
	return Bound{Feature: "login", Def: def, Root: "/repo", State: workflow.State{Feature: "login", Type: "feature", Phase: phase, Branch: "login"}}
}

func TestCheckEnvelope(t *testing.T) {
	w := feature("plan")
	w.State.Artifacts = map[string]workflow.Artifact{"design": {Path: "docs/design.md"}, "plan": {Text: "inline plan", Inline: true}}
	cases := []struct {
		tool, path, cwd string
		denied          bool
	}{
		{"Write", "/repo/main.go", "/repo", true},
		{"Edit", "/repo/docs/design.md", "/repo", false},
		{"Edit", "docs/design.md", "/repo", false},
		{"Edit", "../docs/design.md", "/repo/sub", false},
		{"Edit", "/repo/docs/../docs/design.md", "/repo", false},
		{"Edit", "/other/docs/design.md", "/repo", true},
		{"MultiEdit", "/repo/docs/plan.md", "/repo", true}, // the plan is inline: no file to write
		{"NotebookEdit", "/repo/docs/design.md", "/repo", false},
		{"Read", "/repo/main.go", "/repo", false},
		{"Bash", "", "/repo", false},
	}
	for _, c := range cases {
		ti := ToolInput{FilePath: c.path}
		if c.tool == "NotebookEdit" {
			ti = ToolInput{NotebookPath: c.path}
		}
		reason := CheckTool(w, c.tool, ti, c.cwd)
		if (reason != "") != c.denied {
			t.Errorf("%s %s from %s: reason %q, want denied=%v", c.tool, c.path, c.cwd, reason, c.denied)
		}
	}
	reason := CheckTool(w, "Write", ToolInput{FilePath: "/repo/main.go"}, "/repo")
	for _, want := range []string{"phase plan", "recorded design (docs/design.md) artifact files only, not /repo/main.go", "git exarchos set login artifacts.plan=<path>", "reached by plan-review → delegate (git exarchos transition login delegate) after plan → plan-review"} {
		if !strings.Contains(reason, want) {
			t.Errorf("reason %q does not say %q", reason, want)
		}
	}
	// In plan-review the unlocking transition is the next one.
	reason = CheckTool(feature("plan-review"), "Edit", ToolInput{FilePath: "/repo/x"}, "/repo")
	if !strings.Contains(reason, "reached by plan-review → delegate (git exarchos transition login delegate);") {
		t.Errorf("plan-review reason: %q", reason)
	}
	// Implementation phases allow everything.
	for _, p := range []string{"delegate", "review", "synthesize"} {
		if r := CheckTool(feature(p), "Write", ToolInput{FilePath: "/repo/main.go"}, "/repo"); r != "" {
			t.Errorf("%s: %q", p, r)
		}
	}
}

func TestEnvelopeInheritsFromCompound(t *testing.T) {
	def := &workflow.Definition{Phases: []workflow.Phase{
		{ID: "outer", Kind: workflow.Compound, Initial: "a", Tools: workflow.Envelope{Deny: []string{"Write"}}},
		{ID: "a", Kind: workflow.Normal, Parent: "outer"},
		{ID: "b", Kind: workflow.Normal, Parent: "outer", Tools: workflow.Envelope{Deny: []string{"Edit"}}},
		{ID: "c", Kind: workflow.Normal},
	}}
	if !def.PhaseEnvelope("a").Denies("Write") || def.PhaseEnvelope("b").Denies("Write") || !def.PhaseEnvelope("b").Denies("Edit") || def.PhaseEnvelope("c").Denies("Write") || def.PhaseEnvelope("nope").Denies("Write") {
		t.Fatalf("policies: a=%v b=%v c=%v", def.PhaseEnvelope("a"), def.PhaseEnvelope("b"), def.PhaseEnvelope("c"))
	}
	for _, typ := range workflow.BuiltinTypes() {
		d, _ := workflow.Builtin(typ)
		if err := d.Validate(); err != nil {
			t.Errorf("%s: %v", typ, err)
		}
	}
}

func TestNeedsAgent(t *testing.T) {
	for phase, want := range map[string]bool{"ideate": true, "plan": true, "plan-review": false, "blocked": false, "delegate": true, "synthesize": true, "completed": false, "cancelled": false} {
		if got := NeedsAgent(feature(phase)); got != want {
			t.Errorf("%s: NeedsAgent %v, want %v", phase, got, want)
		}
	}
	w := feature("review")
	w.State.Circuit = &workflow.Circuit{Compound: "implementation", Open: true}
	if NeedsAgent(w) {
		t.Error("an open circuit waits for a human")
	}
}

func TestContextDocumentFitsAndKeepsTheRules(t *testing.T) {
	w := feature("delegate")
	for i := range 300 {
		w.State.Tasks = append(w.State.Tasks, workflow.Task{ID: "t" + strings.Repeat("x", i%7), Title: strings.Repeat("a long task title ", 3), Status: workflow.TaskInProgress})
	}
	summary := "login (feature) is in delegate.\n  → review: needs\n" + strings.Repeat("      tasks-complete: a very long failure reason that goes on\n        fix: git exarchos task done login tN\n", 80)
	doc := ContextDocument(w, summary)
	if len(doc) > MaxContext {
		t.Fatalf("document is %d bytes, over %d", len(doc), MaxContext)
	}
	for _, want := range []string{"is in phase delegate", "To move on:", "cut: git exarchos status shows the rest", "Tasks: 300 in progress", "Only a human runs approve"} {
		if !strings.Contains(doc, want) {
			t.Errorf("document does not say %q:\n%s", want, doc)
		}
	}
	short := ContextDocument(feature("ideate"), "login (feature) is in ideate.\n  → plan: needs\n      artifact-design: no design artifact recorded\n        fix: git exarchos set login artifacts.design=<path>\n")
	if strings.Contains(short, "cut:") || !strings.Contains(short, "fix: git exarchos set login artifacts.design=<path>") {
		t.Errorf("short document:\n%s", short)
	}
}

// TestContextDocumentFindings: a new session is told the open review findings: how many block (and
// from which severity, the definition's), each blocking one with where it is (at most maxListed,
// a long or multi-line text cut), and how many are for the pull request; closed ones are not news.
func TestContextDocumentFindings(t *testing.T) {
	w := feature("review")
	w.State.Findings = []workflow.Finding{
		{ID: "f1", Dimension: "quality", Severity: "critical", File: "a.go", Line: 3, Text: "first line\nsecond line"},
		{ID: "f2", Dimension: "quality", Severity: "medium", File: "b.go", Text: "naming"},
		{ID: "f3", Dimension: "spec", Severity: "high", File: "c.go", Text: "gone", Closed: &workflow.FindingClosed{By: workflow.ClosedByReReview}},
	}
	for i := range 10 {
		w.State.Findings = append(w.State.Findings, workflow.Finding{ID: fmt.Sprintf("g%d", i), Severity: "high", File: "d.go", Line: i + 1, Text: "x"})
	}
	w.State.Findings[3].Text = strings.Repeat("é", 300) // cut at 200 bytes, not inside a character
	doc := ContextDocument(w, "login (feature) is in review.\n")
	for _, want := range []string{"Open review findings: 11 blocking (high and above: fix each in a task, then review again), 1 for the pull request (git exarchos view findings login).",
		"  blocking f1 critical a.go:3: first line\n", "  blocking g0 high d.go:1: " + strings.Repeat("é", 100) + "…\n", "  … and 3 more (git exarchos view findings login)"} {
		if !strings.Contains(doc, want) {
			t.Errorf("document does not say %q:\n%s", want, doc)
		}
	}
	if strings.Contains(doc, "f3") || strings.Contains(doc, "second line") || !utf8.ValidString(doc) {
		t.Errorf("document:\n%s", doc)
	}
}

// fakeRepo serves Handle without a repository.
type fakeRepo struct {
	bound      []Bound
	stopGuard  bool
	recorded   []workflow.NewEvent
	ids        map[string]bool
	err        error             // what Session fails with
	aliases    map[string]string // git aliases
	changes    []Change
	changesErr error
	// stale, when set, is what Bound returns (a hook process's earlier read) while bound holds
	// the state a write would build on: a concurrent call got there first.
	stale []Bound
}

func (f *fakeRepo) Session(Input, string) ([]Bound, error) {
	if f.err != nil {
		return nil, f.err
	}
	if f.stale != nil {
		return f.stale, nil
	}
	return f.bound, nil
}
func (f *fakeRepo) Shell(string) BashContext {
	return BashContext{Protected: []string{"/repo/.git"}, Alias: func(name string) (string, bool) {
		v, ok := f.aliases[name]
		return v, ok
	}}
}
func (f *fakeRepo) Changes(Bound) ([]Change, error) { return f.changes, f.changesErr }
func (f *fakeRepo) Notes(Bound) []string            { return nil }

func (f *fakeRepo) Summary(w Bound) string {
	return w.Feature + " is in " + w.State.Phase + ".\n  → next: needs work\n"
}

// Record keeps the events and folds them into the bound workflow, skipping ids already seen as
// the store does, so a sequence of hook calls sees what the previous ones recorded.
func (f *fakeRepo) Record(w Bound, recheck func(workflow.State) string, evs ...workflow.NewEvent) (string, error) {
	if recheck != nil {
		for _, b := range f.bound {
			if b.Feature == w.Feature {
				if denied := recheck(b.State); denied != "" {
					return denied, nil
				}
			}
		}
	}
	for _, ev := range evs {
		if ev.ID != "" {
			if f.ids[ev.ID] {
				continue
			}
			if f.ids == nil {
				f.ids = map[string]bool{}
			}
			f.ids[ev.ID] = true
		}
		f.recorded = append(f.recorded, ev)
		for i := range f.bound {
			if f.bound[i].Feature == w.Feature {
				id := ev.ID
				if id == "" {
					id = fmt.Sprintf("ev-%d", len(f.recorded))
				}
				e, err := ev.Stamp(id, f.bound[i].State.LastSeq+1, time.Unix(0, 0), "agent", 0)
				if err != nil {
					return "", err
				}
				f.bound[i].State = workflow.Apply(f.bound[i].Def, f.bound[i].State, e)
			}
		}
	}
	return "", nil
}

// RecordLater records at once: the fake has no journal.
func (f *fakeRepo) RecordLater(w Bound, ev workflow.NewEvent) error {
	_, err := f.Record(w, nil, ev)
	return err
}
func (f *fakeRepo) StopGuard(string) bool  { return f.stopGuard }
func (f *fakeRepo) Controls(string) string { return "" }
func (f *fakeRepo) Held(Bound) string      { return "" }

func TestHandleEvents(t *testing.T) {
	repo := &fakeRepo{bound: []Bound{feature("plan")}}
	var warnings []string
	warn := func(s string) { warnings = append(warnings, s) }
	out := func(o Output) string {
		var b bytes.Buffer
		if err := o.Write(&b); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	if got := out(Handle(Input{HookEventName: PreToolUse, ToolName: "Write", ToolInput: json.RawMessage(`{"file_path":"/repo/x.go"}`)}, repo, warn)); !strings.Contains(got, `"permissionDecision":"deny"`) {
		t.Errorf("PreToolUse Write in plan: %s", got)
	}
	if len(repo.recorded) != 1 || repo.recorded[0].Type != workflow.EventToolDenied {
		t.Errorf("the denial was not recorded: %+v", repo.recorded)
	}
	repo.recorded = nil
	if got := out(Handle(Input{HookEventName: SessionStart}, repo, warn)); !strings.Contains(got, `"hookEventName":"SessionStart","additionalContext":"git exarchos: workflow login`) {
		t.Errorf("SessionStart: %s", got)
	}
	if got := out(Handle(Input{HookEventName: Stop}, repo, warn)); got != `{"continue":true,"suppressOutput":true}`+"\n" {
		t.Errorf("Stop without the guard: %s", got)
	}
	repo.stopGuard = true
	if got := out(Handle(Input{HookEventName: Stop}, repo, warn)); !strings.HasPrefix(got, `{"decision":"block","reason":"git exarchos: the workflow still needs your work`) {
		t.Errorf("Stop with the guard: %s", got)
	}
	if got := out(Handle(Input{HookEventName: SubagentStop, StopHookActive: true}, repo, warn)); strings.Contains(got, "block") {
		t.Errorf("SubagentStop while a stop hook is active: %s", got)
	}
	Handle(Input{HookEventName: PreCompact, SessionID: "s", CompactTrigger: "manual"}, repo, warn)
	if len(repo.recorded) != 1 || repo.recorded[0].Type != workflow.EventHookCheckpoint || repo.recorded[0].Data.(workflow.CheckpointData).Trigger != "manual" {
		t.Errorf("PreCompact recorded %+v", repo.recorded)
	}
	if len(warnings) != 0 {
		t.Errorf("warnings: %v", warnings)
	}
	Handle(Input{HookEventName: "Nope"}, repo, warn)
	if len(warnings) != 1 {
		t.Errorf("an unknown event must be reported once: %v", warnings)
	}
}

func TestReadInput(t *testing.T) {
	for _, bad := range []string{"", "  \n", "nope", "[1]", `{"hook_event_name": 3}`} {
		if _, err := ReadInput(strings.NewReader(bad)); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
	in, err := ReadInput(strings.NewReader(`{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"},"new_field":{"x":1}}`))
	if err != nil || in.Tool().Command != "ls" {
		t.Fatalf("%+v %v", in, err)
	}
	if (Input{ToolInput: json.RawMessage(`"a string"`)}).Tool() != (ToolInput{}) {
		t.Error("a tool_input of another shape must read as empty")
	}
}

func TestSettingsRoundTrip(t *testing.T) {
	original := "{\n    \"model\": \"opus\",\n    \"hooks\": {\n        \"PreToolUse\": [\n            {\n                \"matcher\": \"Bash\",\n                \"hooks\": [\n                    {\n                        \"type\": \"command\",\n                        \"command\": \"./check.sh\"\n                    },\n                    {\n                        \"type\": \"command\",\n                        \"command\": \"git exarchos hook claude\"\n                    }\n                ]\n            }\n        ]\n    },\n    \"z\": \"\\u003c\"\n}\n"
	path := filepath.Join(t.TempDir(), "settings.json")
	if err := os.WriteFile(path, []byte(original), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := LoadSettings(path)
	if err != nil {
		t.Fatal(err)
	}
	// A handler of ours inside a foreign group counts as installed, and uninstall takes only it.
	if got := s.Installed(); len(got) != 1 || got[0] != PreToolUse {
		t.Fatalf("Installed: %v", got)
	}
	if changed, err := s.Install("git-exarchos hook claude", ClaudeEntries); err != nil || !changed {
		t.Fatalf("install: %v %v", changed, err)
	}
	if got := s.Installed(); len(got) != len(ClaudeEntries) {
		t.Fatalf("after install: %v", got)
	}
	if !strings.Contains(string(s.Bytes()), "\n    \"hooks\": {\n        \"PreToolUse\": [") {
		t.Errorf("indentation not kept:\n%s", s.Bytes())
	}
	if changed, err := s.Uninstall(); err != nil || !changed {
		t.Fatalf("uninstall: %v %v", changed, err)
	}
	got := string(s.Bytes())
	if strings.Contains(got, "exarchos") || !strings.Contains(got, `"command": "./check.sh"`) || !strings.Contains(got, `"z": "\u003c"`) || !strings.HasPrefix(got, "{\n    \"model\"") {
		t.Errorf("after uninstall:\n%s", got)
	}
	if err := s.Save(); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("mode not kept: %v %v", fi.Mode(), err)
	}
	// Writing through a symbolic link keeps the link.
	link := filepath.Join(t.TempDir(), "settings.json")
	if err := os.Symlink(path, link); err != nil {
		t.Fatal(err)
	}
	s, _ = LoadSettings(link)
	s.Install("git-exarchos hook claude", ClaudeEntries)
	if err := s.Save(); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Lstat(link); fi.Mode()&os.ModeSymlink == 0 {
		t.Error("the settings symlink was replaced by a file")
	}
	if b, _ := os.ReadFile(path); !bytes.Contains(b, []byte("SessionEnd")) {
		t.Error("the link's target was not written")
	}
}

// An install made before "onFailure" existed is upgraded in place by the next install: the key is
// added to exarchos's handlers of the events whose failure blocks, and nothing else moves; a
// second install changes nothing.
func TestInstallUpgradesOnFailure(t *testing.T) {
	original := `{
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "*",
        "hooks": [
          {"type": "command", "command": "./check.sh"},
          {"type": "command", "command": "git exarchos hook claude", "timeout": 7}
        ]
      }
    ],
    "PostToolUse": [
      {"matcher": "*", "hooks": [{"type": "command", "command": "git-exarchos hook claude", "timeout": 20, "onFailure": "allow"}]}
    ],
    "Stop": [
      {"hooks": [{"type": "command", "command": "git exarchos hook claude", "timeout": 30}]}
    ]
  }
}
`
	path := filepath.Join(t.TempDir(), "settings.json")
	if err := os.WriteFile(path, []byte(original), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := LoadSettings(path)
	if err != nil {
		t.Fatal(err)
	}
	if changed, err := s.Install("git-exarchos hook claude", ClaudeEntries); err != nil || !changed {
		t.Fatalf("install: %v %v", changed, err)
	}
	if err := s.Save(); err != nil {
		t.Fatal(err)
	}
	s, _ = LoadSettings(path)
	got := map[string]Handler{}
	foreign := 0
	for _, h := range s.Handlers() {
		got[h.Event] = h
	}
	for _, ev := range []string{PreToolUse, PostToolUse} {
		if got[ev].OnFailure != "block" {
			t.Errorf("%s: onFailure %q after install", ev, got[ev].OnFailure)
		}
	}
	if got[Stop].OnFailure != "" {
		t.Errorf("Stop: onFailure %q: only the tool events block", got[Stop].OnFailure)
	}
	b, _ := os.ReadFile(path)
	if !bytes.Contains(b, []byte(`"command": "./check.sh"`)) || !bytes.Contains(b, []byte(`"timeout": 7`)) || !bytes.Contains(b, []byte(`"command": "git exarchos hook claude"`)) {
		t.Errorf("the upgrade moved more than onFailure:\n%s", b)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if strings.Contains(l, "check.sh") {
			foreign++
		}
	}
	if foreign != 1 || bytes.Count(b, []byte(`"onFailure"`)) != 2 {
		t.Errorf("foreign handler or onFailure count wrong:\n%s", b)
	}
	s, _ = LoadSettings(path)
	if changed, err := s.Install("git-exarchos hook claude", ClaudeEntries); err != nil || changed {
		t.Fatalf("second install changed the file: %v %v", changed, err)
	}
	if !bytes.Equal(s.Bytes(), b) {
		t.Errorf("second install rewrote the file:\n%s", s.Bytes())
	}
}

func TestIsClaudeCommand(t *testing.T) {
	for cmd, want := range map[string]bool{
		"git exarchos hook claude":                   true,
		"git-exarchos hook claude":                   true,
		"/home/me/go/bin/git-exarchos hook claude":   true,
		"  git   exarchos  hook claude --verbose":    true,
		"git exarchos hook git pre-push":             false,
		"./scripts/git-exarchos-wrapper hook claude": false,
		"echo git exarchos hook claude":              false,
	} {
		if IsClaudeCommand(cmd) != want {
			t.Errorf("%q: want %v", cmd, want)
		}
	}
}

func TestGitHooksInstallUninstall(t *testing.T) {
	dir := t.TempDir()
	prev := []byte("#!/bin/sh\necho previous\n")
	if err := os.WriteFile(filepath.Join(dir, "post-merge"), prev, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/usr/local/share/hooks/pre-push", filepath.Join(dir, "pre-push")); err != nil {
		t.Fatal(err)
	}
	if _, err := InstallGitHooks(dir); err != nil {
		t.Fatal(err)
	}
	for _, st := range GitHooksStatus(dir) {
		if !st.Installed || st.Chained != (st.Name != "post-checkout") {
			t.Errorf("after install: %+v", st)
		}
	}
	if _, err := UninstallGitHooks(dir); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "post-merge")); !bytes.Equal(b, prev) {
		t.Errorf("post-merge not restored: %q", b)
	}
	if fi, _ := os.Stat(filepath.Join(dir, "post-merge")); fi.Mode().Perm() != 0o700 {
		t.Errorf("post-merge mode %v", fi.Mode())
	}
	if target, err := os.Readlink(filepath.Join(dir, "pre-push")); err != nil || target != "/usr/local/share/hooks/pre-push" {
		t.Errorf("the pre-push symlink was not restored: %q %v", target, err)
	}
	if _, err := os.Lstat(filepath.Join(dir, "post-checkout")); !os.IsNotExist(err) {
		t.Errorf("post-checkout left behind: %v", err)
	}
	// A leftover chained file next to a foreign hook is not overwritten.
	os.WriteFile(filepath.Join(dir, "post-checkout"), prev, 0o755)
	os.WriteFile(filepath.Join(dir, "post-checkout"+ChainedSuffix), prev, 0o755)
	if _, err := InstallGitHooks(dir); err == nil || !strings.Contains(err.Error(), "move one of them away by hand") {
		t.Errorf("install over a leftover: %v", err)
	}
}
