package project

import (
	"cmp"
	"path/filepath"
	"strings"

	"github.com/exarchos/git-exarchos/gitrepo"
)

// What the installers and doctor ask of git before (or without) opening a store: they run where
// the store may not open (a bare repository, a repository of an unsupported format), so these
// locate the repository only.

// GitHooksDir is the directory git runs hooks from for the repository enclosing dir ("" is the
// current directory): core.hooksPath when set (husky and the like), else the common git
// directory's hooks/, exactly as git resolves it.
func GitHooksDir(dir string) (string, error) {
	loc, err := gitrepo.Discover(cmp.Or(dir, "."))
	if err != nil {
		return "", err
	}
	out, err := loc.Git(nil, "rev-parse", "--git-path", "hooks")
	if err != nil {
		return "", err
	}
	p := strings.TrimSpace(out)
	if !filepath.IsAbs(p) {
		p = filepath.Join(cmp.Or(loc.WorkTree, loc.GitDir), p)
	}
	return filepath.Clean(p), nil
}

// WorkTree is the top of the working tree enclosing dir ("" is the current directory); "" for a
// bare repository.
func WorkTree(dir string) (string, error) {
	loc, err := gitrepo.Discover(cmp.Or(dir, "."))
	if err != nil {
		return "", err
	}
	return loc.WorkTree, nil
}

// GitVersion is what `git version` prints, run outside any repository.
func GitVersion() (string, error) {
	out, err := gitrepo.GitIn("", "version")
	return out, err
}
