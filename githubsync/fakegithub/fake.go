// Package fakegithub is an in-memory GitHub REST API for tests: the endpoints githubsync reads
// (pull get and list, check runs, combined commit status, reviews), the writes it makes (issue
// comments, closing a pull request), request counting, and queued
// faults (5xx storms, rate limits, bad tokens). Point GITHUB_API_URL at Server.URL.
//
// It may import the standard library only.
package fakegithub

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
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
}

// CheckRun is one check run on a commit.
type CheckRun struct{ Name, Status, Conclusion string }

// Status is one legacy commit status.
type Status struct{ Context, State string }

// Review is one pull request review: who gave it, its state (APPROVED, CHANGES_REQUESTED,
// COMMENTED, DISMISSED) and the commit it was submitted on (empty: the pull request's head when
// it is added, as on GitHub).
type Review struct{ User, State, Commit string }

// Fault is an answer served instead of the real one. Body may contain {{token}}, replaced by the
// token the request carried (to prove the client never repeats it).
type Fault struct {
	Route  string // served only to this route (pull, pulls, comment, close, ...); empty: to any
	Status int
	Header map[string]string
	Body   string
}

// Server is the fake API for one repository.
type Server struct {
	*httptest.Server
	Owner, Repo, Host string
	Token             string // the token requests must carry; empty accepts any
	// Permissions are what GET /repos/{owner}/{repo} says the token may do (nil: pull and push);
	// Scopes is the X-OAuth-Scopes header it sends.
	Permissions map[string]bool
	Scopes      string

	mu       sync.Mutex
	pulls    map[int]*PR
	runs     map[string][]CheckRun
	statuses map[string][]Status
	reviews  map[int][]Review
	comments map[int][]string
	faults   []Fault
	requests map[string]int
	total    int
}

// New starts a fake for owner/repo on host (web URLs use https://host/...).
func New(host, owner, repo, token string) *Server {
	s := &Server{Owner: owner, Repo: repo, Host: host, Token: token, pulls: map[int]*PR{}, runs: map[string][]CheckRun{},
		statuses: map[string][]Status{}, reviews: map[int][]Review{}, comments: map[int][]string{}, requests: map[string]int{}}
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
// As on GitHub, the latest check run per name and the latest status per context is what is served.
func (s *Server) AddCheckRun(sha string, r CheckRun) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.runs[sha] = slices.DeleteFunc(s.runs[sha], func(o CheckRun) bool { return o.Name == r.Name })
	s.runs[sha] = append(s.runs[sha], r)
}

func (s *Server) AddStatus(sha string, st Status) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.statuses[sha] = slices.DeleteFunc(s.statuses[sha], func(o Status) bool { return o.Context == st.Context })
	s.statuses[sha] = append(s.statuses[sha], st)
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

