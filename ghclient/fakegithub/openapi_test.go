package fakegithub_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kaptinlin/jsonschema"

	"github.com/exarchos/git-exarchos/ghclient"
	"github.com/exarchos/git-exarchos/ghclient/fakegithub"
)

// The fake is held to GitHub's published OpenAPI description (npm @octokit/openapi, pinned in
// package.json and installed with npm ci): every route it serves exists there with that method,
// every answer it gives validates against the schema of that status, and every request ghclient
// sends carries only parameters and bodies the description allows. So the fake cannot drift from
// the API the product meets. OpenAPI 3.0 schemas are JSON Schema but for `nullable`, which
// toJSONSchema turns into a "null" type; kaptinlin/jsonschema does the rest.

var root = filepath.Join("..", "..")

// description loads the pinned description: skipped with the command when it is not installed,
// failed in CI (CI=true), where it must be.
func description(t *testing.T) map[string]any {
	t.Helper()
	dir := filepath.Join(root, "node_modules", "@octokit", "openapi")
	b, err := os.ReadFile(filepath.Join(dir, "generated", "api.github.com.json"))
	if err != nil {
		msg := fmt.Sprintf("GitHub's OpenAPI description is not installed (%v): run `npm ci --no-audit --no-fund` at the repository root", err)
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	var pkg, pin struct {
		Version         string            `json:"version"`
		DevDependencies map[string]string `json:"devDependencies"`
	}
	mustJSON(t, filepath.Join(dir, "package.json"), &pkg)
	mustJSON(t, filepath.Join(root, "package.json"), &pin)
	if want := pin.DevDependencies["@octokit/openapi"]; pkg.Version != want {
		t.Fatalf("node_modules has @octokit/openapi %s, package.json pins %s: run npm ci --no-audit --no-fund", pkg.Version, want)
	}
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	doc["x-package-version"] = pkg.Version
	return doc
}

func mustJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err == nil {
		err = json.Unmarshal(b, v)
	}
	if err != nil {
		t.Fatal(err)
	}
}

