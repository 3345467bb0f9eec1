// Package fakegithub is an in-memory GitHub REST API for tests: the endpoints ghclient reads
// (pull get and list, check runs, combined commit status, reviews), the writes it makes (issue
// comments, closing a pull request), request counting and a log of every request, and queued
// faults (5xx storms, rate limits, bad tokens). Point GITHUB_API_URL at Server.URL.
//
// It answers in GitHub's own shapes: every body starts from the example GitHub's published OpenAPI
// description gives for that response (examples.json, taken from npm @octokit/openapi at the
// version package.json pins) with the fake's state laid over it; lists come in pages with Link
// headers; every answer carries the x-ratelimit-* headers. openapi_test.go holds the routes, the
// answers and the requests ghclient sends to that description.
//
// It may import the standard library only.
package fakegithub

import (
	"cmp"
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// PR is a pull request as the fake serves it.
type PR struct {
	Number         int
	Head, Base     string
	HeadRepo       string // owner/name; empty means the base repository
	HeadSHA        string
	State          string // open | closed
	Merged         bool
	MergeCommitSHA string
	UpdatedAt      time.Time
	Requested      []string // requested reviewers
	Author         string   // the login that opened it; empty means "octocat"
	Title, Body    string
	Draft          bool
}

// CheckRun is one check run on a commit. App is the slug of the GitHub App that made it (empty:
// GitHub's example app); Title, Summary and Text are its output.
type CheckRun struct {
	Name, Status, Conclusion  string
	App, Title, Summary, Text string
}

// Status is one legacy commit status.
type Status struct{ Context, State string }

// Review is one pull request review: who gave it, its state (APPROVED, CHANGES_REQUESTED,
// COMMENTED, DISMISSED) and the commit it was submitted on (empty: the pull request's head when
// it is added, as on GitHub).
type Review struct{ User, State, Commit string }

// ReviewComment is one comment on a pull request's diff; InReplyTo names the thread's first
// comment for a reply. IDs are given by AddReviewComment.
type ReviewComment struct {
	ID                 int64
	User, Path, Body   string
	Line               int
	InReplyTo          int64
	Commit             string // empty: the pull request's head when it is added
	Resolved, Outdated bool   // the thread's state (on its first comment), as GraphQL reports it
}

// Fault is an answer served instead of the real one. Body may contain {{token}}, replaced by the
// token the request carried (to prove the client never repeats it).
type Fault struct {
	Route  string // served only to this route (pull, pulls, comment, close, ...); empty: to any
	Status int
	Header map[string]string
	Body   string
}

// NodeID is pull request n's GraphQL id as the fake gives it.
func NodeID(n int) string { return "PR_kwDOfake" + strconv.Itoa(n) }

// Server is the fake API for one repository.
type Server struct {
	*httptest.Server
	Owner, Repo, Host string
	Token             string // the token requests must carry; empty accepts any
	// Permissions are what GET /repos/{owner}/{repo} says the token may do (nil: pull and push);
	// Scopes is the X-OAuth-Scopes header it sends.
	Permissions map[string]bool
	Scopes      string
	// App is the slug of the GitHub App the token belongs to ("github-actions" for Actions'
	// token); empty is a user's token, for which GitHub refuses to create check runs (403).
	App string

	mu       sync.Mutex
	branches map[string]string // SetBranch; nil: a pull request may be opened from any head
	pulls    map[int]*PR
	runs     map[string][]CheckRun
	statuses map[string][]Status
	reviews  map[int][]Review
	comments map[int][]string
	threads  map[int][]*ReviewComment // review comments per pull request, oldest first
	faults   []Fault
	// protection.go
	rules       map[string][]BranchRule
	protections map[string]*Protection
	rulesets    int
	requests    map[string]int
	total       int
	log         []Request
}

// Request is one request as the fake received it.
type Request struct {
	Route  string // the name in Routes, or "other"
	Method string
	Path   string // without the /api/v3 prefix of GitHub Enterprise Server
	Query  url.Values
	Body   []byte
}

// New starts a fake for owner/repo on host (web URLs use https://host/...).
func New(host, owner, repo, token string) *Server {
	s := &Server{Owner: owner, Repo: repo, Host: host, Token: token, pulls: map[int]*PR{}, runs: map[string][]CheckRun{},
		statuses: map[string][]Status{}, reviews: map[int][]Review{}, comments: map[int][]string{}, threads: map[int][]*ReviewComment{}, requests: map[string]int{}}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// SetPR adds or replaces a pull request.
// SetAccess sets what GET /repos/{owner}/{repo} reports the token may do, and its scopes.
func (s *Server) SetAccess(perms map[string]bool, scopes string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.Permissions, s.Scopes = perms, scopes
}

func (s *Server) SetPR(p PR) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if p.State == "" {
		p.State = "open"
	}
	if p.UpdatedAt.IsZero() {
		p.UpdatedAt = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	}
	if p.Author == "" {
		p.Author = "octocat"
	}
	s.pulls[p.Number] = &p
}

// SetBranch says the repository has branch at tip: once any branch is set, a pull request can be
// opened only from a branch the repository has (GitHub's 422 otherwise), at its tip.
func (s *Server) SetBranch(branch, tip string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.branches == nil {
		s.branches = map[string]string{}
	}
	s.branches[branch] = tip
}

// UpdatePR changes a pull request in place and bumps its updated_at.
func (s *Server) UpdatePR(n int, f func(*PR)) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	p, ok := s.pulls[n]
	if ok {
		f(p)
		p.UpdatedAt = p.UpdatedAt.Add(time.Minute)
	}
	return ok
}

