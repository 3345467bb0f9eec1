package gitstore

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// loadConfig reads the git configuration that exarchos uses (user.* and exarchos.*) with one call of
// the git binary, so includes, conditional includes and every scope behave exactly as in git.
func (s *Store) loadConfig() map[string][]string {
	if s.config != nil {
		return s.config
	}
	s.config = map[string][]string{}
	out, err := gitCmd(s.Loc.GitDir, nil, "config", "-z", "--get-regexp", `^(user\.(name|email)|exarchos\..*)$`)
	if err != nil {
		return s.config // exit 1: nothing matched
	}
	for _, rec := range bytes.Split(out, []byte{0}) {
		if len(rec) == 0 {
			continue
		}
		k, v, _ := strings.Cut(string(rec), "\n")
		k = strings.ToLower(k)
		s.config[k] = append(s.config[k], v)
	}
	return s.config
}

// Config returns the last value of a git config key (keys are case-insensitive, as in git).
func (s *Store) Config(key string) (string, bool) {
	vals := s.loadConfig()[strings.ToLower(key)]
	if len(vals) == 0 {
		return "", false
	}
	return vals[len(vals)-1], true
}

// ConfigBool reads a boolean git config key the way git spells booleans.
func (s *Store) ConfigBool(key string) bool {
	v, ok := s.Config(key)
	if !ok {
		return false
	}
	switch strings.ToLower(v) {
	case "", "true", "yes", "on", "1":
		return true
	}
	return false
}

// ConfigInt reads an integer git config key, or def when unset or not a number.
func (s *Store) ConfigInt(key string, def int) int {
	v, ok := s.Config(key)
	if !ok {
		return def
	}
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil {
		return def
	}
	return n
}

// Actor is "Name <email>" of whoever runs the command: GIT_AUTHOR_NAME/EMAIL, else user.name and
// user.email. Unlike git, it never guesses an identity from the host name: the log is an audit trail.
func (s *Store) Actor() (string, error) {
	name, email := os.Getenv("GIT_AUTHOR_NAME"), os.Getenv("GIT_AUTHOR_EMAIL")
	if name == "" {
		name, _ = s.Config("user.name")
	}
	if email == "" {
		email, _ = s.Config("user.email")
	}
	if name == "" || email == "" {
		return "", fmt.Errorf("%w: git exarchos records who made every change; set it with `git config --global user.name \"Your Name\"` and `git config --global user.email you@example.com`", ErrNoIdentity)
	}
	return fmt.Sprintf("%s <%s>", name, email), nil
}

func (s *Store) signature() (signature, error) {
	actor, err := s.Actor()
	if err != nil {
		return signature{}, err
	}
	name, rest, _ := strings.Cut(actor, " <")
	return signature{Name: name, Email: strings.TrimSuffix(rest, ">"), When: s.Now().Truncate(time.Second)}, nil
}
