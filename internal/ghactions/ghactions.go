// Package ghactions runs a repository's GitHub Actions workflows for a pull request the way GitHub
// does, as far as the tests of the shipped CI workflow (.github/workflows/exarchos-verify.yml) need
// it, against a bare origin on disk. It is a test helper: only tests import it. It may import the
// standard library and gopkg.in/yaml.v3 (the workflow files), no package of this module.
//
// What it models, each point as GitHub documents it ("Events that trigger workflows",
// "Automatic token authentication", "Controlling permissions for GITHUB_TOKEN", actions/checkout's
// README):
//
//   - Which copy of a workflow file runs. For pull_request, the file as the pull request's merge
//     commit holds it (refs/pull/N/merge: the head merged into the base), so the branch can edit it;
//     GITHUB_REF is refs/pull/N/merge and GITHUB_SHA that merge commit. For pull_request_target,
//     the file as the base branch holds it (its newest commit); GITHUB_REF is the base branch and
//     GITHUB_SHA its newest commit. No workflow runs when the head does not merge into the base.
//   - Which jobs run, in which order: a job runs once every job it `needs` succeeded; otherwise it is
//     skipped, unless its `if` is always() (needs.<id>.result then says what each concluded). A
//     step runs while the steps before it succeeded, unless its `if` is always() or failure()
//     (job.status says which). The workflow's `permissions`, overridden by a job's; `permissions: {}` grants nothing.
//   - Where the job's token and the secrets reach a step: GITHUB_TOKEN only where an expression names
//     it (`${{ github.token }}`, `${{ secrets.GITHUB_TOKEN }}`) or where actions/checkout persists it
//     in the clone's git config (persist-credentials, true by default); `${{ secrets.NAME }}` is
//     empty for pull_request from a fork and given otherwise. A job whose permissions are empty still
//     has a token (with no scope): the harness gives it the same way, so a test sees where it leaks.
//   - Each job in a fresh workspace; `run:` steps with `sh -e -c`, with the variables Actions sets
//     (GITHUB_EVENT_NAME, GITHUB_BASE_REF, GITHUB_HEAD_REF, GITHUB_REF, GITHUB_SHA, GITHUB_API_URL,
//     GITHUB_REPOSITORY, GITHUB_WORKSPACE, CI…) and the workflow's, job's and step's env;
//     actions/checkout as a clone of the origin at `ref` (default GITHUB_SHA), full history with
//     fetch-depth: 0, one commit otherwise.
//
// What it does not model: runners, caches, artifacts, services, matrices, any `if:` but the status
// functions (a workflow using them is refused, not run differently), the events' activity types and path filters (a `branches`
// filter on the base is honoured), forks' repositories (Fork only changes what secrets and the token
// are given). Steps that install tools (actions/setup-go, a step whose id is in Options.Skip) are
// skipped: Options.Path puts the binary under test on PATH instead.
package ghactions

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"
)

// PullRequest is the pull request whose events are run, and the repository it lives in.
type PullRequest struct {
	Origin     string // the bare repository standing for GitHub's copy
	Repository string // owner/name, GITHUB_REPOSITORY (default acme/app)
	Number     int    // default 1
	Base, Head string // branch names, GITHUB_BASE_REF and GITHUB_HEAD_REF
	// Fork: the head comes from a fork; pull_request then gets no secrets and a read-only token.
	Fork bool
}

// Options is what the runner's machine holds.
type Options struct {
	Dir     string            // scratch directory: each job's workspace is made under it
	Env     []string          // the runner's environment (HOME, PATH…); nothing else is inherited
	Path    string            // directories put first on PATH (the binary under test)
	Skip    []string          // ids of steps skipped (the install steps Path stands for)
	APIURL  string            // GITHUB_API_URL (default https://api.github.com)
	Token   string            // the value of each job's GITHUB_TOKEN (default a fixed fake)
	Secrets map[string]string // the repository's secrets
	// Events are the events fired (default pull_request then pull_request_target, as GitHub fires
	// both when a pull request is opened or pushed to).
	Events []string
}

// Run is what one event ran: every workflow it triggered.
type Run struct {
	Workflows []*WorkflowRun
}