// AddCheckRun, AddStatus and AddReview record checks and reviews (a review bumps updated_at).
// As on GitHub, the latest check run per name (every one with filter=all) and the latest status
// per context is what is served.
func (s *Server) AddCheckRun(sha string, r CheckRun) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.runs[sha] = append(s.runs[sha], r)
}

func (s *Server) AddStatus(sha string, st Status) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.statuses[sha] = slices.DeleteFunc(s.statuses[sha], func(o Status) bool { return o.Context == st.Context })
	s.statuses[sha] = append(s.statuses[sha], st)
}

// Statuses are the commit statuses of sha, the latest per context (AddStatus's, and those created
// through the API).
func (s *Server) Statuses(sha string) []Status {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.statuses[sha])
}

func (s *Server) AddReview(n int, r Review) {
	s.mu.Lock()
	if p, ok := s.pulls[n]; ok && r.Commit == "" {
		r.Commit = p.HeadSHA
	}
	s.reviews[n] = append(s.reviews[n], r)
	s.mu.Unlock()
	s.UpdatePR(n, func(*PR) {})
}

// AddReviewComment adds a comment on pull request n's diff and returns its id.
func (s *Server) AddReviewComment(n int, c ReviewComment) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	if p, ok := s.pulls[n]; ok && c.Commit == "" {
		c.Commit = p.HeadSHA
	}
	c.ID = int64(1000 + len(s.threads[n]) + 100*n)
	s.threads[n] = append(s.threads[n], &c)
	return c.ID
}

// ResolveThread marks the thread whose first comment is id resolved (or open again).
func (s *Server) ResolveThread(n int, id int64, resolved bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range s.threads[n] {
		if c.ID == id {
			c.Resolved = resolved
		}
	}
}

// Comments returns the comments posted on issue or pull request n, oldest first.
func (s *Server) Comments(n int) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.comments[n])
}

// PR returns a copy of pull request n.
func (s *Server) PR(n int) (PR, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p, ok := s.pulls[n]
	if !ok {
		return PR{}, false
	}
	return *p, true
}

// Fail queues faults served, in order, to the next requests.
func (s *Server) Fail(fs ...Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = append(s.faults, fs...)
}

// Requests returns the number of requests served, by route name, and in total.
func (s *Server) Requests() (map[string]int, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]int, len(s.requests))
	for k, v := range s.requests {
		out[k] = v
	}
	return out, s.total
}

// ResetRequests zeroes the counters.
func (s *Server) ResetRequests() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests, s.total = map[string]int{}, 0
}

// Route is one endpoint the fake serves: its name (as Requests counts it), method and path in the
// OpenAPI description's template form.
type Route struct{ Name, Method, Path string }

