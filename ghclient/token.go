package ghclient

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"strings"
	"time"
)

// Token is a GitHub token and where it came from. Printing or marshalling it shows only the
// source, so it cannot leak through output, events or errors by accident.
type Token struct {
	value  string
	Source string // GH_TOKEN, GITHUB_TOKEN, GH_ENTERPRISE_TOKEN, GITHUB_ENTERPRISE_TOKEN, gh auth token
}

// NewToken wraps a token value from source.
func NewToken(value, source string) Token { return Token{value: value, Source: source} }

func (t Token) String() string   { return "token from " + t.Source }
func (t Token) GoString() string { return "ghclient.Token{" + t.Source + "}" }
func (t Token) MarshalJSON() ([]byte, error) {
	return json.Marshal(map[string]string{"source": t.Source})
}
func (t Token) redact(s string) string {
	if len(t.value) < 4 {
		return s
	}
	return strings.ReplaceAll(s, t.value, "[redacted]")
}

// Env is how the token is looked up: environment variables, then `gh auth token`.
type Env struct {
	Getenv func(string) string
	// GhToken runs `gh auth token --hostname host`; nil uses gh from PATH when installed.
	GhToken func(host string) (string, error)
}

// ResolveToken finds the token for host: GH_TOKEN, then GITHUB_TOKEN (empty values are skipped),
// GH_ENTERPRISE_TOKEN then GITHUB_ENTERPRISE_TOKEN for hosts other than github.com, then
// `gh auth token --hostname host` when gh is installed.
func ResolveToken(host string, env Env) (Token, error) {
	names := []string{"GH_TOKEN", "GITHUB_TOKEN"}
	if !isDotCom(host) {
		names = append(names, "GH_ENTERPRISE_TOKEN", "GITHUB_ENTERPRISE_TOKEN")
	}
	for _, n := range names {
		if v := strings.TrimSpace(env.Getenv(n)); v != "" {
			return NewToken(v, n), nil
		}
	}
	gh := env.GhToken
	if gh == nil {
		gh = ghAuthToken
	}
	if v, err := gh(host); err == nil && strings.TrimSpace(v) != "" {
		return NewToken(strings.TrimSpace(v), "gh auth token"), nil
	}
	return Token{}, &Error{Kind: KindNoToken, Host: host, Msg: fmt.Sprintf(
		"no GitHub token for %s: set GH_TOKEN (or GITHUB_TOKEN%s), or log in with `gh auth login --hostname %s`; to verify a merge without GitHub use `git exarchos cleanup <feature> --offline`",
		host, iff(!isDotCom(host), ", GH_ENTERPRISE_TOKEN"), host)}
}

func isDotCom(host string) bool { return strings.EqualFold(host, "github.com") }

func iff(c bool, s string) string {
	if c {
		return s
	}
	return ""
}

// ghAuthToken asks the gh CLI for its token, when gh is installed.
func ghAuthToken(host string) (string, error) {
	path, err := exec.LookPath("gh")
	if err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, path, "auth", "token", "--hostname", host).Output()
	return string(out), err
}
