package ghclient

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/google/go-github/v62/github"
)

// Kind classifies a GitHub failure.
type Kind string

// Kinds of failure. The access kinds (no token, bad token, no access, rate limited) are the
// caller's to fix; unreachable and unavailable are the network's or GitHub's.
const (
	KindNoToken     Kind = "GITHUB_NO_TOKEN"
	KindBadToken    Kind = "GITHUB_BAD_TOKEN"
	KindNoAccess    Kind = "GITHUB_NO_ACCESS"
	KindRateLimited Kind = "GITHUB_RATE_LIMITED"
	KindUnreachable Kind = "GITHUB_UNREACHABLE"
	KindUnavailable Kind = "GITHUB_UNAVAILABLE"
	KindError       Kind = "GITHUB_ERROR"
)

// Error is a failed GitHub request, with a message that names the fix. It never holds the token.
type Error struct {
	Kind        Kind      `json:"kind"`
	Host        string    `json:"host"`
	TokenSource string    `json:"tokenSource,omitempty"`
	Status      int       `json:"status,omitempty"`
	Reset       time.Time `json:"reset,omitempty"` // rate limit: when it resets
	Msg         string    `json:"-"`
}

func (e *Error) Error() string { return e.Msg }

// IsAccess reports whether the failure is about authentication or access (exit code 4).
func (e *Error) IsAccess() bool {
	switch e.Kind {
	case KindNoToken, KindBadToken, KindNoAccess, KindRateLimited:
		return true
	}
	return false
}

// gaveUp is returned by the retrying transport when the retry budget or attempts ran out.
type gaveUp struct {
	status     int
	attempts   int
	elapsed    time.Duration
	retryAfter time.Duration // what GitHub asked for, when it asked
	secondary  bool
	err        error // the last network error
}

func (g *gaveUp) Error() string {
	if g.err != nil {
		return fmt.Sprintf("%d attempts in %s: %v", g.attempts, g.elapsed.Round(time.Millisecond), g.err)
	}
	return fmt.Sprintf("%d attempts in %s: HTTP %d", g.attempts, g.elapsed.Round(time.Millisecond), g.status)
}

func (g *gaveUp) Unwrap() error { return g.err }

// operation is what a request did, for messages: reading, or a write such as closing.
type operation struct {
	gerund string // "reading"
	needs  string // the token's permission the operation needs
}

var (
	opRead  = operation{"reading", "read access to pull requests, checks and commit statuses"}
	opClose = operation{"closing", "write access to pull requests and issues (to comment and close)"}
)

// wrap turns a go-github error of a read into an *Error. what names the thing asked for (owner/repo#12).
func (c *Client) wrap(what string, resp *github.Response, err error) error {
	return c.wrapOp(opRead, what, resp, err)
}

// wrapOp turns a go-github error into an *Error that names the operation and its fix.
func (c *Client) wrapOp(op operation, what string, resp *github.Response, err error) error {
	if err == nil {
		return nil
	}
	e := &Error{Kind: KindError, Host: c.repo.Host, TokenSource: c.token.Source}
	src := "the " + c.token.String()
	var g *gaveUp
	var rl *github.RateLimitError
	switch {
	case errors.As(err, &g) && g.secondary:
		e.Kind, e.Status = KindRateLimited, g.status
		e.Reset = time.Now().Add(g.retryAfter).UTC()
		e.Msg = fmt.Sprintf("GitHub's secondary rate limit stopped %s %s with %s: it asked to wait %s, more than the retry budget %s; retry after %s",
			op.gerund, what, src, g.retryAfter, c.budget, e.Reset.Format(time.RFC3339))
	case errors.As(err, &g) && g.err == nil:
		e.Kind, e.Status = KindUnavailable, g.status
		e.Msg = fmt.Sprintf("GitHub kept failing while %s %s: HTTP %d, %s; GitHub may be degraded (https://www.githubstatus.com): retry later",
			op.gerund, what, g.status, g.Error())
	case errors.As(err, &rl):
		e.Kind, e.Status, e.Reset = KindRateLimited, rl.Response.StatusCode, rl.Rate.Reset.Time.UTC()
		e.Msg = rateLimitMsg(op, what, src, rl.Rate.Limit, e.Reset)
	case resp != nil && resp.Response != nil:
		e.Status = resp.StatusCode
		msg := http.StatusText(resp.StatusCode)
		var er *github.ErrorResponse
		if errors.As(err, &er) && er.Message != "" {
			msg = er.Message
		}
		switch {
		case resp.StatusCode < 300:
			// Answered, but not with what the API sends: a proxy, a login page, a web host.
			ct := resp.Header.Get("Content-Type")
			if ct == "" {
				ct = "none"
			}
			e.Msg = fmt.Sprintf("GitHub's answer to %s %s could not be read: HTTP %d with Content-Type %s (%v); %s may not be the GitHub REST API (a proxy or a web page answered?): check GITHUB_API_URL",
				op.gerund, what, resp.StatusCode, ct, err, c.base)
		case resp.StatusCode == http.StatusUnauthorized:
			e.Kind = KindBadToken
			e.Msg = fmt.Sprintf("GitHub rejected %s for %s (401 %s): the token is expired, revoked or mistyped; set a valid one or run `gh auth login --hostname %s`",
				src, c.repo.Host, msg, c.repo.Host)
		case resp.Header.Get("X-RateLimit-Remaining") == "0" && (resp.StatusCode == 403 || resp.StatusCode == 429):
			e.Kind = KindRateLimited
			if n, err := strconv.ParseInt(resp.Header.Get("X-RateLimit-Reset"), 10, 64); err == nil {
				e.Reset = time.Unix(n, 0).UTC()
			}
			e.Msg = rateLimitMsg(op, what, src, resp.Rate.Limit, e.Reset)
		case resp.StatusCode == http.StatusForbidden:
			e.Kind = KindNoAccess
			e.Msg = fmt.Sprintf("GitHub refused %s %s to %s (403 %s): the token needs %s of %s",
				op.gerund, what, src, msg, op.needs, c.repo.FullName())
		case resp.StatusCode == http.StatusNotFound:
			e.Kind = KindNoAccess
			e.Msg = fmt.Sprintf("GitHub has no %s visible to %s (404 %s): check the number and the repository, or that the token can read %s (gh auth status)",
				what, src, msg, c.repo.FullName())
		case resp.StatusCode >= 500:
			e.Kind = KindUnavailable
			e.Msg = fmt.Sprintf("GitHub failed while %s %s: HTTP %d %s; retry later", op.gerund, what, resp.StatusCode, msg)
		default:
			e.Msg = fmt.Sprintf("GitHub refused %s %s: HTTP %d %s", op.gerund, what, resp.StatusCode, msg)
		}
	default: // no answer: the network, DNS, TLS or a timeout
		e.Kind = KindUnreachable
		e.Msg = fmt.Sprintf("cannot reach the GitHub API at %s while %s %s (%v): check the network or GITHUB_API_URL",
			c.base, op.gerund, what, err)
		if op == opRead {
			e.Msg += "; `git exarchos cleanup <feature> --offline` verifies a merge without GitHub"
		}
	}
	e.Msg = c.token.redact(e.Msg)
	return e
}

func rateLimitMsg(op operation, what, src string, limit int, reset time.Time) string {
	when := "later"
	if !reset.IsZero() {
		when = fmt.Sprintf("at %s (in %s)", reset.Format(time.RFC3339), time.Until(reset).Round(time.Second))
	}
	return fmt.Sprintf("GitHub API rate limit exhausted for %s (limit %d) while %s %s: it resets %s", src, limit, op.gerund, what, when)
}