// Routes are the endpoints the fake serves, the one list its router and the OpenAPI test read.
var Routes = []Route{
	{"repo", http.MethodGet, "/repos/{owner}/{repo}"},
	{"pulls", http.MethodGet, "/repos/{owner}/{repo}/pulls"},
	{"pull", http.MethodGet, "/repos/{owner}/{repo}/pulls/{pull_number}"},
	{"create-pull", http.MethodPost, "/repos/{owner}/{repo}/pulls"},
	{"update-pull", http.MethodPatch, "/repos/{owner}/{repo}/pulls/{pull_number}"}, // close (cancel), or a new title and body (pr create)
	{"reviews", http.MethodGet, "/repos/{owner}/{repo}/pulls/{pull_number}/reviews"},
	{"check-runs", http.MethodGet, "/repos/{owner}/{repo}/commits/{ref}/check-runs"},
	{"create-check-run", http.MethodPost, "/repos/{owner}/{repo}/check-runs"},
	{"status", http.MethodGet, "/repos/{owner}/{repo}/commits/{ref}/status"},
	{"create-status", http.MethodPost, "/repos/{owner}/{repo}/statuses/{sha}"}, // the CI workflow's verdict on the head (exarchos-verify.yml)
	{"comment", http.MethodPost, "/repos/{owner}/{repo}/issues/{issue_number}/comments"},
	{"comments", http.MethodGet, "/repos/{owner}/{repo}/issues/{issue_number}/comments"},
	{"review-comments", http.MethodGet, "/repos/{owner}/{repo}/pulls/{pull_number}/comments"},
	{"branch-rules", http.MethodGet, "/repos/{owner}/{repo}/rules/branches/{branch}"},
	{"branch", http.MethodGet, "/repos/{owner}/{repo}/branches/{branch}"},
	{"branch-protection", http.MethodGet, "/repos/{owner}/{repo}/branches/{branch}/protection"},
	{"create-ruleset", http.MethodPost, "/repos/{owner}/{repo}/rulesets"},
}

var routeRes = func() []*regexp.Regexp {
	var out []*regexp.Regexp
	for _, r := range Routes {
		out = append(out, regexp.MustCompile("^"+regexp.MustCompile(`\{[a-z_]+\}`).ReplaceAllString(r.Path, `([^/]+)`)+"$"))
	}
	return out
}()

// match finds the route of a request and its path parameters (owner, repo, then the route's own).
func match(method, path string) (string, []string) {
	for i, re := range routeRes {
		if m := re.FindStringSubmatch(path); m != nil && Routes[i].Method == method {
			return Routes[i].Name, m[1:]
		}
	}
	return "other", nil
}

// RateLimitReset is the x-ratelimit-reset every answer carries (the fake's limit never runs out
// unless a fault says so).
var RateLimitReset = time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)

// PrimaryRateLimit is GitHub's answer when the token's hourly limit is used up (status 403 or
// 429): x-ratelimit-remaining 0 and the reset time.
func PrimaryRateLimit(route string, status int, reset time.Time) Fault {
	return Fault{Route: route, Status: status, Header: map[string]string{
		"x-ratelimit-limit": "5000", "x-ratelimit-remaining": "0", "x-ratelimit-used": "5000",
		"x-ratelimit-reset": strconv.FormatInt(reset.Unix(), 10), "x-ratelimit-resource": "core"},
		Body: fmt.Sprintf(`{"message":"API rate limit exceeded for user ID 1. If you reach out to GitHub Support for help, please include the request ID 0000:1111:2222:3333:4444.","documentation_url":"https://docs.github.com/rest/overview/rate-limits-for-the-rest-api","status":"%d"}`, status)}
}

// SecondaryRateLimit is GitHub's answer to too many requests at once (status 403 or 429): the
// primary limit has room, Retry-After says how many seconds to wait (none when retryAfter < 0).
func SecondaryRateLimit(route string, status, retryAfter int) Fault {
	h := map[string]string{"x-ratelimit-limit": "5000", "x-ratelimit-remaining": "4990", "x-ratelimit-used": "10",
		"x-ratelimit-reset": strconv.FormatInt(RateLimitReset.Unix(), 10), "x-ratelimit-resource": "core"}
	if retryAfter >= 0 {
		h["Retry-After"] = strconv.Itoa(retryAfter)
	}
	return Fault{Route: route, Status: status, Header: h,
		Body: fmt.Sprintf(`{"message":"You have exceeded a secondary rate limit. Please wait a few minutes before you try again. If you reach out to GitHub Support for help, please include the request ID 0000:1111:2222:3333:4444.","documentation_url":"https://docs.github.com/free-pro-team@latest/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits","status":"%d"}`, status)}
}

