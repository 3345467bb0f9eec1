package gitrepo

// The repository's format version and extensions, read from its config file by hand: every call
// checks them when it opens the repository, the hook's included, so the reason is discover.go's (no
// git process on the hook's path) and the parser is configfile.go's. Measured for issue 31
// (BENCHMARKS.md, "Issue 31: what each fast path buys"): 8–9 µs against 1.8–2.1 ms for `git config
// --get-regexp`, on every open. A ref storage it does not read sends refs to git (refs_git.go).

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// ErrUnsupportedRepo means the repository uses a format the store cannot read or write correctly.
var ErrUnsupportedRepo = errors.New("unsupported repository format")

// understood lists the repository extensions the store handles, by lowercase name; the function
// returns an error for a value it cannot handle.
var understood = map[string]func(v string) error{
	"objectformat": func(v string) error {
		if _, ok := parseObjectFormat(v); !ok {
			return fmt.Errorf("object format %q", v)
		}
		return nil
	},
	// The fast path reads and locks refs as files; any other storage (reftable) sends every ref
	// read and write to git (refs_git.go).
	"refstorage":        nil,
	"worktreeconfig":    nil, // the config reader reads config.worktree
	"preciousobjects":   nil, // the store never deletes objects
	"partialclone":      nil, // missing objects are reported as missing
	"relativeworktrees": nil, // discovery resolves relative gitdir links
	"noop":              nil,
	"noop-v1":           nil,
}

func parseObjectFormat(v string) (ObjectFormat, bool) {
	switch strings.ToLower(v) {
	case "", "sha1":
		return SHA1, true
	case "sha256":
		return SHA256, true
	}
	return SHA1, false
}

// gitBool is a config value (written with '=') as git's --type=bool reads it: true/yes/on, or an
// integer other than 0 (a k, m or g unit allowed); "" is false.
func gitBool(v string) bool {
	v = strings.ToLower(strings.TrimSpace(v))
	switch v {
	case "true", "yes", "on":
		return true
	case "", "false", "no", "off":
		return false
	}
	digits := strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(v, "k"), "m"), "g")
	n, err := strconv.ParseInt(digits, 10, 64)
	return err == nil && n != 0
}

// repoFeatures is what the repository's config says about how it is stored.
type repoFeatures struct {
	format ObjectFormat
	// promisor is extensions.partialClone: the remote missing objects are fetched from.
	promisor string
	// refStorage is extensions.refStorage when it is not "files" (lowercased): refs go through git.
	refStorage string
}

// readRepoFeatures reads core.repositoryFormatVersion and extensions.* from the repository's config
// and returns its object format and promisor remote, refusing what the store does not understand before anything is read
// or written: git refuses a repository with an unknown extension, and writing into one we only
// partly understand (a SHA-1 object into a SHA-256 repository, say) would corrupt it.
func readRepoFeatures(commonDir string) (repoFeatures, error) {
	f := repoFeatures{format: SHA1}
	path := filepath.Join(commonDir, "config")
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		refStorages.Store(commonDir, "")
		return repoFeatures{format: SHA1}, nil
	}
	if err != nil {
		return repoFeatures{}, fmt.Errorf("read %s: %w", path, err)
	}
	entries, err := parseConfigFile(b)
	if err != nil {
		return repoFeatures{}, fmt.Errorf("%s does not parse: %w; check it with `git config --list --file %s`", path, err, path)
	}
	version := 0
	if v := configLast(entries, "core", "repositoryformatversion"); v != "" {
		if version, err = strconv.Atoi(strings.TrimSpace(v)); err != nil || version < 0 || version > 1 {
			return repoFeatures{}, fmt.Errorf("%w: core.repositoryFormatVersion = %s in %s; git exarchos reads versions 0 and 1", ErrUnsupportedRepo, v, path)
		}
	}
	f.format = SHA1
	for _, e := range entries {
		// git 2.39 marks a partial clone's remote with remote.<name>.promisor rather than
		// extensions.partialClone.
		if e.Section == "remote" && e.Key == "promisor" && f.promisor == "" && (e.NoValue || gitBool(e.Value)) {
			f.promisor = e.Subsection
		}
		if e.Section != "extensions" || e.Subsection != "" {
			continue
		}
		check, known := understood[e.Key]
		if !known {
			return repoFeatures{}, fmt.Errorf("%w: extensions.%s is set in %s and git exarchos does not understand it, so it will not read or write this repository", ErrUnsupportedRepo, e.Name, path)
		}
		if check != nil {
			if err := check(e.Value); err != nil {
				return repoFeatures{}, fmt.Errorf("%w: extensions.%s: %v", ErrUnsupportedRepo, e.Name, err)
			}
		}
		switch e.Key {
		case "objectformat":
			f.format, _ = parseObjectFormat(e.Value)
		case "partialclone":
			f.promisor = e.Value
		case "refstorage":
			f.refStorage = strings.ToLower(strings.TrimSpace(e.Value))
			if f.refStorage == "files" {
				f.refStorage = ""
			}
		}
	}
	refStorages.Store(commonDir, f.refStorage)
	return f, nil
}

// ObjectFormat is the hash of the repository at l, from its config.
func (l Location) ObjectFormat() (ObjectFormat, error) {
	f, err := readRepoFeatures(l.CommonDir)
	return f.format, err
}
