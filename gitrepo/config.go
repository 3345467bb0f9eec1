package gitrepo

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// ErrNoIdentity means no user.name or user.email is configured.
var ErrNoIdentity = errors.New("no git identity")

// loadConfig reads the git configuration, every scope. It is the one config reader of exarchos. In
// the common case it parses the config files itself, in git's order, because a `git config` process
// costs 2-3 ms on every write and hooks write on counted tool calls; whenever something only git
// can resolve is involved (include directives, GIT_CONFIG_* variables, an identity it did not
// find), it asks the git binary, so every scope behaves exactly as in git. Measured when writes
// stopped starting `git config` (BENCHMARKS.md, "The CLI, whole process (issues 2 and 3)"):
// `transition` 13.3 → 10.6 ms and `event` 13.8 → 10.5 ms. Measured again for issue 31
// (BENCHMARKS.md, "Issue 31: what each fast path buys"): 13.5 µs against 1.9 ms for `git config -z
// --list`.
func (s *Repo) loadConfig() map[string][]string {
	if s.config != nil {
		return s.config
	}
	if cfg, ok := s.readConfigFiles(); ok {
		s.config = cfg
		return cfg
	}
	s.config = s.configFromGit()
	return s.config
}

// configFromGit asks the git binary for the whole configuration.
func (s *Repo) configFromGit() map[string][]string {
	cfg := map[string][]string{}
	out, err := s.Loc.Git(nil, "config", "-z", "--list")
	if err != nil {
		return cfg
	}
	for _, rec := range strings.Split(out, "\x00") {
		if rec == "" {
			continue
		}
		k, v, hasValue := strings.Cut(rec, "\n")
		if !hasValue {
			v = configNoValue
		}
		k = configKey(k)
		cfg[k] = append(cfg[k], v)
	}
	return cfg
}

// configKey spells a key as git compares it: section and name are case-insensitive, a
// subsection ("branch.<name>.remote") is not.
func configKey(key string) string {
	first := strings.IndexByte(key, '.')
	last := strings.LastIndexByte(key, '.')
	if first < 0 || first == last {
		return strings.ToLower(key)
	}
	return strings.ToLower(key[:first]) + key[first:last] + strings.ToLower(key[last:])
}

// ConfigRemotes lists the remotes that have a URL, in name order, from the configuration already
// read (no git process).
func (s *Repo) ConfigRemotes() []string {
	var names []string
	for k := range s.loadConfig() {
		if name, ok := strings.CutPrefix(k, "remote."); ok && strings.HasSuffix(name, ".url") {
			names = append(names, strings.TrimSuffix(name, ".url"))
		}
	}
	sort.Strings(names)
	return names
}

// Config returns the last value of a git config key.
func (s *Repo) Config(key string) (string, bool) {
	vals := s.ConfigAll(key)
	if len(vals) == 0 {
		return "", false
	}
	return vals[len(vals)-1], true
}

// ConfigAll returns every value of a multi-valued key (remote.<name>.fetch), in git's order.
func (s *Repo) ConfigAll(key string) []string {
	vals := s.loadConfig()[configKey(key)]
	if !slices.Contains(vals, configNoValue) {
		return vals
	}
	out := slices.Clone(vals)
	for i, v := range out {
		if v == configNoValue {
			out[i] = "" // as `git config --get` prints it
		}
	}
	return out
}

// configNoValue stands, in the loaded configuration, for a key written without '=' (true to
// --type=bool, where `key =` is false). No value read from a file can hold a NUL.
const configNoValue = "\x00"

// AddConfig adds a value to a key in the repository's config, through git (which locks the file),
// and forgets the cached configuration.
func (s *Repo) AddConfig(key, value string) error {
	s.config = nil
	_, err := s.Loc.Git(nil, "config", "--add", key, value)
	return err
}

// ConfigBool reads a boolean git config key as `git config --type=bool` does: a key without a
// value, true/yes/on, or a non-zero integer (with a k, m or g unit) is true; `key =`,
// false/no/off and 0 are false. A value git would refuse reads as false.
func (s *Repo) ConfigBool(key string) bool {
	vals := s.loadConfig()[configKey(key)]
	if len(vals) == 0 {
		return false
	}
	v := vals[len(vals)-1]
	return v == configNoValue || gitBool(v)
}