// Log returns every request served, oldest first.
func (s *Server) Log() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.log)
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	path := strings.TrimPrefix(r.URL.Path, "/api/v3") // GitHub Enterprise Server layout
	route, params := match(r.Method, path)
	if r.Method == http.MethodPost && (path == "/graphql" || path == "/api/graphql") {
		route = "graphql" // GraphQL, not in the REST description: served by graphql below
	}
	var reqBody []byte
	if r.Body != nil {
		reqBody, _ = io.ReadAll(r.Body)
	}
	s.log = append(s.log, Request{Route: route, Method: r.Method, Path: path, Query: r.URL.Query(), Body: reqBody})
	s.requests[route]++
	s.total++
	token := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("X-GitHub-Api-Version-Selected", "2022-11-28")
	h.Set("x-ratelimit-limit", "5000")
	h.Set("x-ratelimit-remaining", strconv.Itoa(max(0, 5000-s.total)))
	h.Set("x-ratelimit-used", strconv.Itoa(s.total))
	h.Set("x-ratelimit-reset", strconv.FormatInt(RateLimitReset.Unix(), 10))
	h.Set("x-ratelimit-resource", "core")
	if i := slices.IndexFunc(s.faults, func(f Fault) bool { return f.Route == "" || f.Route == route }); i >= 0 {
		f := s.faults[i]
		s.faults = slices.Delete(s.faults, i, i+1)
		for k, v := range f.Header {
			h.Set(k, v)
		}
		w.WriteHeader(f.Status)
		fmt.Fprint(w, strings.ReplaceAll(f.Body, "{{token}}", token))
		return
	}
	if s.Token != "" && token != s.Token {
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprint(w, `{"message":"Bad credentials","documentation_url":"https://docs.github.com/rest","status":"401"}`)
		return
	}
	notFound := func() {
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprint(w, `{"message":"Not Found","documentation_url":"https://docs.github.com/rest","status":"404"}`)
	}
	if route == "graphql" {
		s.graphql(w, reqBody)
		return
	}
	if route == "other" || !strings.EqualFold(params[0], s.Owner) || !strings.EqualFold(params[1], s.Repo) {
		notFound()
		return
	}
	number := 0
	if len(params) > 2 {
		number, _ = strconv.Atoi(params[2])
	}
	var body any
	if b, ok := s.serveProtection(w, r, route, params, reqBody); ok {
		if b != nil {
			_ = json.NewEncoder(w).Encode(b)
		}
		return
	}
	switch route {
	case "repo":
		if s.Scopes != "" {
			h.Set("X-OAuth-Scopes", s.Scopes) // classic tokens only; fine-grained ones send none
		}
		body = s.repoJSON()
	case "comment":
		var in struct {
			Body *string `json:"body"`
		}
		if _, ok := s.pulls[number]; !ok {
			notFound()
			return
		}
		if json.Unmarshal(reqBody, &in) != nil || in.Body == nil {
			s.unprocessable(w, "body")
			return
		}
		s.comments[number] = append(s.comments[number], *in.Body)
		c := s.commentJSON(number, len(s.comments[number])-1)
		h.Set("Location", c["url"].(string))
		w.WriteHeader(http.StatusCreated)
		body = c
	case "comments":
		if _, ok := s.pulls[number]; !ok {
			notFound()
			return
		}
		list := []any{}
		for i := range s.comments[number] {
			list = append(list, s.commentJSON(number, i))
		}
		body = s.page(w, r, list)
	case "update-pull":
		var in struct {
			State string  `json:"state"`
			Title *string `json:"title"`
			Body  *string `json:"body"`
		}
		p, ok := s.pulls[number]
		if !ok {
			notFound()
			return
		}
		if json.Unmarshal(reqBody, &in) != nil || (in.State != "" && in.State != "open" && in.State != "closed") {
			s.unprocessable(w, "state")
			return
		}
		if in.State != "" && !(p.Merged && in.State == "open") {
			p.State = in.State
		}
		if in.Title != nil {
			p.Title = *in.Title
		}
		if in.Body != nil {
			p.Body = *in.Body
		}
		p.UpdatedAt = p.UpdatedAt.Add(time.Minute)
		body = s.pullJSON(p, false)
	case "create-pull":
		var in struct {
			Title, Head, Base, Body string
			Draft                   bool
		}
		if json.Unmarshal(reqBody, &in) != nil || in.Head == "" || in.Base == "" {
			s.unprocessable(w, "head")
			return
		}
		sha, known := s.branches[in.Head]
		if s.branches != nil && !known {
			s.unprocessable(w, "head") // GitHub: the head branch is not in the repository
			return
		}
		for _, o := range s.pulls {
			if o.Head == in.Head && o.Base == in.Base && o.State == "open" {
				w.WriteHeader(http.StatusUnprocessableEntity)
				fmt.Fprintf(w, `{"message":"Validation Failed","errors":[{"resource":"PullRequest","code":"custom","message":"A pull request already exists for %s:%s."}],"documentation_url":"https://docs.github.com/rest","status":"422"}`, s.Owner, in.Head)
				return
			}
		}
		n := len(s.pulls) + 1
		for s.pulls[n] != nil {
			n++
		}
		p := &PR{Number: n, Head: in.Head, Base: in.Base, HeadSHA: sha, State: "open", Title: in.Title, Body: in.Body, Draft: in.Draft,
			UpdatedAt: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), Author: "octocat"}
		s.pulls[n] = p
		out := s.pullJSON(p, false)
		h.Set("Location", out["url"].(string))
		w.WriteHeader(http.StatusCreated)
		body = out
	case "pull":
		p, ok := s.pulls[number]
		if !ok {
			notFound()
			return
		}
		body = s.pullJSON(p, false)
	case "pulls":
		head, state := r.URL.Query().Get("head"), r.URL.Query().Get("state")
		list := []any{}
		// GitHub's default order: newest first (sort=created, direction=desc).
		for _, n := range slices.Backward(slices.Sorted(maps.Keys(s.pulls))) {
			p := s.pulls[n]
			if (head != "" && head != s.headOwner(p)+":"+p.Head) || (state != "all" && state != "" && state != p.State) || (state == "" && p.State != "open") {
				continue
			}
			list = append(list, s.pullJSON(p, true))
		}
		body = s.page(w, r, list)
	case "review-comments":
		p, ok := s.pulls[number]
		if !ok {
			notFound()
			return
		}
		list := []any{}
		for _, c := range s.threads[number] {
			list = append(list, s.reviewCommentJSON(p, c))
		}
		body = s.page(w, r, list)
	case "reviews":
		p, ok := s.pulls[number]
		if !ok {
			notFound()
			return
		}
		list := []any{}
		for i, rv := range s.reviews[number] {
			list = append(list, s.reviewJSON(p, i, rv))
		}
		body = s.page(w, r, list)
	case "check-runs":
		sha := params[2]
		list := []any{}
		q := r.URL.Query()
		for i, c := range s.runs[sha] {
			later := slices.ContainsFunc(s.runs[sha][i+1:], func(o CheckRun) bool { return o.Name == c.Name })
			if (q.Get("check_name") != "" && c.Name != q.Get("check_name")) || (later && q.Get("filter") != "all") {
				continue
			}
			list = append(list, checkRunJSON(sha, i, c))
		}
		page := s.page(w, r, list)
		body = map[string]any{"total_count": len(list), "check_runs": page}
	case "create-status":
		var in struct{ State, Context string }
		if json.Unmarshal(reqBody, &in) != nil || !slices.Contains([]string{"error", "failure", "pending", "success"}, in.State) {
			s.unprocessable(w, "state")
			return
		}
		st := Status{Context: cmp.Or(in.Context, "default"), State: in.State}
		sha := params[2]
		s.statuses[sha] = slices.DeleteFunc(s.statuses[sha], func(o Status) bool { return o.Context == st.Context })
		s.statuses[sha] = append(s.statuses[sha], st)
		out := example("status").(map[string]any)
		for k, v := range s.statusJSON(sha, len(s.statuses[sha])-1, st) {
			out[k] = v
		}
		w.WriteHeader(http.StatusCreated)
		body = out
	case "status":
		sha := params[2]
		list := []any{}
		state := "pending" // what GitHub answers when there are no statuses at all
		worst := map[string]int{"success": 0, "pending": 1, "error": 2, "failure": 2}
		for i, st := range s.statuses[sha] {
			list = append(list, s.statusJSON(sha, i, st))
			if i == 0 || worst[st.State] > worst[state] {
				state = st.State
			}
		}
		if state == "error" {
			state = "failure" // the combined state is failure, pending or success
		}
		c := example("combined-commit-status").(map[string]any)
		c["state"], c["sha"], c["total_count"] = state, sha, len(list)
		c["statuses"] = s.page(w, r, list)
		c["commit_url"] = fmt.Sprintf("%s/repos/%s/commits/%s", s.URL, s.full(), sha)
		c["url"] = fmt.Sprintf("%s/repos/%s/commits/%s/status", s.URL, s.full(), sha)
		setRepo(c["repository"], s.Owner, s.Repo)
		body = c
	}
	_ = json.NewEncoder(w).Encode(body)
}