// WorkflowRun is one workflow file run for one event.
type WorkflowRun struct {
	File   string // path in the repository, .github/workflows/…
	Name   string
	Event  string // pull_request or pull_request_target
	Source string // the commit the file was read from (the merge commit, or the base's tip)
	Ref    string // GITHUB_REF
	SHA    string // GITHUB_SHA
	Jobs   []*JobRun
}

// JobRun is one job's result.
type JobRun struct {
	ID, Name    string
	Needs       []string
	Permissions map[string]string // effective: scope → read/write; empty map grants nothing
	Status      string            // success, failure or skipped
	Output      string            // the steps' combined stdout and stderr, each step headed
	// TokenGiven lists the steps the job's token reached (by an expression or a persisted checkout).
	TokenGiven []string
	// SecretsGiven lists the secrets (by name) some step of the job was given.
	SecretsGiven []string
}

// Job returns the job run with the given id in the workflow file run for event, or nil.
func (r *Run) Job(event, file, id string) *JobRun {
	for _, w := range r.Workflows {
		if w.Event == event && w.File == file {
			for _, j := range w.Jobs {
				if j.ID == id {
					return j
				}
			}
		}
	}
	return nil
}

// Check is what a required status check named name sees: GitHub matches required checks by name
// alone (a job's check is its name, else its id), whatever workflow, event or copy of a file the
// job came from, and a job skipped because a job it needs failed reports success to it. It
// returns whether the requirement is met (some job of that name succeeded or was skipped, none of
// them running) and every job of that name.
func (r *Run) Check(name string) (bool, []*JobRun) {
	var jobs []*JobRun
	met := false
	for _, w := range r.Workflows {
		for _, j := range w.Jobs {
			if j.Name == name {
				jobs = append(jobs, j)
				met = met || j.Status == "success" || j.Status == "skipped"
			}
		}
	}
	return met, jobs
}

// String is a summary a test prints on failure: each workflow, the copy it ran, each job's status.
func (r *Run) String() string {
	var b strings.Builder
	for _, w := range r.Workflows {
		fmt.Fprintf(&b, "%s %s (from %.12s):\n", w.Event, w.File, w.Source)
		for _, j := range w.Jobs {
			fmt.Fprintf(&b, "  job %s: %s\n", j.ID, j.Status)
		}
	}
	return b.String()
}

const defaultToken = "ghs_fakeActionsToken0123456789abcdefABCD"

// Trigger runs what GitHub runs when the pull request is opened (or its head pushed): it makes
// refs/pull/N/head and refs/pull/N/merge in the origin, then runs every workflow each event
// triggers, from the copy of the file that event reads. A job that fails is a result, not an error;
// an error is a workflow the harness cannot run as GitHub would (unsupported syntax, no merge).
func Trigger(pr PullRequest, o Options) (*Run, error) {
	if pr.Repository == "" {
		pr.Repository = "acme/app"
	}
	if pr.Number == 0 {
		pr.Number = 1
	}
	if o.APIURL == "" {
		o.APIURL = "https://api.github.com"
	}
	if o.Token == "" {
		o.Token = defaultToken
	}
	if len(o.Events) == 0 {
		o.Events = []string{"pull_request", "pull_request_target"}
	}
	h := &harness{pr: pr, o: o}
	baseSHA, err := h.git(pr.Origin, "rev-parse", "--verify", "refs/heads/"+pr.Base+"^{commit}")
	if err != nil {
		return nil, fmt.Errorf("base branch %s: %w", pr.Base, err)
	}
	headSHA, err := h.git(pr.Origin, "rev-parse", "--verify", "refs/heads/"+pr.Head+"^{commit}")
	if err != nil {
		return nil, fmt.Errorf("head branch %s: %w", pr.Head, err)
	}
	mergeSHA, err := h.mergeCommit(baseSHA, headSHA)
	if err != nil {
		return nil, err
	}
	h.base, h.head, h.merge = baseSHA, headSHA, mergeSHA
	run := &Run{}
	for _, ev := range o.Events {
		var source, ref string
		switch ev {
		case "pull_request":
			source, ref = mergeSHA, fmt.Sprintf("refs/pull/%d/merge", pr.Number)
		case "pull_request_target":
			source, ref = baseSHA, "refs/heads/"+pr.Base
		default:
			return nil, fmt.Errorf("event %q: the harness runs pull_request and pull_request_target", ev)
		}
		files, err := h.git(pr.Origin, "ls-tree", "--name-only", source, ".github/workflows/")
		if err != nil {
			return nil, err
		}
		for _, f := range strings.Fields(files) {
			if ext := path.Ext(f); ext != ".yml" && ext != ".yaml" {
				continue
			}
			text, err := h.git(pr.Origin, "cat-file", "blob", source+":"+f)
			if err != nil {
				return nil, err
			}
			wf, err := parse([]byte(text))
			if err != nil {
				return nil, fmt.Errorf("%s at %.12s: %w", f, source, err)
			}
			if !wf.triggeredBy(ev, pr.Base) {
				continue
			}
			wr := &WorkflowRun{File: f, Name: wf.Name, Event: ev, Source: source, Ref: ref, SHA: source}
			if err := h.runWorkflow(wf, wr); err != nil {
				return nil, fmt.Errorf("%s (%s): %w", f, ev, err)
			}
			run.Workflows = append(run.Workflows, wr)
		}
	}
	return run, nil
}

