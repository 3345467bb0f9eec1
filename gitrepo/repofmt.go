package gitrepo

// The repository's format version and extensions, read from its config file by hand: every call
// checks them when it opens the repository, the hook's included, so the reason is discover.go's (no
// git process on the hook's path) and the parser is configfile.go's.

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
	// The store reads and locks refs as files: the reftable backend would be bypassed.
	"refstorage": func(v string) error {
		if !strings.EqualFold(v, "files") {
			return fmt.Errorf("ref storage %q (only \"files\" is supported)", v)
		}
		return nil
	},
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

// repoFormat reads core.repositoryFormatVersion and extensions.* from the repository's config and
// returns its object format, refusing what the store does not understand before anything is read
// or written: git refuses a repository with an unknown extension, and writing into one we only
// partly understand (a SHA-1 object into a SHA-256 repository, say) would corrupt it.
func repoFormat(commonDir string) (ObjectFormat, error) {
	path := filepath.Join(commonDir, "config")
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return SHA1, nil
	}
	if err != nil {
		return SHA1, fmt.Errorf("read %s: %w", path, err)
	}
	entries, err := parseConfigFile(b)
	if err != nil {
		return SHA1, fmt.Errorf("%s does not parse: %w; check it with `git config --list --file %s`", path, err, path)
	}
	version := 0
	if v := configLast(entries, "core", "repositoryformatversion"); v != "" {
		if version, err = strconv.Atoi(strings.TrimSpace(v)); err != nil || version < 0 || version > 1 {
			return SHA1, fmt.Errorf("%w: core.repositoryFormatVersion = %s in %s; git exarchos reads versions 0 and 1", ErrUnsupportedRepo, v, path)
		}
	}
	format := SHA1
	for _, e := range entries {
		if e.Section != "extensions" || e.Subsection != "" {
			continue
		}
		check, known := understood[e.Key]
		if !known {
			return SHA1, fmt.Errorf("%w: extensions.%s is set in %s and git exarchos does not understand it, so it will not read or write this repository", ErrUnsupportedRepo, e.Name, path)
		}
		if check != nil {
			if err := check(e.Value); err != nil {
				return SHA1, fmt.Errorf("%w: extensions.%s: %v", ErrUnsupportedRepo, e.Name, err)
			}
		}
		if e.Key == "objectformat" {
			format, _ = parseObjectFormat(e.Value)
		}
	}
	return format, nil
}