// graphql answers the one GraphQL mutation ghclient sends, markPullRequestReadyForReview, as
// GitHub does (HTTP 200, with errors in the body when it cannot); anything else is an error.
func (s *Server) graphql(w http.ResponseWriter, body []byte) {
	var in struct {
		Query     string         `json:"query"`
		Variables map[string]any `json:"variables"`
	}
	fail := func(msg string) { fmt.Fprintf(w, `{"data":null,"errors":[{"type":"NOT_FOUND","message":%q}]}`, msg) }
	if json.Unmarshal(body, &in) != nil {
		fail("the body is not a GraphQL request")
		return
	}
	if strings.Contains(in.Query, "reviewThreads") {
		s.reviewThreads(w, in.Variables)
		return
	}
	if !strings.Contains(in.Query, "markPullRequestReadyForReview") {
		fail("the fake answers only markPullRequestReadyForReview and reviewThreads")
		return
	}
	for _, p := range s.pulls {
		if NodeID(p.Number) == in.Variables["id"] {
			p.Draft = false
			p.UpdatedAt = p.UpdatedAt.Add(time.Minute)
			fmt.Fprint(w, `{"data":{"markPullRequestReadyForReview":{"pullRequest":{"isDraft":false}}}}`)
			return
		}
	}
	fail(fmt.Sprintf("Could not resolve to a node with the global id of '%s'", in.Variables["id"]))
}

