package fakegithub

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// The routes issue 37 added. What a branch's protection is on the fake: the rules of active rulesets (GET
// /repos/{owner}/{repo}/rules/branches/{branch}, readable with read access) and the classic
// branch protection (GET …/branches/{branch}/protection, readable with admin only; GET
// …/branches/{branch} shows its protected flag and required checks to any reader).

// BranchRule is one active ruleset rule on a branch: its type (required_status_checks,
// pull_request, non_fast_forward, deletion, update, …) and, for required_status_checks, the
// contexts it requires.
type BranchRule struct {
	Type   string
	Checks []string
	App    int64 // the integration_id the checks are pinned to (0: any source)
}

// Protection is a branch's classic protection rule.
type Protection struct {
	Checks             []string // required status check contexts
	App                int64    // the app_id the checks are pinned to (0: any source)
	RequirePullRequest bool     // required_pull_request_reviews present: no direct pushes
	AllowForcePushes   bool
	AllowDeletions     bool
}

// SetBranchRules sets the active ruleset rules on branch (none: no ruleset applies).
// ProtectBranch gives branch the ruleset `git exarchos setup --github` creates: check required
// from app (the integration that must report it), changes through pull requests only, no force
// push, no deletion. The tests of the verify gate meet GitHub through it.
func (s *Server) ProtectBranch(branch, check string, app int64) {
	s.SetBranchRules(branch, BranchRule{Type: "required_status_checks", Checks: []string{check}, App: app},
		BranchRule{Type: "pull_request"}, BranchRule{Type: "non_fast_forward"}, BranchRule{Type: "deletion"})
}

func (s *Server) SetBranchRules(branch string, rules ...BranchRule) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.rules == nil {
		s.rules = map[string][]BranchRule{}
	}
	s.rules[branch] = rules
}

// SetProtection sets branch's classic protection (nil: not protected).
func (s *Server) SetProtection(branch string, p *Protection) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.protections == nil {
		s.protections = map[string]*Protection{}
	}
	if p == nil {
		delete(s.protections, branch)
		return
	}
	c := *p
	s.protections[branch] = &c
}

func (s *Server) admin() bool { return s.Permissions != nil && s.Permissions["admin"] }

// serveProtection answers the protection routes; false when route is not one of them.
func (s *Server) serveProtection(w http.ResponseWriter, r *http.Request, route string, params []string, body []byte) (any, bool) {
	switch route {
	case "branch-rules":
		list := []any{}
		for i, rule := range s.rules[params[2]] {
			list = append(list, ruleJSON(s.full(), i, rule))
		}
		return s.page(w, r, list), true
	case "branch":
		b := example("branch-get").(map[string]any)
		b["name"] = params[2]
		p := s.protections[params[2]]
		contexts := []any{}
		if p != nil {
			for _, c := range p.Checks {
				contexts = append(contexts, c)
			}
		}
		level := "off"
		if len(contexts) > 0 {
			level = "non_admins"
		}
		b["protected"] = p != nil
		b["protection"] = map[string]any{"enabled": p != nil, "required_status_checks": map[string]any{"enforcement_level": level, "contexts": contexts, "checks": checksJSON(p)}}
		b["protection_url"] = fmt.Sprintf("%s/repos/%s/branches/%s/protection", s.URL, s.full(), params[2])
		return b, true
	case "create-check-run":
		var in struct {
			Name       string `json:"name"`
			HeadSHA    string `json:"head_sha"`
			Status     string `json:"status"`
			Conclusion string `json:"conclusion"`
			Output     *struct {
				Title   string `json:"title"`
				Summary string `json:"summary"`
				Text    string `json:"text"`
			} `json:"output"`
		}
		if s.App == "" {
			w.WriteHeader(http.StatusForbidden)
			return map[string]any{"message": "You must authenticate via a GitHub App.", "documentation_url": "https://docs.github.com/rest/checks/runs#create-a-check-run", "status": "403"}, true
		}
		if json.Unmarshal(body, &in) != nil || in.Name == "" || in.HeadSHA == "" {
			s.unprocessable(w, "name")
			return nil, true
		}
		c := CheckRun{Name: in.Name, Status: in.Status, Conclusion: in.Conclusion, App: s.App}
		if c.Status == "" {
			c.Status = "queued"
		}
		if in.Output != nil {
			c.Title, c.Summary, c.Text = in.Output.Title, in.Output.Summary, in.Output.Text
		}
		s.runs[in.HeadSHA] = append(s.runs[in.HeadSHA], c)
		w.WriteHeader(http.StatusCreated)
		return checkRunJSON(in.HeadSHA, len(s.runs[in.HeadSHA])-1, c), true
	case "create-ruleset":
		return s.createRuleset(w, body), true
	case "branch-protection":
		if !s.admin() {
			// What GitHub answers a token without admin (an Actions token, a user who can push).
			w.WriteHeader(http.StatusForbidden)
			return map[string]any{"message": "Resource not accessible by integration", "documentation_url": "https://docs.github.com/rest/branches/branch-protection#get-branch-protection", "status": "403"}, true
		}
		p := s.protections[params[2]]
		if p == nil {
			w.WriteHeader(http.StatusNotFound)
			return map[string]any{"message": "Branch not protected", "documentation_url": "https://docs.github.com/rest/branches/branch-protection#get-branch-protection", "status": "404"}, true
		}
		out := example("branch-protection").(map[string]any)
		url := fmt.Sprintf("%s/repos/%s/branches/%s/protection", s.URL, s.full(), params[2])
		out["url"] = url
		checks := out["required_status_checks"].(map[string]any)
		contexts := []any{}
		for _, c := range p.Checks {
			contexts = append(contexts, c)
		}
		checks["contexts"] = contexts
		checks["checks"] = checksJSON(p)
		// GitHub's example names restrictions whose apps and teams its own schema refuses; the fake
		// restricts nobody (GitHub leaves both out then), as the OpenAPI test found.
		delete(out, "restrictions")
		delete(out["required_pull_request_reviews"].(map[string]any), "dismissal_restrictions")
		if len(contexts) == 0 {
			delete(out, "required_status_checks")
		}
		if !p.RequirePullRequest {
			delete(out, "required_pull_request_reviews")
		}
		out["allow_force_pushes"] = map[string]any{"enabled": p.AllowForcePushes}
		out["allow_deletions"] = map[string]any{"enabled": p.AllowDeletions}
		return out, true
	}
	return nil, false
}

