package ghactions_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/exarchos/git-exarchos/internal/ghactions"
	"github.com/exarchos/git-exarchos/internal/gittest"
)

func TestMain(m *testing.M) { os.Exit(gittest.RunIsolated(m)) }

// base is a workflow on both events: for pull_request_target the base's copy runs, for
// pull_request the merge commit's.
const target = `name: t
on: pull_request_target
permissions:
  contents: read
jobs:
  gates:
    permissions: {}
    steps:
      - uses: actions/checkout@v4
        with:
          ref: ${{ github.event.pull_request.head.sha }}
          persist-credentials: false
      - id: gate
        run: |
          echo "gate on $(git rev-parse HEAD) token=[${GITHUB_TOKEN:-}] header=[$(git config --get http.https://github.com/.extraheader || true)]"
          test -f feature.txt
  verify:
    needs: gates
    steps:
      - uses: actions/checkout@v4
        with:
          fetch-depth: 0
      - id: install
        run: exit 1
      - id: verify
        env:
          GITHUB_TOKEN: ${{ github.token }}
        run: echo "verify base copy ref=$GITHUB_REF sha=$GITHUB_SHA head=${{ github.event.pull_request.head.sha }} token=$GITHUB_TOKEN"
  verdict:
    name: required
    needs: [gates, verify]
    if: ${{ always() }}
    steps:
      - id: verdict
        env:
          GATES: ${{ needs.gates.result }}
        run: echo "gates=$GATES verify=${{ needs.verify.result }}"; test "$GATES" = success
`

const plain = `name: p
on:
  pull_request:
    branches: [main]
jobs:
  check:
    steps:
      - uses: actions/checkout@v4
      - run: echo "plain base copy ref=$GITHUB_REF"; git config --get http.https://github.com/.extraheader
`

func setup(t *testing.T) (origin, dev string) {
	t.Helper()
	dir := t.TempDir()
	origin = filepath.Join(dir, "origin.git")
	gittest.Git(t, "", "", "init", "-q", "--bare", "-b", "main", origin)
	dev = filepath.Join(dir, "dev")
	gittest.Git(t, "", "", "clone", "-q", origin, dev)
	gittest.Git(t, dev, "", "config", "user.name", "Dev")
	gittest.Git(t, dev, "", "config", "user.email", "dev@example.com")
	gittest.WriteFile(t, dev, ".github/workflows/target.yml", target)
	gittest.WriteFile(t, dev, ".github/workflows/plain.yml", plain)
	gittest.Git(t, dev, "", "add", ".")
	gittest.Git(t, dev, "", "commit", "-q", "-m", "workflows")
	gittest.Git(t, dev, "", "push", "-q", "origin", "HEAD:main")
	gittest.Git(t, dev, "", "checkout", "-q", "-b", "topic")
	gittest.WriteFile(t, dev, "feature.txt", "x\n")
	// The branch edits both workflows so that every step only echoes.
	gittest.WriteFile(t, dev, ".github/workflows/target.yml", strings.ReplaceAll(target, "verify base copy", "verify BRANCH copy"))
	gittest.WriteFile(t, dev, ".github/workflows/plain.yml", strings.ReplaceAll(plain, "plain base copy", "plain BRANCH copy"))
	gittest.Git(t, dev, "", "add", ".")
	gittest.Git(t, dev, "", "commit", "-q", "-m", "feature")
	gittest.Git(t, dev, "", "push", "-q", "origin", "topic")
	return origin, dev
}

func trigger(t *testing.T, origin string) *ghactions.Run {
	t.Helper()
	run, err := ghactions.Trigger(ghactions.PullRequest{Origin: origin, Base: "main", Head: "topic"},
		ghactions.Options{Dir: t.TempDir(), Env: gittest.Env(), Skip: []string{"install"}, Token: "ghs_TOKEN"})
	if err != nil {
		t.Fatal(err)
	}
	return run
}

// TestWhichCopyRuns: pull_request runs the merge commit's copy (the branch's edit), and
// pull_request_target the base's; refs/pull/1/merge is made in the origin.
func TestWhichCopyRuns(t *testing.T) {
	origin, _ := setup(t)
	run := trigger(t, origin)
	t.Log(run)
	p := run.Job("pull_request", ".github/workflows/plain.yml", "check")
	if p == nil || p.Status != "success" || !strings.Contains(p.Output, "plain BRANCH copy ref=refs/pull/1/merge") {
		t.Fatalf("pull_request did not run the merge commit's copy: %+v", p)
	}
	if run.Job("pull_request", ".github/workflows/target.yml", "verify") != nil {
		t.Fatal("a pull_request_target workflow ran for pull_request")
	}
	v := run.Job("pull_request_target", ".github/workflows/target.yml", "verify")
	if v == nil || v.Status != "success" || !strings.Contains(v.Output, "verify base copy ref=refs/heads/main") {
		t.Fatalf("pull_request_target did not run the base's copy: %+v", v)
	}
	head := gittest.Git(t, origin, "", "rev-parse", "refs/heads/topic")
	if !strings.Contains(v.Output, "head="+strings.TrimSpace(head)) {
		t.Errorf("github.event.pull_request.head.sha is not the head: %s", v.Output)
	}
	if got := strings.TrimSpace(gittest.Git(t, origin, "", "rev-parse", "refs/pull/1/merge^2")); got != strings.TrimSpace(head) {
		t.Errorf("refs/pull/1/merge's second parent is %s, want the head %s", got, head)
	}
	if strings.Contains(v.Output, "BRANCH") {
		t.Errorf("the branch's copy ran for pull_request_target: %s", v.Output)
	}
}

