package ghclient

import (
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/google/go-github/v62/github"
)

// DefaultRetryBudget bounds the time spent retrying one request.
const DefaultRetryBudget = 20 * time.Second

// Options configure a Client. Zero values read the environment.
type Options struct {
	Repo Repo
	// Token; nil resolves it with ResolveToken.
	Token *Token
	// BaseURL of the REST API; empty takes GITHUB_API_URL, else https://api.github.com/ for
	// github.com and https://HOST/api/v3/ for GitHub Enterprise Server.
	BaseURL string
	// RetryBudget bounds retries of one request; zero takes EXARCHOS_GITHUB_RETRY_BUDGET (a Go
	// duration such as 500ms) or DefaultRetryBudget.
	RetryBudget time.Duration
	Env         Env
}

// Client reads one repository on GitHub.
type Client struct {
	gh     *github.Client
	repo   Repo
	token  Token
	base   string
	budget time.Duration
	tr     *retrying
}

// New builds a client for o.Repo.
func New(o Options) (*Client, error) {
	if o.Env.Getenv == nil {
		o.Env.Getenv = os.Getenv
	}
	var token Token
	if o.Token != nil {
		token = *o.Token
	} else {
		t, err := ResolveToken(o.Repo.Host, o.Env)
		if err != nil {
			return nil, err
		}
		token = t
	}
	base := o.BaseURL
	if base == "" {
		base = strings.TrimSpace(o.Env.Getenv("GITHUB_API_URL"))
	}
	if base == "" {
		base = "https://api.github.com/"
		if !isDotCom(o.Repo.Host) {
			base = "https://" + o.Repo.Host + "/api/v3/"
		}
	}
	if !strings.HasSuffix(base, "/") {
		base += "/"
	}
	u, err := url.Parse(base)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("GitHub API URL %q is not a URL (GITHUB_API_URL)", base)
	}
	if !tokenAllowed(u, u) {
		return nil, fmt.Errorf("GitHub API URL %q is not HTTPS: git exarchos sends the token over HTTPS only (plain HTTP only to localhost); set GITHUB_API_URL to an https:// URL", base)
	}
	budget := o.RetryBudget
	if budget == 0 {
		if v := o.Env.Getenv("EXARCHOS_GITHUB_RETRY_BUDGET"); v != "" {
			d, err := time.ParseDuration(v)
			if err != nil || d < 0 {
				return nil, fmt.Errorf("EXARCHOS_GITHUB_RETRY_BUDGET=%q is not a duration such as 20s", v)
			}
			budget = d
		} else {
			budget = DefaultRetryBudget
		}
	}
	tr := &retrying{next: http.DefaultTransport, budget: budget}
	auth := &authorizing{next: tr, api: u, token: token.value}
	gh := github.NewClient(&http.Client{Transport: auth, Timeout: 30 * time.Second})
	gh.BaseURL = u
	return &Client{gh: gh, repo: o.Repo, token: token, base: base, budget: budget, tr: tr}, nil
}

// APIHost is the host (and port) of the API this client talks to.
func (c *Client) APIHost() string { return c.gh.BaseURL.Host }

// TokenSource names where the token came from.
func (c *Client) TokenSource() string { return c.token.Source }

// Requests counts the HTTP requests made so far, retries included.
func (c *Client) Requests() int { return int(c.tr.requests.Load()) }
