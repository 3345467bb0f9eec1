package main

import (
	"fmt"
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

// cmdCIStep runs one step of the shipped CI workflow, by id (`job.id` where jobs share an id with
// different commands), with sh -e as Actions does: `cistep fetch`, `cistep gates`. The script's
// environment (GITHUB_BASE_REF, …) is the step's. What GitHub runs around the steps (which copy
// of the file, the jobs' order, permissions, the token) is internal/ghactions's: ci_workflow_test.go.
func cmdCIStep(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: cistep [<job>.]<step-id>")
	}
	run, err := ciStep(args[0])
	ts.Check(err)
	err = ts.Exec("sh", "-e", "-c", run)
	if neg && err == nil {
		ts.Fatalf("step %s succeeded", args[0])
	}
	if !neg && err != nil {
		ts.Fatalf("step %s: %v", args[0], err)
	}
}

// shippedWorkflow is the part of the shipped workflow the tests read.
type shippedWorkflow struct {
	On          map[string]any    `yaml:"on"`
	Permissions map[string]string `yaml:"permissions"`
	Jobs        map[string]struct {
		Name        string            `yaml:"name"`
		Needs       any               `yaml:"needs"`
		If          string            `yaml:"if"`
		Permissions map[string]string `yaml:"permissions"`
		Steps       []struct {
			ID   string            `yaml:"id"`
			If   string            `yaml:"if"`
			Uses string            `yaml:"uses"`
			Run  string            `yaml:"run"`
			With map[string]string `yaml:"with"`
			Env  map[string]string `yaml:"env"`
		} `yaml:"steps"`
	} `yaml:"jobs"`
}

func readShippedWorkflow() (*shippedWorkflow, string, error) {
	b, err := os.ReadFile(filepath.FromSlash(ciWorkflow))
	if err != nil {
		return nil, "", err
	}
	var wf shippedWorkflow
	return &wf, string(b), yaml.Unmarshal(b, &wf)
}

// ciStep is the run: of the step with the given id ("job.id" names the job): the one step of
// that id, or several with the same command.
func ciStep(id string) (string, error) {
	wf, _, err := readShippedWorkflow()
	if err != nil {
		return "", err
	}
	job, step, inJob := strings.Cut(id, ".")
	if !inJob {
		job, step = "", id
	}
	run, found := "", false
	for name, j := range wf.Jobs {
		if job != "" && name != job {
			continue
		}
		for _, s := range j.Steps {
			if s.ID != step {
				continue
			}
			if found && s.Run != run {
				return "", fmt.Errorf("steps %q of several jobs run different commands: name the job (job.%s)", step, step)
			}
			run, found = s.Run, true
		}
	}
	if !found {
		return "", fmt.Errorf("no step %q in %s", id, ciWorkflow)
	}
	return run, nil
}

