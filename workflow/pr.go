package workflow

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
)

// PRRef is a pull request named by its URL.
type PRRef struct {
	Host   string `json:"host"`
	Owner  string `json:"owner"`
	Repo   string `json:"repo"`
	Number int    `json:"number"`
}

// ParsePRURL parses https://<host>/<owner>/<repo>/pull/<number> (GitHub and GitHub Enterprise).
func ParsePRURL(raw string) (PRRef, bool) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return PRRef{}, false
	}
	parts := strings.Split(strings.Trim(u.Path, "/"), "/")
	if len(parts) < 4 || parts[2] != "pull" || parts[0] == "" || parts[1] == "" {
		return PRRef{}, false
	}
	n, err := strconv.Atoi(parts[3])
	if err != nil || n <= 0 {
		return PRRef{}, false
	}
	return PRRef{Host: u.Host, Owner: parts[0], Repo: parts[1], Number: n}, true
}

// OfflineLocalLine is the offline road on a local base branch: merge (unless the workflow works
// on the base itself), then cleanup --offline.
func OfflineLocalLine(base, branch, feature string) string {
	if base == branch { // the workflow works on the base itself: its commits are there
		return fmt.Sprintf("git exarchos cleanup %s --offline", feature)
	}
	return fmt.Sprintf("git switch %s && git merge --no-edit %s && git exarchos cleanup %s --offline", base, branch, feature)
}

// OfflineRemoteFix is the offline road on a remote's branch (origin/main): the merge happens on
// the remote, then cleanup reads the branch as fetched. It names the merge first, so that a
// cleanup refused for want of it never prints itself again.
func OfflineRemoteFix(base, branch, feature string) string {
	remote, name, _ := strings.Cut(base, "/")
	return fmt.Sprintf("merge %s into %s on %s first (push it and merge it there), then run: git fetch && git exarchos cleanup %s --offline", branch, name, remote, feature)
}
