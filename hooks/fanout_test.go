package hooks

import (
	"strings"
	"testing"

	"github.com/exarchos/git-exarchos/workflow"
)

// stagedDef: phase checks runs test (go test, reading) and lint (golangci-lint, reading) in
// parallel, and refuses WebFetch itself; review has no envelope.
var stagedDef = &workflow.Definition{
	Type: "staged", Initial: "checks",
	Phases: []workflow.Phase{
		{ID: "checks", Kind: workflow.Normal, Tools: workflow.Envelope{Deny: []string{"WebFetch"}, AllowedTools: []string{"Read"}}},
		{ID: "review", Kind: workflow.Normal},
		{ID: "done", Kind: workflow.Final},
	},
	Stages: []workflow.Stage{
		{ID: "test", Tools: workflow.Envelope{AllowedTools: []string{"Read", "Bash(go test:*)"}}},
		{ID: "lint", Tools: workflow.Envelope{AllowedTools: []string{"Read", "Bash(golangci-lint:*)"}}},
	},
	Fanouts:     []workflow.Fanout{{Phase: "checks", Stages: []string{"test", "lint"}, Join: "review"}},
	Transitions: []workflow.Transition{{From: "checks", To: "review"}, {From: "review", To: "done"}},
}

func stagedBound(stages map[string]string) Bound {
	run := &workflow.StageRun{Phase: "checks", Stages: map[string]workflow.StageStatus{}}
	for id, st := range stages {
		run.Stages[id] = workflow.StageStatus{Status: st}
	}
	return Bound{Feature: "f", Def: stagedDef, Root: "/repo", State: workflow.State{Feature: "f", Type: "staged", Phase: "checks", Branch: "f", Fanout: run}}
}

// While stages run, a tool call passes when one running stage's envelope allows it; a stage that
// completed, failed or was cancelled no longer lends its tools; with none running the fan-out
// phase's own envelope holds; its refusals hold throughout.
func TestFanoutHookPolicyIsTheRunningStagesUnion(t *testing.T) {
	goTest := ToolInput{Command: "go test ./..."}
	lint := ToolInput{Command: "golangci-lint run"}
	for _, tc := range []struct {
		name   string
		stages map[string]string
		tool   string
		ti     ToolInput
		ok     bool
	}{
		{"go test while both run", map[string]string{"test": "running", "lint": "running"}, "Bash", goTest, true},
		{"lint while both run", map[string]string{"test": "running", "lint": "running"}, "Bash", lint, true},
		{"neither stage's tool", map[string]string{"test": "running", "lint": "running"}, "Bash", ToolInput{Command: "rm -rf ."}, false},
		{"the phase's refusal holds", map[string]string{"test": "running", "lint": "running"}, "WebFetch", ToolInput{}, false},
		{"go test after test completed", map[string]string{"test": "completed", "lint": "running"}, "Bash", goTest, false},
		{"lint still running", map[string]string{"test": "completed", "lint": "running"}, "Bash", lint, true},
		{"go test after test was cancelled", map[string]string{"test": "cancelled", "lint": "failed"}, "Bash", goTest, false},
		{"none running: the phase's own allow-list", map[string]string{"test": "completed", "lint": "completed"}, "Read", ToolInput{FilePath: "/repo/x.go"}, true},
		{"none running: lint's tool gone", map[string]string{"test": "completed", "lint": "completed"}, "Bash", lint, false},
		{"none running: a Bash call outside the phase's allow-list", map[string]string{"test": "completed", "lint": "completed"}, "Bash", ToolInput{Command: "git exarchos stage done f lint"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := Check(stagedBound(tc.stages), tc.tool, tc.ti, "/repo")
			if (v.Deny == "") != tc.ok {
				t.Fatalf("deny %q, want allowed=%v", v.Deny, tc.ok)
			}
		})
	}
	deny := CheckTool(stagedBound(map[string]string{"test": "completed", "lint": "running"}), "Bash", ToolInput{Command: "go test ./..."}, "/repo")
	if !strings.Contains(deny, "Its running stages (lint) allow, together, only Read, Bash(golangci-lint:*)") {
		t.Fatalf("denial %q", deny)
	}
}

// Stages that allow no tools still let the agent complete them.
func TestFanoutNoToolsStagesMoveOn(t *testing.T) {
	def := *stagedDef
	def.Stages = []workflow.Stage{{ID: "test", Tools: workflow.Envelope{NoTools: true}}, {ID: "lint", Tools: workflow.Envelope{NoTools: true}}}
	def.Phases = []workflow.Phase{{ID: "checks", Kind: workflow.Normal}, {ID: "review", Kind: workflow.Normal}, {ID: "done", Kind: workflow.Final}}
	w := stagedBound(map[string]string{"test": "running", "lint": "running"})
	w.Def = &def
	if v := Check(w, "Read", ToolInput{FilePath: "/repo/x"}, "/repo"); v.Deny == "" {
		t.Fatal("a read allowed while only no-tools stages run")
	}
	if v := Check(w, "Bash", ToolInput{Command: "git exarchos stage done f test"}, "/repo"); v.Deny != "" {
		t.Fatalf("stage done refused: %s", v.Deny)
	}
}

// A fresh session learns which stages run and how to end them.
func TestFanoutContextDocumentListsTheStages(t *testing.T) {
	doc := ContextDocument(stagedBound(map[string]string{"test": "completed", "lint": "running"}), "")
	if !strings.Contains(doc, "Stages of checks, in parallel: test completed, lint running (end each with git exarchos stage done|fail f <stage>; the join waits for all).") {
		t.Fatalf("context:\n%s", doc)
	}
}

// A call refused before a fan-out phase names the phase whose stages allow it.
func TestFanoutUnlockPathThroughTheStages(t *testing.T) {
	def := *stagedDef
	def.Initial = "build"
	def.Phases = append([]workflow.Phase{{ID: "build", Kind: workflow.Normal, Tools: workflow.Envelope{AllowedTools: []string{"Read"}}}}, stagedDef.Phases...)
	def.Transitions = append([]workflow.Transition{{From: "build", To: "checks"}}, stagedDef.Transitions...)
	w := Bound{Feature: "f", Def: &def, Root: "/repo", State: workflow.State{Feature: "f", Type: "staged", Phase: "build", Branch: "f"}}
	deny := CheckTool(w, "Bash", ToolInput{Command: "golangci-lint run"}, "/repo")
	if !strings.Contains(deny, "Bash is allowed from phase checks on, reached by build → checks") {
		t.Fatalf("denial %q", deny)
	}
}