// reviewThreads answers reviewThreads of a pull request (owner, name, number; after: the page's
// cursor, the index to start at), 2 threads a page so paging is exercised.
func (s *Server) reviewThreads(w http.ResponseWriter, vars map[string]any) {
	n, _ := vars["number"].(float64)
	if !strings.EqualFold(fmt.Sprint(vars["owner"]), s.Owner) || !strings.EqualFold(fmt.Sprint(vars["name"]), s.Repo) || s.pulls[int(n)] == nil {
		fmt.Fprint(w, `{"data":{"repository":{"pullRequest":null}},"errors":[{"type":"NOT_FOUND","message":"Could not resolve to a PullRequest."}]}`)
		return
	}
	var roots []*ReviewComment
	for _, c := range s.threads[int(n)] {
		if c.InReplyTo == 0 {
			roots = append(roots, c)
		}
	}
	from := 0
	if a, ok := vars["after"].(string); ok {
		from, _ = strconv.Atoi(a)
	}
	const per = 2
	nodes := []any{}
	for _, c := range roots[min(from, len(roots)):min(from+per, len(roots))] {
		nodes = append(nodes, map[string]any{"isResolved": c.Resolved, "isOutdated": c.Outdated,
			"comments": map[string]any{"nodes": []any{map[string]any{"databaseId": c.ID}}}})
	}
	next := from+per < len(roots)
	_ = json.NewEncoder(w).Encode(map[string]any{"data": map[string]any{"repository": map[string]any{"pullRequest": map[string]any{
		"reviewThreads": map[string]any{"nodes": nodes, "pageInfo": map[string]any{"hasNextPage": next, "endCursor": strconv.Itoa(from + per)}}}}}})
}

func (s *Server) reviewCommentJSON(p *PR, c *ReviewComment) map[string]any {
	out := example("pull-request-review-comment-items").(map[string]any)
	out["id"], out["node_id"], out["body"], out["path"], out["commit_id"], out["original_commit_id"] = c.ID, fmt.Sprintf("PRRC_fake%d", c.ID), c.Body, c.Path, c.Commit, c.Commit
	out["line"], out["original_line"] = c.Line, c.Line
	if c.Line == 0 {
		delete(out, "line") // a comment on the whole file has no line (GitHub leaves the keys out)
		delete(out, "original_line")
		out["subject_type"] = "file"
	}
	if c.InReplyTo != 0 {
		out["in_reply_to_id"] = c.InReplyTo
	} else {
		delete(out, "in_reply_to_id")
	}
	setUser(out["user"], c.User)
	out["url"] = fmt.Sprintf("%s/repos/%s/pulls/comments/%d", s.URL, s.full(), c.ID)
	out["html_url"] = fmt.Sprintf("https://%s/%s/pull/%d#discussion_r%d", s.Host, s.full(), p.Number, c.ID)
	out["pull_request_url"] = fmt.Sprintf("%s/repos/%s/pulls/%d", s.URL, s.full(), p.Number)
	return out
}

// unprocessable is GitHub's 422 for a body it cannot take.
func (s *Server) unprocessable(w http.ResponseWriter, field string) {
	w.WriteHeader(http.StatusUnprocessableEntity)
	fmt.Fprintf(w, `{"message":"Validation Failed","errors":[{"resource":"Issue","code":"invalid","field":%q}],"documentation_url":"https://docs.github.com/rest","status":"422"}`, field)
}