// TestExamplesAreTheDescriptions: examples.json is GitHub's examples at the pinned version
// (UPDATE=1 writes it from the description).
func TestExamplesAreTheDescriptions(t *testing.T) {
	doc := description(t)
	all := dig(doc, "components", "examples").(map[string]any)
	out := map[string]any{}
	for _, name := range fakegithub.ExampleNames {
		ex, ok := all[name].(map[string]any)
		if !ok {
			t.Fatalf("the description has no example %q", name)
		}
		out[name] = ex["value"]
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", " ")
	if err := enc.Encode(map[string]any{
		"source":   "npm @octokit/openapi " + doc["x-package-version"].(string) + ", generated/api.github.com.json, components/examples/<name>/value",
		"examples": out,
	}); err != nil {
		t.Fatal(err)
	}
	if os.Getenv("UPDATE") == "1" {
		if err := os.WriteFile("examples.json", b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	have, err := os.ReadFile("examples.json")
	if err != nil || !bytes.Equal(have, b.Bytes()) {
		t.Fatalf("examples.json is not the description's examples (%v): run UPDATE=1 go test ./ghclient/fakegithub -run TestExamplesAreTheDescriptions", err)
	}
}

func dig(v any, keys ...string) any {
	for _, k := range keys {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

// spec answers questions about the description.
type spec struct {
	t   *testing.T
	doc map[string]any
}

// operation is the description's operation for a route, or nil.
func (s spec) operation(method, path string) map[string]any {
	op, _ := dig(s.doc, "paths", path, strings.ToLower(method)).(map[string]any)
	return op
}

// resolve follows a local $ref ("#/components/…") to what it names.
func (s spec) resolve(v any) any {
	for {
		m, ok := v.(map[string]any)
		ref, isRef := m["$ref"].(string)
		if !ok || !isRef || !strings.HasPrefix(ref, "#/") {
			return v
		}
		v = dig(s.doc, strings.Split(strings.TrimPrefix(ref, "#/"), "/")...)
	}
}

// responseSchema is the JSON schema of an operation's answer with that status ("" when it declares
// no such status) and the response object.
func (s spec) responseSchema(op map[string]any, status int) (any, map[string]any) {
	r, _ := s.resolve(dig(op, "responses", strconv.Itoa(status))).(map[string]any)
	if r == nil {
		return nil, nil
	}
	return dig(r, "content", "application/json", "schema"), r
}

// compile turns an OpenAPI 3.0 schema into a JSON Schema 2020-12 document holding every component
// schema it reaches, and compiles it.
func (s spec) compile(schema any) *jsonschema.Schema {
	s.t.Helper()
	defs := map[string]any{}
	var reach func(v any)
	reach = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			if ref, ok := x["$ref"].(string); ok {
				name, found := strings.CutPrefix(ref, "#/components/schemas/")
				if !found {
					s.t.Fatalf("a $ref outside components/schemas: %s", ref)
				}
				if _, seen := defs[name]; !seen {
					defs[name] = nil
					def := dig(s.doc, "components", "schemas", name)
					defs[name] = toJSONSchema(def)
					reach(def)
				}
			}
			for _, e := range x {
				reach(e)
			}
		case []any:
			for _, e := range x {
				reach(e)
			}
		}
	}
	reach(schema)
	top, _ := toJSONSchema(schema).(map[string]any)
	doc := map[string]any{"$schema": "https://json-schema.org/draft/2020-12/schema", "$defs": defs}
	for k, v := range top {
		doc[k] = v
	}
	b, err := json.Marshal(doc)
	if err != nil {
		s.t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.SetAssertFormat(true)
	// OpenAPI's own formats: the integer ranges they name.
	inRange := func(lo, hi float64) func(any) bool {
		return func(v any) bool {
			f, ok := v.(float64)
			return !ok || (f >= lo && f <= hi && f == float64(int64(f)))
		}
	}
	c.RegisterFormat("int32", inRange(-1<<31, 1<<31-1), "number")
	c.RegisterFormat("int64", inRange(-1<<63, 1<<63-1), "number")
	sch, err := c.Compile(b)
	if err != nil {
		s.t.Fatalf("compile the description's schema: %v", err)
	}
	return sch
}

// toJSONSchema converts OpenAPI 3.0's dialect: `nullable: true` becomes a "null" type (or a null
// alternative when there is no type), and refs point into $defs.
func toJSONSchema(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, e := range x {
			if k == "example" || k == "nullable" {
				continue
			}
			if k == "properties" || k == "patternProperties" {
				props := map[string]any{}
				for name, p := range e.(map[string]any) {
					props[name] = toJSONSchema(p)
				}
				out[k] = props
				continue
			}
			out[k] = toJSONSchema(e)
		}
		if ref, ok := x["$ref"].(string); ok {
			out["$ref"] = "#/$defs/" + strings.TrimPrefix(ref, "#/components/schemas/")
		}
		if x["nullable"] == true {
			switch typ := out["type"].(type) {
			case string:
				out["type"] = []any{typ, "null"}
				if enum, ok := out["enum"].([]any); ok {
					out["enum"] = append(enum, nil)
				}
			default:
				return map[string]any{"anyOf": []any{out, map[string]any{"type": "null"}}}
			}
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = toJSONSchema(e)
		}
		return out
	}
	return v
}

// invalid lists where body breaks the schema ("" when it validates).
func invalid(sch *jsonschema.Schema, body []byte) string {
	res := sch.ValidateJSON(body)
	if res.IsValid() {
		return ""
	}
	var out []string
	var walk func(l *jsonschema.List, at string)
	walk = func(l *jsonschema.List, at string) {
		at += l.InstanceLocation
		for i := range l.Details {
			if !l.Details[i].Valid {
				walk(&l.Details[i], at)
			}
		}
		for kw, msg := range l.Errors {
			out = append(out, at+" "+kw+": "+msg)
		}
	}
	walk(res.ToList(true), "")
	slices.Sort(out)
	if len(out) > 12 {
		out = append(out[:12], fmt.Sprintf("… %d more", len(out)-12))
	}
	return strings.Join(out, "\n")
}

// world is a fake with one of everything the routes serve.
func world(t *testing.T) *fakegithub.Server {
	fake := fakegithub.New("github.com", "acme", "app", "tok")
	t.Cleanup(fake.Close)
	fake.SetPR(fakegithub.PR{Number: 1, Head: "login", Base: "main", HeadSHA: "1111111111111111111111111111111111111111", Requested: []string{"rev"}})
	fake.SetPR(fakegithub.PR{Number: 2, Head: "login", Base: "main", HeadSHA: "2222222222222222222222222222222222222222", State: "closed",
		Merged: true, MergeCommitSHA: "3333333333333333333333333333333333333333"})
	fake.SetPR(fakegithub.PR{Number: 3, Head: "login", Base: "main", HeadSHA: "4444444444444444444444444444444444444444", State: "closed"})
	fake.SetPR(fakegithub.PR{Number: 4, Head: "patch", Base: "main", HeadRepo: "fork/app", HeadSHA: "5555555555555555555555555555555555555555"})
	for i, st := range []string{"COMMENTED", "CHANGES_REQUESTED", "APPROVED", "DISMISSED"} {
		fake.AddReview(1, fakegithub.Review{User: "rev" + strconv.Itoa(i), State: st})
	}
	sha := "1111111111111111111111111111111111111111"
	fake.AddCheckRun(sha, fakegithub.CheckRun{Name: "build", Status: "completed", Conclusion: "success"})
	fake.AddCheckRun(sha, fakegithub.CheckRun{Name: "lint", Status: "in_progress"})
	fake.AddCheckRun(sha, fakegithub.CheckRun{Name: "test", Status: "completed", Conclusion: "failure"})
	fake.AddStatus(sha, fakegithub.Status{Context: "ci/jenkins", State: "success"})
	fake.AddStatus(sha, fakegithub.Status{Context: "ci/other", State: "error"})
	root := fake.AddReviewComment(1, fakegithub.ReviewComment{User: "coderabbitai[bot]", Path: "app/login.go", Line: 12, Body: "_⚠️ Potential issue_\n\nThe error is dropped."})
	fake.AddReviewComment(1, fakegithub.ReviewComment{User: "octocat", Path: "app/login.go", Line: 12, Body: "fixed", InReplyTo: root})
	fake.AddReviewComment(1, fakegithub.ReviewComment{User: "octocat", Path: "README.md", Body: "say why"})
	fake.SetBranchRules("main", fakegithub.BranchRule{Type: "required_status_checks", Checks: []string{"exarchos verify"}, App: ghclient.ActionsAppID},
		fakegithub.BranchRule{Type: "pull_request"}, fakegithub.BranchRule{Type: "non_fast_forward"}, fakegithub.BranchRule{Type: "deletion"})
	fake.SetProtection("main", &fakegithub.Protection{Checks: []string{"exarchos verify"}, App: ghclient.ActionsAppID, RequirePullRequest: true})
	fake.SetProtection("dev", &fakegithub.Protection{AllowForcePushes: true})
	fake.SetAccess(map[string]bool{"pull": true, "push": true, "admin": true}, "")
	fake.App = "github-actions"
	return fake
}

func call(t *testing.T, fake *fakegithub.Server, method, path, body string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, fake.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer tok")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, b
}

// TestFakeAnswersAsGitHubDescribes: every route exists in the description with its method, and
// every answer the fake gives (successes, the errors the description lists, pages) validates
// against the schema of its status.
func TestFakeAnswersAsGitHubDescribes(t *testing.T) {
	s := spec{t: t, doc: description(t)}
	for _, r := range fakegithub.Routes {
		if s.operation(r.Method, r.Path) == nil {
			t.Errorf("route %s: %s %s is not in GitHub's description", r.Name, r.Method, r.Path)
		}
	}
	fake := world(t)
	calls := []struct{ method, path, body string }{
		{"GET", "/repos/acme/app", ""},
		{"GET", "/repos/acme/app/pulls?state=all&head=acme:login&per_page=2", ""},
		{"GET", "/repos/acme/app/pulls?state=all&head=acme:login&per_page=2&page=2", ""},
		{"GET", "/repos/acme/app/pulls", ""},
		{"GET", "/repos/acme/app/pulls/1", ""},
		{"GET", "/repos/acme/app/pulls/2", ""},
		{"GET", "/repos/acme/app/pulls/3", ""},
		{"GET", "/repos/acme/app/pulls/4", ""},
		{"GET", "/repos/acme/app/pulls/99", ""},
		{"GET", "/repos/acme/app/pulls/1/reviews?per_page=3", ""},
		{"GET", "/repos/acme/app/pulls/1/reviews?per_page=3&page=2", ""},
		{"GET", "/repos/acme/app/commits/1111111111111111111111111111111111111111/check-runs?per_page=2", ""},
		{"GET", "/repos/acme/app/commits/1111111111111111111111111111111111111111/check-runs?per_page=2&page=2", ""},
		{"GET", "/repos/acme/app/commits/1111111111111111111111111111111111111111/status", ""},
		{"GET", "/repos/acme/app/commits/9999999999999999999999999999999999999999/status", ""},
		{"POST", "/repos/acme/app/issues/1/comments", `{"body":"closing"}`},
		{"POST", "/repos/acme/app/issues/99/comments", `{"body":"closing"}`},
		{"POST", "/repos/acme/app/issues/1/comments", `{"text":"no body"}`},
		{"GET", "/repos/acme/app/issues/1/comments", ""},
		{"GET", "/repos/acme/app/issues/1/comments?per_page=1&page=1", ""},
		{"GET", "/repos/acme/app/issues/99/comments", ""},
		{"GET", "/repos/acme/app/pulls/1/comments?sort=created&direction=asc&per_page=2", ""},
		{"GET", "/repos/acme/app/pulls/1/comments?sort=created&direction=asc&per_page=2&page=2", ""},
		{"PATCH", "/repos/acme/app/pulls/1", `{"state":"closed"}`},
		{"PATCH", "/repos/acme/app/pulls/1", `{"state":"merged"}`},
		{"PATCH", "/repos/acme/app/pulls/1", `{"title":"Login","body":"the body"}`},
		{"POST", "/repos/acme/app/pulls", `{"title":"Signup","head":"signup","base":"main","body":"b","draft":true}`},
		{"POST", "/repos/acme/app/pulls", `{"title":"Signup again","head":"signup","base":"main"}`}, // one open already: 422
		{"POST", "/repos/acme/app/pulls", `{"title":"no head","base":"main"}`},
		{"POST", "/repos/acme/app/check-runs", `{"name":"exarchos memory: login","head_sha":"1111111111111111111111111111111111111111","status":"completed","conclusion":"success","output":{"title":"t","summary":"s","text":"refs/exarchos/login 2222222222222222222222222222222222222222"}}`},
		{"GET", "/repos/acme/app/commits/1111111111111111111111111111111111111111/check-runs?check_name=exarchos+memory%3A+login&filter=all", ""},
		{"POST", "/repos/acme/app/rulesets", `{"name":"exarchos: protect release","target":"branch","enforcement":"active","conditions":{"ref_name":{"include":["refs/heads/release"],"exclude":[]}},"rules":[{"type":"required_status_checks","parameters":{"required_status_checks":[{"context":"exarchos verify"}],"strict_required_status_checks_policy":false}},{"type":"non_fast_forward"}]}`},
		{"GET", "/repos/acme/app/rules/branches/release", ""},
		{"GET", "/repos/acme/app/rules/branches/main", ""},
		{"GET", "/repos/acme/app/rules/branches/main?per_page=2", ""},
		{"GET", "/repos/acme/app/rules/branches/staging", ""},
		{"GET", "/repos/acme/app/branches/main", ""},
		{"GET", "/repos/acme/app/branches/staging", ""},
		{"GET", "/repos/acme/app/branches/main/protection", ""},
		{"GET", "/repos/acme/app/branches/dev/protection", ""},
		{"GET", "/repos/acme/app/branches/staging/protection", ""},
		{"POST", "/repos/acme/app/statuses/1111111111111111111111111111111111111111", `{"state":"failure","context":"exarchos/verify","description":"exarchos verify: failure"}`},
	}
	served := map[string]bool{}
	for _, c := range calls {
		resp, body := call(t, fake, c.method, c.path, c.body)
		log := fake.Log()
		route := fakegithub.Routes[slices.IndexFunc(fakegithub.Routes, func(r fakegithub.Route) bool { return r.Name == log[len(log)-1].Route })]
		op := s.operation(route.Method, route.Path)
		schema, r := s.responseSchema(op, resp.StatusCode)
		if r == nil {
			t.Errorf("%s %s: status %d is not one the description lists", c.method, c.path, resp.StatusCode)
			continue
		}
		if msg := invalid(s.compile(schema), body); msg != "" {
			t.Errorf("%s %s (%d) does not validate against GitHub's schema:\n%s", c.method, c.path, resp.StatusCode, msg)
		}
		if _, paged := dig(r, "headers", "Link").(map[string]any); paged && strings.Contains(c.path, "per_page=2") && !strings.Contains(c.path, "&page=") && !strings.Contains(resp.Header.Get("Link"), `rel="next"`) {
			t.Errorf("%s %s: page 1 of several without a Link header naming the next: %q", c.method, c.path, resp.Header.Get("Link"))
		}
		for _, h := range []string{"X-Ratelimit-Limit", "X-Ratelimit-Remaining", "X-Ratelimit-Reset", "X-Ratelimit-Used", "X-Ratelimit-Resource"} {
			if resp.Header.Get(h) == "" {
				t.Errorf("%s %s: no %s header", c.method, c.path, h)
			}
		}
		if resp.StatusCode < 300 {
			served[route.Name] = true
		}
	}
	for _, r := range fakegithub.Routes {
		if !served[r.Name] {
			t.Errorf("route %s: no successful answer was checked", r.Name)
		}
	}

	// What a list says and what it leaves out, as on GitHub: no merged in a listed pull request.
	_, body := call(t, fake, "GET", "/repos/acme/app/pulls?state=all", "")
	var listed []map[string]any
	if err := json.Unmarshal(body, &listed); err != nil || len(listed) == 0 {
		t.Fatalf("pulls: %v %s", err, body)
	}
	for _, p := range listed {
		if _, ok := p["merged"]; ok {
			t.Errorf("listed pull request %v has merged, which GitHub's list leaves out", p["number"])
		}
	}

	// The rate-limit answers are GitHub's error shape.
	basic := s.compile(map[string]any{"$ref": "#/components/schemas/basic-error"})
	for _, f := range []fakegithub.Fault{fakegithub.PrimaryRateLimit("", 403, time.Now()), fakegithub.PrimaryRateLimit("", 429, time.Now()),
		fakegithub.SecondaryRateLimit("", 403, 1), fakegithub.SecondaryRateLimit("", 429, -1)} {
		fake.Fail(f)
		resp, body := call(t, fake, "GET", "/repos/acme/app/pulls/1", "")
		if resp.StatusCode != f.Status {
			t.Errorf("fault answered %d, want %d", resp.StatusCode, f.Status)
		}
		if msg := invalid(basic, body); msg != "" {
			t.Errorf("rate-limit answer %s is not GitHub's basic-error:\n%s", body, msg)
		}
	}
}

// TestProductRequestsAsGitHubDescribes: what ghclient sends (every read and write it makes)
// names routes of the description, with query and path parameters it declares and bodies its
// request schema accepts.
func TestProductRequestsAsGitHubDescribes(t *testing.T) {
	s := spec{t: t, doc: description(t)}
	fake := world(t)
	c, err := ghclient.New(ghclient.Options{Repo: ghclient.Repo{Host: "github.com", Owner: "acme", Name: "app"}, RetryBudget: time.Second,
		Env: ghclient.Env{Getenv: envMap{"GH_TOKEN": "tok", "GITHUB_API_URL": fake.URL}.get, GhToken: func(string) (string, error) { return "", io.EOF }}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := c.Access(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := c.FindPullRequests(ctx, "login"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.Observe(ctx, 1, nil, time.Now()); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ClosePR(ctx, 1, "closed by git exarchos cancel"); err != nil {
		t.Fatal(err)
	}
	created, err := c.CreatePR(ctx, ghclient.NewPullRequest{Head: "signup", Base: "main", Title: "Signup", Body: "what and why", Draft: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.EditPR(ctx, created.Number, "Signup page", "what, why, how to verify"); err != nil {
		t.Fatal(err)
	}
	if err := c.MarkReady(ctx, created.Number, created.NodeID); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ReviewComments(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if _, err := c.CreateCheckRun(ctx, "1111111111111111111111111111111111111111", "exarchos memory: login", "t", "s", "refs/exarchos/login 1111111111111111111111111111111111111111"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.CheckRunsNamed(ctx, "1111111111111111111111111111111111111111", "exarchos memory: login"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ProtectBranch(ctx, "release", "exarchos verify"); err != nil {
		t.Fatal(err)
	}
	for _, b := range []string{"main", "dev"} { // main: all by ruleset; dev: the classic protection read too
		if _, err := c.ProtectionOf(ctx, b, "exarchos verify"); err != nil {
			t.Fatal(err)
		}
	}
	sent := map[string]bool{}
	for _, req := range fake.Log() {
		if req.Route == "graphql" {
			continue // GraphQL is not in the REST description (MarkReady, checked in ghclient's tests)
		}
		i := slices.IndexFunc(fakegithub.Routes, func(r fakegithub.Route) bool { return r.Name == req.Route })
		if i < 0 {
			t.Errorf("ghclient sent %s %s, a route the fake does not serve", req.Method, req.Path)
			continue
		}
		route := fakegithub.Routes[i]
		sent[route.Name] = true
		op := s.operation(route.Method, route.Path)
		params := map[string]map[string]any{}
		for _, p := range append(listOf(dig(s.doc, "paths", route.Path, "parameters")), listOf(op["parameters"])...) {
			p := s.resolve(p).(map[string]any)
			params[p["in"].(string)+":"+p["name"].(string)] = p
		}
		for name, values := range req.Query {
			p, ok := params["query:"+name]
			if !ok {
				t.Errorf("%s %s: query parameter %q is not one the description declares", req.Method, req.Path, name)
				continue
			}
			for _, v := range values {
				if msg := invalid(s.compile(p["schema"]), paramJSON(p["schema"], v)); msg != "" {
					t.Errorf("%s %s: %s=%q: %s", req.Method, req.Path, name, v, msg)
				}
			}
		}
		names := regexp.MustCompile(`\{([a-z_]+)\}`).FindAllStringSubmatch(route.Path, -1)
		values := strings.Split(strings.TrimPrefix(req.Path, "/"), "/")
		tmpl := strings.Split(strings.TrimPrefix(route.Path, "/"), "/")
		for _, n := range names {
			p, ok := params["path:"+n[1]]
			if !ok {
				t.Errorf("%s: path parameter %s is not declared", route.Path, n[1])
				continue
			}
			v := values[slices.Index(tmpl, n[0])]
			if msg := invalid(s.compile(p["schema"]), paramJSON(p["schema"], v)); msg != "" {
				t.Errorf("%s %s: path %s=%q: %s", req.Method, req.Path, n[1], v, msg)
			}
		}
		rb, _ := s.resolve(op["requestBody"]).(map[string]any)
		switch {
		case rb == nil && len(bytes.TrimSpace(req.Body)) > 0:
			t.Errorf("%s %s sends a body the description does not take: %s", req.Method, req.Path, req.Body)
		case rb != nil && rb["required"] == true && len(bytes.TrimSpace(req.Body)) == 0:
			t.Errorf("%s %s sends no body; the description requires one", req.Method, req.Path)
		case rb != nil && len(bytes.TrimSpace(req.Body)) > 0:
			if msg := invalid(s.compile(dig(rb, "content", "application/json", "schema")), req.Body); msg != "" {
				t.Errorf("%s %s: body %s: %s", req.Method, req.Path, req.Body, msg)
			}
		}
	}
	for _, name := range []string{"repo", "pulls", "pull", "reviews", "check-runs", "status", "comment", "update-pull", "create-pull", "review-comments", "branch-rules", "branch", "branch-protection", "create-check-run", "create-ruleset"} {
		if !sent[name] {
			t.Errorf("ghclient sent no %s request: the test no longer covers it", name)
		}
	}
}

type envMap map[string]string

func (m envMap) get(k string) string { return m[k] }

func listOf(v any) []any {
	l, _ := v.([]any)
	return l
}

// paramJSON is a parameter's text as the JSON value its schema's type reads.
func paramJSON(schema any, v string) []byte {
	switch dig(schema, "type") {
	case "integer", "number", "boolean":
		return []byte(v)
	}
	b, _ := json.Marshal(v)
	return b
}