// ConfigInt reads an integer git config key, or def when unset or not a number.
func (s *Repo) ConfigInt(key string, def int) int {
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
func (s *Repo) Actor() (string, error) {
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

// Signature is the author and committer line of a commit made now by whoever runs the command.
func (s *Repo) Signature(now time.Time) (Signature, error) {
	actor, err := s.Actor()
	if err != nil {
		return Signature{}, err
	}
	name, rest, _ := strings.Cut(actor, " <")
	return Signature{Name: name, Email: strings.TrimSuffix(rest, ">"), When: now.Truncate(time.Second)}, nil
}

// systemGitconfigKnown reports whether the git on PATH is the one a system package installs in
// /usr, whose system config is /etc/gitconfig.
var systemGitconfigKnown = sync.OnceValue(func() bool {
	p, err := exec.LookPath("git")
	if err != nil {
		return false
	}
	if r, err := filepath.EvalSymlinks(p); err == nil {
		p = r
	}
	return systemGit(p)
})

// systemGit reports whether the git binary at path belongs to a git installed in /usr. Run as
// `git exarchos`, we find git's exec-path first on PATH (git puts it there for its subcommands),
// where Debian keeps a copy of the binary: taken for another git, it cost every `git exarchos`
// command a `git config --list` process.
func systemGit(path string) bool {
	switch path {
	case "/usr/bin/git", "/bin/git", "/usr/lib/git-core/git", "/usr/libexec/git-core/git":
		return true
	}
	return false
}

// readConfigFiles parses system, global (XDG, then ~/.gitconfig), repository and worktree config;
// ok is false when git must be asked instead.
func (s *Repo) readConfigFiles() (map[string][]string, bool) {
	for _, env := range []string{"GIT_CONFIG", "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM"} {
		if os.Getenv(env) != "" {
			return nil, false
		}
	}
	home, _ := os.UserHomeDir()
	xdg := os.Getenv("XDG_CONFIG_HOME")
	if xdg == "" && home != "" {
		xdg = filepath.Join(home, ".config")
	}
	var files []string
	if os.Getenv("GIT_CONFIG_NOSYSTEM") == "" {
		// The system config is $(sysconfdir)/gitconfig of the git that runs: /etc/gitconfig for a
		// git installed in /usr; any other (Homebrew, /usr/local, a build of one's own) keeps it
		// under its own prefix, so git is asked.
		if systemGitconfigKnown() {
			files = append(files, "/etc/gitconfig")
		} else {
			return nil, false
		}
	}
	if xdg != "" {
		files = append(files, filepath.Join(xdg, "git", "config"))
	}
	if home != "" {
		files = append(files, filepath.Join(home, ".gitconfig"))
	}
	files = append(files, filepath.Join(s.Loc.CommonDir, "config"))
	out := map[string][]string{}
	for i := 0; i < len(files); i++ { // the worktree config may be appended on the way
		b, err := os.ReadFile(files[i])
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, false
		}
		entries, err := parseConfigFile(b)
		if err != nil {
			return nil, false
		}
		for _, e := range entries {
			if e.Section == "include" || e.Section == "includeif" {
				return nil, false
			}
			if e.Section == "extensions" && e.Subsection == "" && e.Key == "worktreeconfig" && !strings.EqualFold(e.Value, "false") &&
				files[i] == filepath.Join(s.Loc.CommonDir, "config") {
				files = append(files, filepath.Join(s.Loc.GitDir, "config.worktree"))
			}
			v := e.Value
			if e.NoValue {
				v = configNoValue
			}
			out[e.fullKey()] = append(out[e.fullKey()], v)
		}
	}
	if len(out["user.name"]) == 0 || len(out["user.email"]) == 0 {
		return nil, false // perhaps set where only git looks (another system prefix): ask git
	}
	return out, true
}

// UserConfig reads key from the user's own configuration only: the system file and the global
// ones (XDG, then ~/.gitconfig), last value wins. Never the repository's config, the worktree's,
// `git -c` or GIT_CONFIG_* variables: those a process in the repository can set for itself, so
// what decides trust (which ref is the base) must not come from them. Include directives are not
// followed here. The files are read on each call: trust is resolved once per command.
func UserConfig(key string) (string, bool) {
	home, _ := os.UserHomeDir()
	xdg := os.Getenv("XDG_CONFIG_HOME")
	if xdg == "" && home != "" {
		xdg = filepath.Join(home, ".config")
	}
	files := []string{"/etc/gitconfig"}
	if xdg != "" {
		files = append(files, filepath.Join(xdg, "git", "config"))
	}
	if home != "" {
		files = append(files, filepath.Join(home, ".gitconfig"))
	}
	want := configKey(key)
	val, found := "", false
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		entries, err := parseConfigFile(b)
		if err != nil {
			continue
		}
		for _, e := range entries {
			if e.fullKey() == want {
				val, found = e.Value, true
			}
		}
	}
	return val, found
}