var (
	reRepo     = regexp.MustCompile(`^/repos/([^/]+)/([^/]+)$`)
	rePull     = regexp.MustCompile(`^/repos/([^/]+)/([^/]+)/pulls/(\d+)$`)
	rePulls    = regexp.MustCompile(`^/repos/([^/]+)/([^/]+)/pulls$`)
	reReviews  = regexp.MustCompile(`^/repos/([^/]+)/([^/]+)/pulls/(\d+)/reviews$`)
	reRuns     = regexp.MustCompile(`^/repos/([^/]+)/([^/]+)/commits/([^/]+)/check-runs$`)
	reStatuses = regexp.MustCompile(`^/repos/([^/]+)/([^/]+)/commits/([^/]+)/status$`)
	reComments = regexp.MustCompile(`^/repos/([^/]+)/([^/]+)/issues/(\d+)/comments$`)
)

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	path := strings.TrimPrefix(r.URL.Path, "/api/v3") // GitHub Enterprise Server layout
	route := "other"
	for name, re := range map[string]*regexp.Regexp{"pull": rePull, "pulls": rePulls, "reviews": reReviews, "check-runs": reRuns, "status": reStatuses, "comment": reComments, "repo": reRepo} {
		if re.MatchString(path) {
			route = name
		}
	}
	switch {
	case route == "pull" && r.Method == http.MethodPatch:
		route = "close" // the only edit githubsync makes
	case route == "comment" && r.Method != http.MethodPost, route != "close" && route != "comment" && r.Method != http.MethodGet:
		route = "other"
	}
	s.requests[route]++
	s.total++
	token := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
	w.Header().Set("Content-Type", "application/json")
	if i := slices.IndexFunc(s.faults, func(f Fault) bool { return f.Route == "" || f.Route == route }); i >= 0 {
		f := s.faults[i]
		s.faults = slices.Delete(s.faults, i, i+1)
		for k, v := range f.Header {
			w.Header().Set(k, v)
		}
		w.WriteHeader(f.Status)
		fmt.Fprint(w, strings.ReplaceAll(f.Body, "{{token}}", token))
		return
	}
	if s.Token != "" && token != s.Token {
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprint(w, `{"message":"Bad credentials","documentation_url":"https://docs.github.com/rest"}`)
		return
	}
	notFound := func() {
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprint(w, `{"message":"Not Found","documentation_url":"https://docs.github.com/rest"}`)
	}
	if m := regexp.MustCompile(`^/repos/([^/]+)/([^/]+)(/|$)`).FindStringSubmatch(path); m == nil || !strings.EqualFold(m[1], s.Owner) || !strings.EqualFold(m[2], s.Repo) {
		notFound()
		return
	}
	var body any
	switch route {
	case "repo":
		perms := s.Permissions
		if perms == nil {
			perms = map[string]bool{"pull": true, "push": true, "admin": false}
		}
		if s.Scopes != "" {
			w.Header().Set("X-OAuth-Scopes", s.Scopes)
		}
		body = map[string]any{"name": s.Repo, "full_name": s.Owner + "/" + s.Repo, "permissions": perms}
	case "comment":
		n, _ := strconv.Atoi(reComments.FindStringSubmatch(path)[3])
		var in struct{ Body string }
		if _, ok := s.pulls[n]; !ok || json.NewDecoder(r.Body).Decode(&in) != nil {
			notFound()
			return
		}
		s.comments[n] = append(s.comments[n], in.Body)
		w.WriteHeader(http.StatusCreated)
		body = map[string]any{"id": len(s.comments[n]), "body": in.Body}
	case "close":
		n, _ := strconv.Atoi(rePull.FindStringSubmatch(path)[3])
		var in struct{ State string }
		p, ok := s.pulls[n]
		if !ok || json.NewDecoder(r.Body).Decode(&in) != nil {
			notFound()
			return
		}
		if in.State != "" && !(p.Merged && in.State == "open") {
			p.State = in.State
			p.UpdatedAt = p.UpdatedAt.Add(time.Minute)
		}
		body = s.pullJSON(p)
	case "pull":
		n, _ := strconv.Atoi(rePull.FindStringSubmatch(path)[3])
		p, ok := s.pulls[n]
		if !ok {
			notFound()
			return
		}
		body = s.pullJSON(p)
	case "pulls":
		head := r.URL.Query().Get("head")
		state := r.URL.Query().Get("state")
		list := []any{}
		for _, n := range slices.Sorted(maps.Keys(s.pulls)) {
			p := s.pulls[n]
			if (head != "" && head != s.headOwner(p)+":"+p.Head) || (state != "all" && state != "" && state != p.State) || (state == "" && p.State != "open") {
				continue
			}
			list = append(list, s.pullJSON(p))
		}
		body = list
	case "reviews":
		n, _ := strconv.Atoi(reReviews.FindStringSubmatch(path)[3])
		if _, ok := s.pulls[n]; !ok {
			notFound()
			return
		}
		list := []any{}
		for i, rv := range s.reviews[n] {
			list = append(list, map[string]any{"id": i + 1, "user": map[string]any{"login": rv.User}, "state": rv.State, "commit_id": rv.Commit,
				"submitted_at": time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC).Add(time.Duration(i) * time.Minute).Format(time.RFC3339)})
		}
		body = list
	case "check-runs":
		sha := reRuns.FindStringSubmatch(path)[3]
		list := []any{}
		for i, c := range s.runs[sha] {
			run := map[string]any{"id": i + 1, "name": c.Name, "status": c.Status, "head_sha": sha}
			if c.Conclusion != "" {
				run["conclusion"] = c.Conclusion
			}
			list = append(list, run)
		}
		body = map[string]any{"total_count": len(list), "check_runs": list}
	case "status":
		sha := reStatuses.FindStringSubmatch(path)[3]
		list := []any{}
		state := "pending" // what GitHub answers when there are no statuses at all
		for _, st := range s.statuses[sha] {
			list = append(list, map[string]any{"context": st.Context, "state": st.State})
			state = st.State
		}
		body = map[string]any{"state": state, "sha": sha, "total_count": len(list), "statuses": list}
	default:
		notFound()
		return
	}
	_ = json.NewEncoder(w).Encode(body)
}

func (s *Server) headOwner(p *PR) string {
	if p.HeadRepo != "" {
		return strings.Split(p.HeadRepo, "/")[0]
	}
	return s.Owner
}

func (s *Server) pullJSON(p *PR) map[string]any {
	full := s.Owner + "/" + s.Repo
	headRepo := p.HeadRepo
	if headRepo == "" {
		headRepo = full
	}
	out := map[string]any{
		"number": p.Number, "state": p.State, "merged": p.Merged, "user": map[string]any{"login": p.Author},
		"html_url":   fmt.Sprintf("https://%s/%s/pull/%d", s.Host, full, p.Number),
		"updated_at": p.UpdatedAt.Format(time.RFC3339),
		"head":       map[string]any{"ref": p.Head, "sha": p.HeadSHA, "repo": map[string]any{"full_name": headRepo}},
		"base":       map[string]any{"ref": p.Base, "repo": map[string]any{"full_name": full}},
	}
	if p.Merged {
		out["merged_at"] = p.UpdatedAt.Format(time.RFC3339)
		out["merge_commit_sha"] = p.MergeCommitSHA
	}
	var reqs []any
	for _, u := range p.Requested {
		reqs = append(reqs, map[string]any{"login": u})
	}
	out["requested_reviewers"] = reqs
	return out
}
