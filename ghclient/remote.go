// Package ghclient reads pull requests, checks and reviews from GitHub (and GitHub Enterprise
// Server) with go-github, for the PR guards: it resolves the repository from the origin remote or a
// PR URL, the token from the environment or gh, retries transient failures within a time budget,
// and turns every failure into an *Error that says what to do. The token never appears in errors.
//
// It may import workflow, go-github and the internal helpers.
package ghclient

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/exarchos/git-exarchos/workflow"
)

// Repo is a repository on a GitHub host.
type Repo struct {
	Host  string `json:"host"`
	Owner string `json:"owner"`
	Name  string `json:"name"`
}

// FullName is owner/name.
func (r Repo) FullName() string { return r.Owner + "/" + r.Name }

// String is host/owner/name.
func (r Repo) String() string { return r.Host + "/" + r.FullName() }

// Same reports whether two repositories are the same (GitHub names are case-insensitive).
func (r Repo) Same(o Repo) bool {
	return strings.EqualFold(r.Host, o.Host) && strings.EqualFold(r.Owner, o.Owner) && strings.EqualFold(r.Name, o.Name)
}

// PRURL is the web URL of pull request n.
func (r Repo) PRURL(n int) string {
	return fmt.Sprintf("https://%s/%s/pull/%d", r.Host, r.FullName(), n)
}

// ParseRemoteURL reads the repository from a git remote URL: https://host/owner/repo(.git),
// ssh://git@host[:port]/owner/repo.git, git@host:owner/repo.git, git://host/owner/repo.
func ParseRemoteURL(raw string) (Repo, error) {
	s := strings.TrimSpace(raw)
	var host, path string
	if i := strings.Index(s, "://"); i >= 0 {
		u, err := url.Parse(s)
		if err != nil {
			return Repo{}, fmt.Errorf("remote URL %q: %w", s, err)
		}
		switch u.Scheme {
		case "https", "http", "ssh", "git", "git+ssh", "ssh+git":
		default:
			return Repo{}, fmt.Errorf("remote URL %q: scheme %s is not a GitHub remote", s, u.Scheme)
		}
		host, path = u.Hostname(), u.Path
	} else if at, rest, ok := strings.Cut(s, ":"); ok && !strings.Contains(at, "/") {
		// scp-like syntax: [user@]host:owner/repo.git
		if _, h, ok := strings.Cut(at, "@"); ok {
			at = h
		}
		host, path = at, rest
	} else {
		return Repo{}, fmt.Errorf("remote URL %q is a local path, not a GitHub repository (https://<host>/<owner>/<repo> or user@host:owner/repo)", s)
	}
	host = strings.ToLower(host)
	if host == "ssh.github.com" { // ssh over port 443
		host = "github.com"
	}
	parts := strings.Split(strings.TrimSuffix(strings.Trim(path, "/"), ".git"), "/")
	if host == "" || len(parts) != 2 || parts[0] == "" || parts[1] == "" {
		return Repo{}, fmt.Errorf("remote URL %q does not name a repository as host/owner/repo", s)
	}
	return Repo{Host: host, Owner: parts[0], Name: parts[1]}, nil
}

// RepoOfPR returns the repository a pull request URL names, and the number.
func RepoOfPR(prURL string) (Repo, int, bool) {
	ref, ok := workflow.ParsePRURL(prURL)
	if !ok {
		return Repo{}, 0, false
	}
	return Repo{Host: strings.ToLower(ref.Host), Owner: ref.Owner, Name: ref.Repo}, ref.Number, true
}