// page serves one page of list as GitHub does: per_page (default 30, at most 100) and page
// (from 1), with a Link header naming the prev, next, last and first pages.
func (s *Server) page(w http.ResponseWriter, r *http.Request, list []any) []any {
	q := r.URL.Query()
	per, err := strconv.Atoi(q.Get("per_page"))
	if err != nil || per < 1 {
		per = 30
	}
	per = min(per, 100)
	n, err := strconv.Atoi(q.Get("page"))
	if err != nil || n < 1 {
		n = 1
	}
	last := max(1, (len(list)+per-1)/per)
	link := func(page int, rel string) string {
		q.Set("page", strconv.Itoa(page))
		return fmt.Sprintf("<%s%s?%s>; rel=%q", s.URL, r.URL.Path, q.Encode(), rel)
	}
	var links []string
	if n > 1 {
		links = append(links, link(min(n-1, last), "prev"))
	}
	if n < last {
		links = append(links, link(n+1, "next"), link(last, "last"))
	}
	if n > 1 {
		links = append(links, link(1, "first"))
	}
	if len(links) > 0 {
		w.Header().Set("Link", strings.Join(links, ", "))
	}
	from := min((n-1)*per, len(list))
	return list[from:min(from+per, len(list))]
}

func (s *Server) full() string { return s.Owner + "/" + s.Repo }

func (s *Server) headOwner(p *PR) string {
	if p.HeadRepo != "" {
		return strings.Split(p.HeadRepo, "/")[0]
	}
	return s.Owner
}

//go:embed examples.json
var examplesJSON []byte

// examples are GitHub's examples by name (components/examples of the OpenAPI description); a list
// example is its first item.
var examples = func() map[string]json.RawMessage {
	var doc struct {
		Examples map[string]json.RawMessage `json:"examples"`
	}
	if err := json.Unmarshal(examplesJSON, &doc); err != nil {
		panic("fakegithub: examples.json: " + err.Error())
	}
	return doc.Examples
}()

// ExampleNames are the examples of GitHub's description the fake starts its answers from.
var ExampleNames = []string{"full-repository-default-response", "pull-request", "pull-request-simple-items",
	"pull-request-review-items", "check-run-paginated", "combined-commit-status", "issue-comment", "pull-request-review-comment-items", "branch-get", "branch-protection", "repository-ruleset", "status"}

// commentJSON is the i-th comment on issue (or pull request) number, in GitHub's shape.
func (s *Server) commentJSON(number, i int) map[string]any {
	c := example("issue-comment").(map[string]any)
	id := i + 1
	c["id"], c["body"] = id, s.comments[number][i]
	c["url"] = fmt.Sprintf("%s/repos/%s/issues/comments/%d", s.URL, s.full(), id)
	c["html_url"] = fmt.Sprintf("https://%s/%s/pull/%d#issuecomment-%d", s.Host, s.full(), number, id)
	c["issue_url"] = fmt.Sprintf("%s/repos/%s/issues/%d", s.URL, s.full(), number)
	return c
}

// example is a fresh copy of the named example (a list's first item).
func example(name string) any {
	var v any
	if err := json.Unmarshal(examples[name], &v); err != nil {
		panic("fakegithub: example " + name + ": " + err.Error())
	}
	if l, ok := v.([]any); ok {
		return l[0]
	}
	return v
}

// setUser names the login of a simple-user object.
func setUser(u any, login string) {
	if m, ok := u.(map[string]any); ok {
		m["login"] = login
		m["url"] = "https://api.github.com/users/" + login
		m["html_url"] = "https://github.com/" + login
	}
}

// setRepo names a repository object's owner and name.
func setRepo(r any, owner, name string) {
	if m, ok := r.(map[string]any); ok {
		m["name"], m["full_name"] = name, owner+"/"+name
		setUser(m["owner"], owner)
		m["html_url"] = "https://github.com/" + owner + "/" + name
	}
}

func (s *Server) repoJSON() any {
	perms := s.Permissions
	if perms == nil {
		perms = map[string]bool{"pull": true, "push": true, "admin": false}
	}
	repo := example("full-repository-default-response").(map[string]any)
	setRepo(repo, s.Owner, s.Repo)
	// GitHub's example leaves out language, which its schema requires and GitHub sends (null when
	// it detected none); the OpenAPI test found it.
	for _, r := range []any{repo, repo["source"], repo["parent"]} {
		if m, ok := r.(map[string]any); ok {
			if _, has := m["language"]; !has {
				m["language"] = nil
			}
		}
	}
	repo["permissions"] = perms
	return repo
}

