package workflow

import (
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