// TestTokenAndNeeds: a job with permissions {} and a checkout that does not persist credentials
// sees no token; the token reaches only the steps that name it or a persisting checkout; a job
// whose need failed is skipped.
func TestTokenAndNeeds(t *testing.T) {
	origin, _ := setup(t)
	run := trigger(t, origin)
	g := run.Job("pull_request_target", ".github/workflows/target.yml", "gates")
	if g.Status != "success" || len(g.Permissions) != 0 || len(g.TokenGiven) != 0 || strings.Contains(g.Output, "ghs_TOKEN") {
		t.Fatalf("gates job: %+v", g)
	}
	if !strings.Contains(g.Output, "token=[] header=[]") {
		t.Errorf("the gates job's step saw a token: %s", g.Output)
	}
	v := run.Job("pull_request_target", ".github/workflows/target.yml", "verify")
	if !strings.Contains(v.Output, "token=ghs_TOKEN") || strings.Join(v.TokenGiven, ",") != "actions/checkout@v4,verify" {
		t.Errorf("verify job: token given to %v: %s", v.TokenGiven, v.Output)
	}
	if v.Permissions["contents"] != "read" {
		t.Errorf("the workflow's permissions did not reach the job: %v", v.Permissions)
	}
	p := run.Job("pull_request", ".github/workflows/plain.yml", "check")
	if !strings.Contains(p.Output, "AUTHORIZATION: basic ") {
		t.Errorf("a default checkout did not persist the token: %s", p.Output)
	}

	// A gate that fails: the job that needs it is skipped.
	dev := filepath.Join(filepath.Dir(origin), "dev")
	gittest.Git(t, dev, "", "rm", "-q", "feature.txt")
	gittest.Git(t, dev, "", "commit", "-q", "-m", "drop")
	gittest.Git(t, dev, "", "push", "-q", "origin", "topic")
	run = trigger(t, origin)
	g = run.Job("pull_request_target", ".github/workflows/target.yml", "gates")
	v = run.Job("pull_request_target", ".github/workflows/target.yml", "verify")
	if g.Status != "failure" || v.Status != "skipped" {
		t.Fatalf("gates %s, verify %s; want failure, skipped\n%s", g.Status, v.Status, g.Output)
	}
	// A skipped job meets a required check of its name; a job with if: always() runs and sees
	// its needs' results.
	if met, _ := run.Check("verify"); !met {
		t.Error("a skipped job does not meet a required check of its name: GitHub's does")
	}
	d := run.Job("pull_request_target", ".github/workflows/target.yml", "verdict")
	if d.Status != "failure" || !strings.Contains(d.Output, "gates=failure verify=skipped") {
		t.Errorf("if: always() job: %s\n%s", d.Status, d.Output)
	}
	if met, jobs := run.Check("required"); met || len(jobs) != 1 {
		t.Errorf("required check met=%v by %d jobs, want unmet by the one failed job", met, len(jobs))
	}
}

// TestUnmodelledIsRefused: what the harness does not model is an error, not a silent pass.
func TestUnmodelledIsRefused(t *testing.T) {
	origin, dev := setup(t)
	gittest.Git(t, dev, "", "checkout", "-q", "main")
	gittest.WriteFile(t, dev, ".github/workflows/target.yml", strings.ReplaceAll(target, "${{ github.event.pull_request.head.sha }}\n", "${{ github.event.pull_request.title }}\n"))
	gittest.Git(t, dev, "", "commit", "-q", "-am", "title")
	gittest.Git(t, dev, "", "push", "-q", "origin", "main")
	_, err := ghactions.Trigger(ghactions.PullRequest{Origin: origin, Base: "main", Head: "topic"},
		ghactions.Options{Dir: t.TempDir(), Env: gittest.Env(), Skip: []string{"install"}})
	if err == nil || !strings.Contains(err.Error(), "github.event.pull_request.title") {
		t.Fatalf("err = %v, want the unmodelled expression named", err)
	}
}

// TestForkPullRequest: for pull_request from a fork, a step naming a secret gets an empty string
// and the token reads at most; from the repository itself, the secret is given.
func TestForkPullRequest(t *testing.T) {
	origin, dev := setup(t)
	gittest.WriteFile(t, dev, ".github/workflows/fork.yml", `on: pull_request
permissions:
  contents: write
jobs:
  s:
    steps:
      - run: echo "s=[${{ secrets.S }}]"
`)
	gittest.Git(t, dev, "", "add", ".")
	gittest.Git(t, dev, "", "commit", "-q", "-m", "fork workflow")
	gittest.Git(t, dev, "", "push", "-q", "origin", "topic")
	for _, fork := range []bool{false, true} {
		run, err := ghactions.Trigger(ghactions.PullRequest{Origin: origin, Base: "main", Head: "topic", Fork: fork},
			ghactions.Options{Dir: t.TempDir(), Env: gittest.Env(), Skip: []string{"install"}, Secrets: map[string]string{"S": "val"}, Events: []string{"pull_request"}})
		if err != nil {
			t.Fatal(err)
		}
		j := run.Job("pull_request", ".github/workflows/fork.yml", "s")
		want, perm, given := "s=[val]", "write", 1
		if fork {
			want, perm, given = "s=[]", "read", 0
		}
		if !strings.Contains(j.Output, want) || j.Permissions["contents"] != perm || len(j.SecretsGiven) != given {
			t.Errorf("fork %v: %v %v\n%s", fork, j.Permissions, j.SecretsGiven, j.Output)
		}
	}
}
