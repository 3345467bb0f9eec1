package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"gopkg.in/yaml.v3"
)

// The shipped CI workflow, run as GitHub runs it for a pull request (issue 37): a fresh clone of
// the origin checked out as actions/checkout does for a pull_request event, then each step of the
// workflow file with an id and a run, in order, with sh -e as Actions runs them and the variables
// Actions sets. The install step is stood in for by the built binary on PATH.

// ciWorkflowFile is the workflow the repository ships.
const ciWorkflowFile = ".github/workflows/exarchos-verify.yml"

// ciStep is one step of a job: its id, its command and its env.
type ciStep struct {
	ID  string            `yaml:"id"`
	Run string            `yaml:"run"`
	Env map[string]string `yaml:"env"`
}

// ciSteps reads the steps with an id and a run of the shipped workflow's job that verifies (the one
// with a step of id verify), in order.
func ciSteps() ([]ciStep, error) {
	b, err := os.ReadFile(filepath.Join(moduleRoot, ciWorkflowFile))
	if err != nil {
		return nil, err
	}
	var wf struct {
		Jobs map[string]struct {
			Steps []ciStep `yaml:"steps"`
		} `yaml:"jobs"`
	}
	if err := yaml.Unmarshal(b, &wf); err != nil {
		return nil, fmt.Errorf("%s: %w", ciWorkflowFile, err)
	}
	for _, job := range wf.Jobs {
		var out []ciStep
		verifies := false
		for _, s := range job.Steps {
			if s.ID != "" && s.Run != "" {
				out = append(out, s)
				verifies = verifies || s.ID == "verify"
			}
		}
		if verifies {
			return out, nil
		}
	}
	return nil, fmt.Errorf("%s has no job with a step of id verify", ciWorkflowFile)
}

// ciCheckout is what actions/checkout (fetch-depth: 0) leaves for a pull_request event: a fresh
// repository whose origin is the bare remote, every branch as a remote-tracking ref, and the pull
// request's merge ref (refs/pull/<n>/merge, which GitHub keeps) checked out detached.
func (e *Env) ciCheckout(pr int) (string, error) {
	dir := filepath.Join(e.T.TempDir(), "runner")
	merge := fmt.Sprintf("refs/pull/%d/merge", pr)
	for _, args := range [][]string{
		{"init", "-q", dir},
		{"-C", dir, "remote", "add", "origin", "file://" + e.Remote},
		{"-C", dir, "fetch", "-q", "--no-tags", "origin", "+refs/heads/*:refs/remotes/origin/*", "+" + merge + ":refs/remotes/pull/" + fmt.Sprint(pr) + "/merge"},
		{"-C", dir, "checkout", "-q", "--detach", "refs/remotes/pull/" + fmt.Sprint(pr) + "/merge"},
	} {
		if out, err := e.run(e.T.TempDir(), "git", args...); err != nil {
			return "", fmt.Errorf("checkout: git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	return dir, nil
}

// runCI runs the shipped workflow's steps for pull request pr (head into base) in a fresh
// checkout; it returns what they printed, and an error naming the first step that failed.
func (e *Env) runCI(pr int, head, base string) (string, error) {
	steps, err := ciSteps()
	if err != nil {
		return "", err
	}
	dir, err := e.ciCheckout(pr)
	if err != nil {
		return "", err
	}
	var log strings.Builder
	for _, s := range steps {
		if s.ID == "install" {
			continue // the built binary is on PATH (environ)
		}
		env := e.ciEnviron(head, base)
		for k, v := range s.Env {
			switch {
			case v == "${{ github.token }}":
				v = GitHubToken
			case strings.Contains(v, "${{"):
				return log.String(), fmt.Errorf("step %s: env %s=%s is an expression this runner does not know", s.ID, k, v)
			}
			env = append(env, k+"="+v)
		}
		cmd := exec.Command("sh", "-e", "-c", s.Run)
		cmd.Dir, cmd.Env = dir, env
		out, err := cmd.CombinedOutput()
		fmt.Fprintf(&log, "$ [%s] %s\n%s", s.ID, strings.TrimSpace(s.Run), out)
		if err != nil {
			return log.String(), fmt.Errorf("step %s failed: %v", s.ID, err)
		}
	}
	return log.String(), nil
}

// ciEnviron is a step's environment as Actions gives it for a pull_request: the harness's, without
// the human's GitHub token (only what a step's env names reaches it), with the event's variables.
func (e *Env) ciEnviron(head, base string) []string {
	var env []string
	for _, kv := range e.environ() {
		if !strings.HasPrefix(kv, "GH_TOKEN=") {
			env = append(env, kv)
		}
	}
	return append(env, "CI=true", "GITHUB_ACTIONS=true", "GITHUB_EVENT_NAME=pull_request",
		"GITHUB_HEAD_REF="+head, "GITHUB_BASE_REF="+base, "GITHUB_REPOSITORY=acme/app",
		"GITHUB_API_URL="+e.GitHub.URL)
}

// gitHubMerge does on the bare origin what GitHub does for pull request pr: with merge false, the
// test merge it keeps as refs/pull/<n>/merge (and the head as refs/pull/<n>/head) when the pull
// request is opened or its head moves; with merge true, the merge button (a merge commit on base,
// which becomes the merge ref too). It returns the merge commit.
func (e *Env) gitHubMerge(pr int, head, base string, merge bool) (string, error) {
	dir := filepath.Join(e.T.TempDir(), "github")
	git := func(args ...string) (string, error) {
		out, err := e.run(dir, "git", args...)
		if err != nil {
			return "", fmt.Errorf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return strings.TrimSpace(out), nil
	}
	if out, err := e.run(e.T.TempDir(), "git", "clone", "-q", "file://"+e.Remote, dir); err != nil {
		return "", fmt.Errorf("git clone: %v\n%s", err, out)
	}
	steps := [][]string{
		{"checkout", "-q", "--detach", "origin/" + base},
		{"merge", "-q", "--no-ff", "-m", fmt.Sprintf("Merge pull request #%d from acme/%s", pr, head), "origin/" + head},
	}
	for _, s := range steps {
		if _, err := git(s...); err != nil {
			return "", err
		}
	}
	sha, err := git("rev-parse", "HEAD")
	if err != nil {
		return "", err
	}
	refs := []string{"origin/" + head + fmt.Sprintf(":refs/pull/%d/head", pr), fmt.Sprintf("HEAD:refs/pull/%d/merge", pr)}
	if merge {
		refs = append(refs, "HEAD:refs/heads/"+base)
	}
	if _, err := git(append([]string{"push", "-q", "--force", "origin"}, refs...)...); err != nil {
		return "", err
	}
	return sha, nil
}
