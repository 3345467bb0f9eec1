package main

import (
	"os"
	"path/filepath"
	"strings"
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
// cistep) is the one the repository ships; its verify step gives verify the job's token (cistep
// runs a step's command, not its env: the script sets GITHUB_TOKEN itself) and the permissions
// that read the pull request and its checks, and requires GitHub's word.
func TestCIWorkflowFile(t *testing.T) {
	b, err := os.ReadFile(filepath.FromSlash(ciWorkflow))
	if err != nil {
		t.Fatal(err)
	}
	var wf struct {
		Permissions map[string]string `yaml:"permissions"`
		Jobs        map[string]struct {
			Steps []struct {
				ID  string            `yaml:"id"`
				Run string            `yaml:"run"`
				Env map[string]string `yaml:"env"`
			} `yaml:"steps"`
		} `yaml:"jobs"`
	}
	if err := yaml.Unmarshal(b, &wf); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"pull-requests", "checks", "statuses"} {
		if wf.Permissions[p] != "read" {
			t.Errorf("permissions: %s is %q, want read (verify reads the pull request and its checks)", p, wf.Permissions[p])
		}
	}
	found := false
	for _, job := range wf.Jobs {
		for _, s := range job.Steps {
			if s.ID != "verify" {
				continue
			}
			found = true
			if s.Env["GITHUB_TOKEN"] != "${{ github.token }}" {
				t.Errorf("the verify step's env GITHUB_TOKEN is %q, want ${{ github.token }}", s.Env["GITHUB_TOKEN"])
			}
			for _, flag := range []string{"--require-github", "--require-protected-base"} {
				if !strings.Contains(s.Run, flag) {
					t.Errorf("the verify step does not pass %s: %s", flag, s.Run)
				}
			}
		}
	}
	if !found {
		t.Fatal("no step with id verify")
	}
}