func (s *Server) pullJSON(p *PR, listed bool) map[string]any {
	name := "pull-request"
	if listed {
		name = "pull-request-simple-items" // a listed pull request: no merged, mergeable, commits…
	}
	out := example(name).(map[string]any)
	full := s.full()
	headRepo := p.HeadRepo
	if headRepo == "" {
		headRepo = full
	}
	headOwner, headName, _ := strings.Cut(headRepo, "/")
	at := p.UpdatedAt.UTC().Format(time.RFC3339)
	api := fmt.Sprintf("%s/repos/%s/pulls/%d", s.URL, full, p.Number)
	out["id"], out["number"], out["state"], out["url"] = p.Number, p.Number, p.State, api
	out["html_url"] = fmt.Sprintf("https://%s/%s/pull/%d", s.Host, full, p.Number)
	out["updated_at"], out["created_at"] = at, p.UpdatedAt.Add(-time.Hour).UTC().Format(time.RFC3339)
	out["draft"], out["locked"], out["active_lock_reason"] = p.Draft, false, nil
	out["node_id"], out["title"], out["body"] = NodeID(p.Number), p.Title, p.Body
	setUser(out["user"], p.Author)
	out["closed_at"], out["merged_at"] = nil, nil
	if p.State == "closed" {
		out["closed_at"] = at
	}
	// An open pull request carries the test merge GitHub made; only a merged one its merge.
	if p.Merged {
		out["merged_at"], out["merge_commit_sha"] = at, p.MergeCommitSHA
	}
	for side, v := range map[string][3]string{"head": {p.Head, p.HeadSHA, headOwner + "/" + headName}, "base": {p.Base, "", full}} {
		m := out[side].(map[string]any)
		owner, repo, _ := strings.Cut(v[2], "/")
		m["ref"], m["label"] = v[0], owner+":"+v[0]
		if v[1] != "" {
			m["sha"] = v[1]
		}
		setUser(m["user"], owner)
		setRepo(m["repo"], owner, repo)
	}
	reqs := []any{}
	for _, u := range p.Requested {
		r := example(name).(map[string]any)["requested_reviewers"].([]any)[0]
		setUser(r, u)
		reqs = append(reqs, r)
	}
	out["requested_reviewers"], out["requested_teams"] = reqs, []any{}
	if !listed {
		out["merged"] = p.Merged
		out["merged_by"] = nil
		if p.Merged {
			out["merged_by"] = out["user"]
		}
	}
	return out
}

func (s *Server) reviewJSON(p *PR, i int, rv Review) map[string]any {
	out := example("pull-request-review-items").(map[string]any)
	out["id"] = i + 1
	setUser(out["user"], rv.User)
	out["state"], out["commit_id"] = rv.State, rv.Commit
	out["submitted_at"] = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC).Add(time.Duration(i) * time.Minute).Format(time.RFC3339)
	out["html_url"] = fmt.Sprintf("https://%s/%s/pull/%d#pullrequestreview-%d", s.Host, s.full(), p.Number, i+1)
	out["pull_request_url"] = fmt.Sprintf("%s/repos/%s/pulls/%d", s.URL, s.full(), p.Number)
	return out
}

func checkRunJSON(sha string, i int, c CheckRun) map[string]any {
	out := example("check-run-paginated").(map[string]any)["check_runs"].([]any)[0].(map[string]any)
	out["id"], out["name"], out["status"], out["head_sha"] = i+1, c.Name, c.Status, sha
	if c.App != "" {
		app := out["app"].(map[string]any)
		app["slug"], app["name"] = c.App, c.App
	}
	if c.Title != "" || c.Summary != "" || c.Text != "" {
		o := out["output"].(map[string]any)
		o["title"], o["summary"], o["text"], o["annotations_count"] = c.Title, c.Summary, c.Text, 0
	}
	out["conclusion"], out["completed_at"] = nil, nil
	if c.Conclusion != "" {
		out["conclusion"] = c.Conclusion
	}
	if c.Status == "completed" {
		out["completed_at"] = out["started_at"]
	}
	return out
}

func (s *Server) statusJSON(sha string, i int, st Status) map[string]any {
	out := example("combined-commit-status").(map[string]any)["statuses"].([]any)[0].(map[string]any)
	out["id"], out["context"], out["state"] = i+1, st.Context, st.State
	out["url"] = fmt.Sprintf("%s/repos/%s/statuses/%s", s.URL, s.full(), sha)
	return out
}