type harness struct {
	pr                PullRequest
	o                 Options
	base, head, merge string
	n                 int
}

// git runs git in dir with the runner's environment and returns its trimmed stdout.
func (h *harness) git(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = h.o.Env
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return "", fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, ee.Stderr)
		}
		return "", fmt.Errorf("git %s: %w", strings.Join(args, " "), err)
	}
	return strings.TrimSpace(string(out)), nil
}

// mergeCommit makes GitHub's test merge of the head into the base and stores it, with the head, as
// refs/pull/N/merge and refs/pull/N/head in the origin.
func (h *harness) mergeCommit(base, head string) (string, error) {
	dir, err := os.MkdirTemp(h.o.Dir, "merge-")
	if err != nil {
		return "", err
	}
	steps := [][]string{
		{"init", "-q"},
		{"fetch", "-q", h.pr.Origin, base, head},
		{"checkout", "-q", "--detach", base},
		{"-c", "user.name=GitHub", "-c", "user.email=noreply@github.com", "merge", "-q", "--no-ff", "--no-edit", "-m",
			fmt.Sprintf("Merge %.40s into %.40s", head, base), head},
	}
	for _, s := range steps {
		if _, err := h.git(dir, s...); err != nil {
			return "", fmt.Errorf("the pull request's merge commit (GitHub runs no pull_request workflow without one): %w", err)
		}
	}
	merge, err := h.git(dir, "rev-parse", "HEAD")
	if err != nil {
		return "", err
	}
	_, err = h.git(dir, "push", "-q", "-f", h.pr.Origin,
		fmt.Sprintf("%s:refs/pull/%d/merge", merge, h.pr.Number), fmt.Sprintf("%s:refs/pull/%d/head", head, h.pr.Number))
	return merge, err
}

// workflow is the part of a workflow file the harness reads.
type workflow struct {
	Name        string               `yaml:"name"`
	On          yaml.Node            `yaml:"on"`
	Permissions yaml.Node            `yaml:"permissions"`
	Env         map[string]string    `yaml:"env"`
	Jobs        map[string]*jobSpec  `yaml:"jobs"`
	Rest        map[string]yaml.Node `yaml:",inline"`
}

type jobSpec struct {
	Name        string               `yaml:"name"`
	Needs       yaml.Node            `yaml:"needs"`
	If          string               `yaml:"if"`
	Permissions yaml.Node            `yaml:"permissions"`
	Env         map[string]string    `yaml:"env"`
	Steps       []stepSpec           `yaml:"steps"`
	RunsOn      yaml.Node            `yaml:"runs-on"`
	Rest        map[string]yaml.Node `yaml:",inline"`
}

type stepSpec struct {
	ID   string               `yaml:"id"`
	Name string               `yaml:"name"`
	Uses string               `yaml:"uses"`
	Run  string               `yaml:"run"`
	If   string               `yaml:"if"`
	With map[string]string    `yaml:"with"`
	Env  map[string]string    `yaml:"env"`
	Rest map[string]yaml.Node `yaml:",inline"`
}