func ruleJSON(full string, i int, rule BranchRule) map[string]any {
	out := map[string]any{"type": rule.Type, "ruleset_source_type": "Repository", "ruleset_source": full, "ruleset_id": i + 1}
	switch rule.Type {
	case "required_status_checks":
		checks := []any{}
		for _, c := range rule.Checks {
			m := map[string]any{"context": c}
			if rule.App != 0 {
				m["integration_id"] = rule.App
			}
			checks = append(checks, m)
		}
		out["parameters"] = map[string]any{"required_status_checks": checks, "strict_required_status_checks_policy": false}
	case "pull_request":
		out["parameters"] = map[string]any{"dismiss_stale_reviews_on_push": false, "require_code_owner_review": false,
			"require_last_push_approval": false, "required_approving_review_count": 0, "required_review_thread_resolution": false}
	}
	return out
}

// createRuleset applies a ruleset's rules to the branches its ref_name condition includes
// (refs/heads/<name>; patterns are not expanded), as GET rules/branches then reports them.
func (s *Server) createRuleset(w http.ResponseWriter, body []byte) any {
	if !s.admin() {
		w.WriteHeader(http.StatusNotFound) // what GitHub answers a token without admin
		return map[string]any{"message": "Not Found", "documentation_url": "https://docs.github.com/rest/repos/rules#create-a-repository-ruleset", "status": "404"}
	}
	var in struct {
		Name        string `json:"name"`
		Target      string `json:"target"`
		Enforcement string `json:"enforcement"`
		Conditions  struct {
			RefName struct {
				Include []string `json:"include"`
			} `json:"ref_name"`
		} `json:"conditions"`
		Rules []struct {
			Type       string `json:"type"`
			Parameters struct {
				Checks []struct {
					Context string `json:"context"`
					App     int64  `json:"integration_id"`
				} `json:"required_status_checks"`
			} `json:"parameters"`
		} `json:"rules"`
	}
	if json.Unmarshal(body, &in) != nil || in.Name == "" || in.Enforcement == "" {
		s.unprocessable(w, "name")
		return nil
	}
	var rules []BranchRule
	for _, r := range in.Rules {
		br := BranchRule{Type: r.Type}
		for _, c := range r.Parameters.Checks {
			br.Checks, br.App = append(br.Checks, c.Context), c.App
		}
		rules = append(rules, br)
	}
	if s.rules == nil {
		s.rules = map[string][]BranchRule{}
	}
	for _, ref := range in.Conditions.RefName.Include {
		if b, ok := strings.CutPrefix(ref, "refs/heads/"); ok && in.Enforcement == "active" {
			s.rules[b] = append(s.rules[b], rules...)
		}
	}
	s.rulesets++
	out := example("repository-ruleset").(map[string]any)
	var raw map[string]any
	_ = json.Unmarshal(body, &raw)
	out["id"], out["name"], out["enforcement"], out["source"] = s.rulesets, in.Name, in.Enforcement, s.full()
	for _, k := range []string{"target", "conditions", "rules", "bypass_actors"} {
		if v, ok := raw[k]; ok {
			out[k] = v
		}
	}
	w.WriteHeader(http.StatusCreated)
	return out
}

// checksJSON is a protection's required checks with the app each is pinned to (null: any).
func checksJSON(p *Protection) []any {
	list := []any{}
	if p == nil {
		return list
	}
	for _, c := range p.Checks {
		var app any
		if p.App != 0 {
			app = p.App
		}
		list = append(list, map[string]any{"context": c, "app_id": app})
	}
	return list
}