// TestCIWorkflowFile: the workflow the scripts run (testdata/script/ci_verify.txtar, through
// cistep) is the one the repository ships, and its shape is what docs/verify.md says: GitHub runs
// the base's copy (pull_request_target only); the gates job runs the recorded gates again and
// holds nothing (no permissions, no secret, no token named, a checkout that keeps no
// credentials); the verify job, the required check, needs it, runs whatever it concluded and
// fails unless it succeeded, reads the pull request with the job's token and requires GitHub's
// word; no job builds the pull request's code into the binary.
func TestCIWorkflowFile(t *testing.T) {
	wf, text, err := readShippedWorkflow()
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := wf.On["pull_request_target"]; !ok || len(wf.On) != 1 {
		t.Errorf("on: %v, want pull_request_target alone (GitHub runs the base's copy of the file)", wf.On)
	}
	if len(wf.Permissions) != 0 {
		t.Errorf("workflow permissions %v, want {} (each job names its own)", wf.Permissions)
	}
	gates, verifyJob := wf.Jobs["gates"], wf.Jobs["verify"]
	if len(gates.Permissions) != 0 || gates.Steps == nil {
		t.Errorf("the gates job (it runs the branch's code) has permissions %v, want {}", gates.Permissions)
	}
	for _, s := range gates.Steps {
		for _, v := range append(append([]string{s.Run}, values(s.With)...), values(s.Env)...) {
			if strings.Contains(v, "secrets.") || strings.Contains(v, "github.token") {
				t.Errorf("the gates job's step %q is given a secret or the token: %s", s.ID, v)
			}
		}
		if strings.HasPrefix(s.Uses, "actions/checkout@") && s.With["persist-credentials"] != "false" {
			t.Errorf("the gates job's checkout keeps the token in .git/config (persist-credentials: %q)", s.With["persist-credentials"])
		}
	}
	if run, _ := ciStep("gates.gates"); !strings.Contains(run, "--rerun-gates") {
		t.Errorf("the gates job does not run the gates again: %q", run)
	}
	if verifyJob.Name != "exarchos verify" || verifyJob.Needs != "gates" || verifyJob.If != "${{ always() }}" {
		t.Errorf("the verify job: name %q, needs %v, if %q; want the required check \"exarchos verify\", needing gates, run always", verifyJob.Name, verifyJob.Needs, verifyJob.If)
	}
	for p, want := range map[string]string{"pull-requests": "read", "checks": "write", "statuses": "write"} {
		if verifyJob.Permissions[p] != want {
			t.Errorf("verify job permissions: %s is %q, want %s (verify reads the pull request and its checks and writes what it verified as check runs; the report step posts the verdict on the head)", p, verifyJob.Permissions[p], want)
		}
	}
	found := 0
	for _, s := range verifyJob.Steps {
		switch s.ID {
		case "verify":
			found++
			if s.Env["GITHUB_TOKEN"] != "${{ github.token }}" {
				t.Errorf("the verify step's env GITHUB_TOKEN is %q, want ${{ github.token }}", s.Env["GITHUB_TOKEN"])
			}
			for _, flag := range []string{"--require-github", "--require-protected-base", "--remember"} {
				if !strings.Contains(s.Run, flag) {
					t.Errorf("the verify step does not pass %s: %s", flag, s.Run)
				}
			}
			if strings.Contains(s.Run, "--rerun-gates") {
				t.Errorf("the verify step must run no gate (no branch code where the token is): %s", s.Run)
			}
		case "report":
			found++
			if s.If != "${{ always() }}" || s.Env["HEAD_SHA"] != "${{ github.event.pull_request.head.sha }}" || !strings.Contains(s.Run, "/statuses/${HEAD_SHA}") || !strings.Contains(s.Run, `\"context\":\"exarchos verify\"`) {
				t.Errorf("the report step must post the job's verdict as the status \"exarchos verify\" on the pull request's head, whatever happened: if %q env %v run %s", s.If, s.Env, s.Run)
			}
		case "gates-result":
			found++
			if s.Env["GATES_RESULT"] != "${{ needs.gates.result }}" {
				t.Errorf("the gates-result step reads %q, want ${{ needs.gates.result }}", s.Env["GATES_RESULT"])
			}
		case "checkout":
			if s.With["ref"] != "" {
				t.Errorf("the verify job checks out %q: it must keep the base's commit (pull_request_target's default)", s.With["ref"])
			}
		}
	}
	if found != 3 {
		t.Fatal("the verify job lacks a step with id verify, gates-result or report")
	}
	// The binary comes from the module proxy, never from the checkout.
	for _, bad := range []string{"go build", "go install ./", "go run", "${{ github.head_ref }}", "${{ github.event.pull_request.head.ref }}", "${{ github.event.pull_request.title"} {
		if strings.Contains(text, bad) {
			t.Errorf("the workflow contains %q", bad)
		}
	}
}

func values(m map[string]string) []string {
	var out []string
	for _, v := range m {
		out = append(out, v)
	}
	return out
}