func parse(b []byte) (*workflow, error) {
	var wf workflow
	if err := yaml.Unmarshal(b, &wf); err != nil {
		return nil, err
	}
	for k := range wf.Rest {
		if k != "concurrency" && k != "run-name" {
			return nil, fmt.Errorf("workflow key %q: not modelled by internal/ghactions", k)
		}
	}
	for id, j := range wf.Jobs {
		for k := range j.Rest {
			if k != "timeout-minutes" && k != "concurrency" {
				return nil, fmt.Errorf("job %s: key %q not modelled by internal/ghactions", id, k)
			}
		}
		for _, s := range j.Steps {
			for k := range s.Rest {
				if k != "timeout-minutes" {
					return nil, fmt.Errorf("job %s, step %q: key %q not modelled by internal/ghactions", id, s.label(), k)
				}
			}
		}
	}
	return &wf, nil
}

func (s stepSpec) label() string {
	switch {
	case s.ID != "":
		return s.ID
	case s.Name != "":
		return s.Name
	case s.Uses != "":
		return s.Uses
	}
	return "run"
}

// triggeredBy: the workflow's `on` names the event, and its branches filter (if any) the base.
func (wf *workflow) triggeredBy(event, base string) bool {
	on := &wf.On
	switch on.Kind {
	case yaml.ScalarNode:
		return on.Value == event
	case yaml.SequenceNode:
		for _, n := range on.Content {
			if n.Value == event {
				return true
			}
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(on.Content); i += 2 {
			if on.Content[i].Value != event {
				continue
			}
			var f struct {
				Branches []string `yaml:"branches"`
			}
			if err := on.Content[i+1].Decode(&f); err != nil || len(f.Branches) == 0 {
				return err == nil
			}
			for _, b := range f.Branches {
				if ok, _ := path.Match(b, base); ok || b == "**" {
					return true
				}
			}
			return false
		}
	}
	return false
}

// permissions reads a permissions node: nil when absent (the repository's default applies).
func permissions(n *yaml.Node) (map[string]string, error) {
	switch {
	case n.Kind == 0:
		return nil, nil
	case n.Kind == yaml.ScalarNode:
		switch n.Value {
		case "read-all":
			return map[string]string{"*": "read"}, nil
		case "write-all":
			return map[string]string{"*": "write"}, nil
		}
		return nil, fmt.Errorf("permissions %q", n.Value)
	}
	p := map[string]string{}
	if err := n.Decode(&p); err != nil {
		return nil, err
	}
	for k, v := range p {
		if v == "none" {
			delete(p, k)
		}
	}
	return p, nil
}

// order is the jobs in an order where every job comes after the jobs it needs.
func (wf *workflow) order() ([]string, map[string][]string, error) {
	needs := map[string][]string{}
	var ids []string
	for id, j := range wf.Jobs {
		ids = append(ids, id)
		switch j.Needs.Kind {
		case 0:
		case yaml.ScalarNode:
			needs[id] = []string{j.Needs.Value}
		default:
			var l []string
			if err := j.Needs.Decode(&l); err != nil {
				return nil, nil, fmt.Errorf("job %s: needs: %w", id, err)
			}
			needs[id] = l
		}
		for _, n := range needs[id] {
			if _, ok := wf.Jobs[n]; !ok {
				return nil, nil, fmt.Errorf("job %s needs %s, which the workflow does not define", id, n)
			}
		}
	}
	sort.Strings(ids)
	var out []string
	done := map[string]bool{}
	for len(out) < len(ids) {
		progress := false
		for _, id := range ids {
			if done[id] {
				continue
			}
			ready := true
			for _, n := range needs[id] {
				ready = ready && done[n]
			}
			if ready {
				done[id], progress = true, true
				out = append(out, id)
			}
		}
		if !progress {
			return nil, nil, errors.New("the jobs' needs form a cycle")
		}
	}
	return out, needs, nil
}

func (h *harness) runWorkflow(wf *workflow, wr *WorkflowRun) error {
	wfPerm, err := permissions(&wf.Permissions)
	if err != nil {
		return err
	}
	ids, needs, err := wf.order()
	if err != nil {
		return err
	}
	status := map[string]string{}
	for _, id := range ids {
		j := wf.Jobs[id]
		jr := &JobRun{ID: id, Name: j.Name, Needs: needs[id]}
		if jr.Name == "" {
			jr.Name = id
		}
		perm, err := permissions(&j.Permissions)
		if err != nil {
			return fmt.Errorf("job %s: %w", id, err)
		}
		if perm == nil {
			perm = wfPerm
		}
		if perm == nil { // the repository's default, restricted: read the contents
			perm = map[string]string{"contents": "read", "packages": "read"}
		}
		if wr.Event == "pull_request" && h.pr.Fork { // a fork's pull request: read at most
			ro := map[string]string{}
			for k := range perm {
				ro[k] = "read"
			}
			perm = ro
		}
		jr.Permissions = perm
		wr.Jobs = append(wr.Jobs, jr)
		always, err := jobCondition(j.If)
		if err != nil {
			return fmt.Errorf("job %s: %w", id, err)
		}
		needResults := map[string]string{}
		for _, n := range needs[id] {
			needResults["needs."+n+".result"] = status[n]
			if status[n] != "success" && !always {
				jr.Status = "skipped"
			}
		}
		if jr.Status == "" {
			if err := h.runJob(wf, j, wr, jr, needResults); err != nil {
				return fmt.Errorf("job %s: %w", id, err)
			}
		}
		status[id] = jr.Status
	}
	return nil
}

var expr = regexp.MustCompile(`\$\{\{\s*([^}]*?)\s*\}\}`)

// context holds what expressions may name in one job.
type context struct {
	h      *harness
	wr     *WorkflowRun
	jr     *JobRun
	step   string
	values map[string]string
}

// expand substitutes the expressions of s; an expression the harness does not know is an error,
// so a workflow never runs with a silent empty string where GitHub would put a value.
func (c *context) expand(s string) (string, error) {
	var bad error
	out := expr.ReplaceAllStringFunc(s, func(m string) string {
		e := expr.FindStringSubmatch(m)[1]
		switch {
		case e == "github.token" || e == "secrets.GITHUB_TOKEN":
			c.jr.TokenGiven = appendOnce(c.jr.TokenGiven, c.step)
			return c.h.o.Token
		case strings.HasPrefix(e, "secrets."):
			name := strings.TrimPrefix(e, "secrets.")
			if c.wr.Event == "pull_request" && c.h.pr.Fork {
				return ""
			}
			v, ok := c.h.o.Secrets[name]
			if ok {
				c.jr.SecretsGiven = appendOnce(c.jr.SecretsGiven, name)
			}
			return v
		}
		if v, ok := c.values[e]; ok {
			return v
		}
		bad = fmt.Errorf("expression ${{ %s }} is not modelled by internal/ghactions", e)
		return ""
	})
	return out, bad
}

func appendOnce(l []string, s string) []string {
	for _, x := range l {
		if x == s {
			return l
		}
	}
	return append(l, s)
}

// jobCondition reads a job's `if`: true when the job runs whatever its needs concluded (always(),
// !cancelled()); false for the default (success(): every need succeeded). The harness cancels
// nothing, so !cancelled() is always().
func jobCondition(cond string) (bool, error) {
	c := strings.TrimSpace(cond)
	if m := expr.FindStringSubmatch(c); m != nil && m[0] == c {
		c = m[1]
	}
	switch c {
	case "", "success()":
		return false, nil
	case "always()", "!cancelled()":
		return true, nil
	}
	return false, fmt.Errorf("if: %q is not modelled by internal/ghactions", cond)
}

// stepCondition reads a step's `if` against the job's status so far: by default (success()) a
// step runs while every step before it succeeded; always() runs it anyway, failure() only after a
// failure.
func stepCondition(cond, status string) (bool, error) {
	c := strings.TrimSpace(cond)
	if m := expr.FindStringSubmatch(c); m != nil && m[0] == c {
		c = m[1]
	}
	switch c {
	case "", "success()":
		return status == "success", nil
	case "always()", "!cancelled()":
		return true, nil
	case "failure()":
		return status == "failure", nil
	}
	return false, fmt.Errorf("if: %q is not modelled by internal/ghactions", cond)
}

func (h *harness) runJob(wf *workflow, j *jobSpec, wr *WorkflowRun, jr *JobRun, needResults map[string]string) error {
	h.n++
	ws := filepath.Join(h.o.Dir, fmt.Sprintf("job%d-%s", h.n, jr.ID))
	if err := os.MkdirAll(ws, 0o755); err != nil {
		return err
	}
	event, err := h.eventFile(ws+".event.json", wr.Event)
	if err != nil {
		return err
	}
	const pr = "github.event.pull_request."
	c := &context{h: h, wr: wr, jr: jr, values: map[string]string{
		"github.event_name":             wr.Event,
		"github.ref":                    wr.Ref,
		"github.sha":                    wr.SHA,
		"github.base_ref":               h.pr.Base,
		"github.head_ref":               h.pr.Head,
		"github.repository":             h.pr.Repository,
		"github.workspace":              ws,
		pr + "number":                   fmt.Sprint(h.pr.Number),
		pr + "base.ref":                 h.pr.Base,
		pr + "base.sha":                 h.base,
		pr + "head.ref":                 h.pr.Head,
		pr + "head.sha":                 h.head,
		pr + "merge_commit_sha":         h.merge,
		pr + "head.repo.full_name":      h.pr.Repository,
		"github.event.number":           fmt.Sprint(h.pr.Number),
		"github.event.pull_request.url": fmt.Sprintf("%s/repos/%s/pulls/%d", h.o.APIURL, h.pr.Repository, h.pr.Number),
	}}
	for k, v := range needResults {
		c.values[k] = v
	}
	env := map[string]string{}
	for _, kv := range h.o.Env {
		if k, v, ok := strings.Cut(kv, "="); ok {
			env[k] = v
		}
	}
	if h.o.Path != "" {
		env["PATH"] = h.o.Path + string(os.PathListSeparator) + env["PATH"]
	}
	for k, v := range map[string]string{
		"CI": "true", "GITHUB_ACTIONS": "true", "GITHUB_EVENT_NAME": wr.Event, "GITHUB_EVENT_PATH": event,
		"GITHUB_BASE_REF": h.pr.Base, "GITHUB_HEAD_REF": h.pr.Head, "GITHUB_REF": wr.Ref, "GITHUB_SHA": wr.SHA,
		"GITHUB_REPOSITORY": h.pr.Repository, "GITHUB_API_URL": h.o.APIURL, "GITHUB_SERVER_URL": "https://github.com",
		"GITHUB_WORKSPACE": ws, "GITHUB_JOB": jr.ID, "GITHUB_WORKFLOW": wr.Name,
	} {
		env[k] = v
	}
	for _, layer := range []map[string]string{wf.Env, j.Env} {
		for k, v := range layer {
			c.step = "env"
			x, err := c.expand(v)
			if err != nil {
				return err
			}
			env[k] = x
		}
	}
	var out strings.Builder
	jr.Status = "success"
	for _, s := range j.Steps {
		c.step = s.label()
		c.values["job.status"] = jr.Status
		run, cerr := stepCondition(s.If, jr.Status)
		if cerr != nil {
			return fmt.Errorf("step %q: %w", c.step, cerr)
		}
		if !run {
			continue
		}
		fmt.Fprintf(&out, "::step %s\n", c.step)
		if isSkipped(s, h.o.Skip) {
			fmt.Fprintf(&out, "(skipped: the binary under test is on PATH)\n")
			continue
		}
		stepEnv := map[string]string{}
		for k, v := range env {
			stepEnv[k] = v
		}
		for k, v := range s.Env {
			x, err := c.expand(v)
			if err != nil {
				return err
			}
			stepEnv[k] = x
		}
		var err error
		switch {
		case strings.HasPrefix(s.Uses, "actions/checkout@"):
			with := map[string]string{}
			for k, v := range s.With {
				switch k {
				case "ref", "fetch-depth", "persist-credentials", "path":
				default:
					return fmt.Errorf("actions/checkout input %q not modelled by internal/ghactions", k)
				}
				if with[k], err = c.expand(v); err != nil {
					return err
				}
			}
			err = h.checkout(c, with, ws, &out)
		case s.Uses != "":
			return fmt.Errorf("step %q uses %s: not modelled by internal/ghactions (skip it by id)", c.step, s.Uses)
		default:
			var script string
			if script, err = c.expand(s.Run); err != nil {
				return err
			}
			err = h.shell(ws, script, stepEnv, &out)
		}
		if err != nil {
			fmt.Fprintf(&out, "::error step %s: %v\n", c.step, err)
			jr.Status = "failure"
		}
	}
	jr.Output = out.String()
	return nil
}

func isSkipped(s stepSpec, skip []string) bool {
	if strings.HasPrefix(s.Uses, "actions/setup-go@") {
		return true
	}
	for _, id := range skip {
		if s.ID != "" && s.ID == id {
			return true
		}
	}
	return false
}

func (h *harness) shell(dir, script string, env map[string]string, out *strings.Builder) error {
	cmd := exec.Command("sh", "-e", "-c", script)
	cmd.Dir = dir
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cmd.Stdout, cmd.Stderr = out, out
	return cmd.Run()
}

// checkout does what actions/checkout does in the workspace: fetch ref (default GITHUB_SHA) from the
// repository, one commit deep unless fetch-depth is 0 (then every branch and tag too), check it out
// detached, and persist the job's token in the clone's git config unless persist-credentials is false.
func (h *harness) checkout(c *context, with map[string]string, ws string, out *strings.Builder) error {
	dir := ws
	if p := with["path"]; p != "" {
		dir = filepath.Join(ws, p)
	}
	ref := with["ref"]
	if ref == "" {
		ref = c.wr.SHA
	}
	fetch := []string{"fetch", "-q", "--no-tags", "origin"}
	if with["fetch-depth"] == "0" {
		fetch = append(fetch, "+refs/heads/*:refs/remotes/origin/*", "+refs/tags/*:refs/tags/*")
	} else {
		fetch = []string{"fetch", "-q", "--no-tags", "--depth=1", "origin"}
	}
	fetch = append(fetch, ref)
	// origin is the repository's GitHub URL, as actions/checkout leaves it (verify asks GitHub about
	// the repository origin names), read from the bare origin on disk through insteadOf.
	url := "https://github.com/" + h.pr.Repository + ".git"
	steps := [][]string{{"init", "-q", dir}, {"-C", dir, "config", "url." + h.pr.Origin + ".insteadOf", url},
		{"-C", dir, "remote", "add", "origin", url}, append([]string{"-C", dir}, fetch...),
		{"-C", dir, "checkout", "-q", "--detach", "FETCH_HEAD"}}
	if with["persist-credentials"] != "false" {
		c.jr.TokenGiven = appendOnce(c.jr.TokenGiven, c.step)
		auth := base64.StdEncoding.EncodeToString([]byte("x-access-token:" + h.o.Token))
		steps = append(steps, []string{"-C", dir, "config", "--local", "http.https://github.com/.extraheader", "AUTHORIZATION: basic " + auth})
	}
	for _, a := range steps {
		if _, err := h.git(ws, a...); err != nil {
			return err
		}
	}
	fmt.Fprintf(out, "checked out %s\n", ref)
	return nil
}

// eventFile writes the part of the webhook payload (GITHUB_EVENT_PATH) the harness knows.
func (h *harness) eventFile(name, event string) (string, error) {
	b, err := json.Marshal(map[string]any{
		"action": "synchronize",
		"number": h.pr.Number,
		"pull_request": map[string]any{
			"number":           h.pr.Number,
			"base":             map[string]any{"ref": h.pr.Base, "sha": h.base},
			"head":             map[string]any{"ref": h.pr.Head, "sha": h.head},
			"merge_commit_sha": h.merge,
		},
		"repository": map[string]any{"full_name": h.pr.Repository},
	})
	if err != nil {
		return "", err
	}
	return name, os.WriteFile(name, b, 0o644)
}
