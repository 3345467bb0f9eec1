package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
	"gopkg.in/yaml.v3"
)

// ciWorkflow is the GitHub Actions workflow the repository ships (docs/trust.md: "CI: verify as the
// merge gate").
const ciWorkflow = "../../.github/workflows/exarchos-verify.yml"

func init() { extraScriptCmds["cistep"] = cmdCIStep }

// cmdCIStep runs one step of the shipped CI workflow, by id, with sh -e as Actions does:
// `cistep fetch`. The script's environment (GITHUB_BASE_REF, …) is the step's.
func cmdCIStep(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: cistep <step-id>")
	}
	run := ciStep(ts, args[0])
	err := ts.Exec("sh", "-e", "-c", run)
	if neg && err == nil {
		ts.Fatalf("step %s succeeded", args[0])
	}
	if !neg && err != nil {
		ts.Fatalf("step %s: %v", args[0], err)
	}
}

func ciStep(ts *testscript.TestScript, id string) string {
	b, err := os.ReadFile(ciWorkflow)
	ts.Check(err)
	var wf struct {
		Jobs map[string]struct {
			Steps []struct {
				ID  string `yaml:"id"`
				Run string `yaml:"run"`
			} `yaml:"steps"`
		} `yaml:"jobs"`
	}
	ts.Check(yaml.Unmarshal(b, &wf))
	for _, job := range wf.Jobs {
		for _, s := range job.Steps {
			if s.ID == id {
				return s.Run
			}
		}
	}
	ts.Fatalf("no step %q in %s", id, ciWorkflow)
	return ""
}

// TestCIWorkflowFile: the workflow the scripts run (testdata/script/ci_verify.txtar, through
// cistep) is the one the repository ships.
func TestCIWorkflowFile(t *testing.T) {
	if _, err := os.Stat(filepath.FromSlash(ciWorkflow)); err != nil {
		t.Fatal(err)
	}
}
