package gitrepo

// Discovery by hand, the way git does it, without a `git rev-parse` process: the hook runs it on
// every tool call, and one git process is the whole baseline the hook is measured against (`git
// rev-parse HEAD`, 1.5–2.4 ms here, target ≤ 3x it; BENCHMARKS.md, "Claude Code hooks (issue 7)",
// "What the hot path does, and why"). The discovery scripts check it against git's own rules.
// Measured again for issue 31 (BENCHMARKS.md, "Issue 31: what each fast path buys"): 4.1 µs against
// 2.1–3.4 ms for `git rev-parse --git-dir --git-common-dir --show-toplevel`, once on every call.

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Location is where a repository lives, found the way git finds it.
type Location struct {
	// GitDir is the per-worktree git directory (HEAD, index); for a linked worktree it is
	// .git/worktrees/<name> of the main repository.
	GitDir string
	// CommonDir holds what all worktrees share: objects, refs, config.
	CommonDir string
	// WorkTree is the top of the working tree; empty for a bare repository.
	WorkTree string
}

// ErrNotRepository is returned when no repository encloses the starting directory.
var ErrNotRepository = errors.New("not a git repository (or any of the parent directories)")

// Discover finds the repository enclosing dir the way git does: GIT_DIR (with GIT_WORK_TREE and
// GIT_COMMON_DIR) when set, else the nearest parent with a .git directory or a .git file pointing at
// a linked worktree's git directory, else a bare repository, never looking at or above a directory
// named in GIT_CEILING_DIRECTORIES. It does not run git, because hooks call it on every tool call
// and a process spawn would dominate their cost. (`git -C <dir> exarchos` has git change to dir
// before it starts us, so dir is already the one the user named.)
func Discover(dir string) (Location, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return Location{}, fmt.Errorf("discover repository: %w", err)
	}
	if gd := os.Getenv("GIT_DIR"); gd != "" {
		if !filepath.IsAbs(gd) {
			gd = filepath.Join(dir, gd)
		}
		if !isGitDir(gd) {
			return Location{}, fmt.Errorf("GIT_DIR=%s is not a git directory: unset GIT_DIR or point it at a repository", gd)
		}
		// As in git: GIT_WORK_TREE, else core.worktree, else none for a bare repository, else the
		// current directory is the top of the working tree.
		wt := os.Getenv("GIT_WORK_TREE")
		switch core := readCore(gd); {
		case wt != "":
			if !filepath.IsAbs(wt) {
				wt = filepath.Join(dir, wt)
			}
		case core.worktree != "":
			wt = core.worktree
			if !filepath.IsAbs(wt) {
				wt = filepath.Join(gd, wt)
			}
		case core.bare:
			wt = ""
		default:
			wt = dir
		}
		return finish(gd, filepath.Clean(wt))
	}
	var ceiling string
	if os.Getenv("GIT_CEILING_DIRECTORIES") != "" {
		if r, err := filepath.EvalSymlinks(dir); err == nil {
			dir = r // git walks up from the real current directory
		}
		ceiling = ceilingOf(dir)
	}
	for d := dir; ; d = filepath.Dir(d) {
		if d != dir && ceiling != "" && len(d) <= len(ceiling) {
			return Location{}, fmt.Errorf("%w: %s (stopped at %s, named in GIT_CEILING_DIRECTORIES); run it inside a repository, or create one with `git init`", ErrNotRepository, dir, ceiling)
		}
		dotgit := filepath.Join(d, ".git")
		if fi, err := os.Stat(dotgit); err == nil {
			if fi.IsDir() && isGitDir(dotgit) {
				return finish(dotgit, d)
			}
			if !fi.IsDir() {
				gd, err := readGitFile(dotgit)
				if err != nil {
					return Location{}, err
				}
				return finish(gd, d)
			}
		}
		if isGitDir(d) && looksBare(d) {
			return finish(d, "")
		}
		if parent := filepath.Dir(d); parent == d {
			return Location{}, fmt.Errorf("%w: %s; run it inside a repository, or create one with `git init`", ErrNotRepository, dir)
		}
	}
}

// ceilingOf returns the longest directory in GIT_CEILING_DIRECTORIES that is a proper ancestor of
// dir, or "". Like git, it compares real paths: dir must have its symbolic links resolved.
func ceilingOf(dir string) string {
	env := os.Getenv("GIT_CEILING_DIRECTORIES")
	if env == "" {
		return ""
	}
	best := ""
	resolve := true
	for _, c := range filepath.SplitList(env) {
		if c == "" {
			resolve = false // git: entries after an empty one are taken literally
			continue
		}
		if !filepath.IsAbs(c) {
			continue
		}
		c = filepath.Clean(c)
		if resolve {
			if r, err := filepath.EvalSymlinks(c); err == nil {
				c = r
			}
		}
		prefix := strings.TrimSuffix(c, string(filepath.Separator)) + string(filepath.Separator)
		if strings.HasPrefix(dir, prefix) && len(dir) > len(prefix) && len(c) > len(best) {
			best = c
		}
	}
	if best == "" {
		return ""
	}
	return best
}

// coreConfig is what discovery needs from a git directory's config.
type coreConfig struct {
	bare     bool
	worktree string
}

func readCore(gitDir string) coreConfig {
	var c coreConfig
	b, err := os.ReadFile(filepath.Join(gitDir, "config"))
	if err != nil {
		return c
	}
	entries, err := parseConfigFile(b)
	if err != nil {
		return c
	}
	c.worktree = configLast(entries, "core", "worktree")
	switch strings.ToLower(configLast(entries, "core", "bare")) {
	case "true", "yes", "on", "1":
		c.bare = true
	}
	return c
}

func finish(gitDir, workTree string) (Location, error) {
	gitDir = filepath.Clean(gitDir)
	common := gitDir
	if c := os.Getenv("GIT_COMMON_DIR"); c != "" {
		common = c
	} else if b, err := os.ReadFile(filepath.Join(gitDir, "commondir")); err == nil {
		c := strings.TrimSpace(string(b))
		if !filepath.IsAbs(c) {
			c = filepath.Join(gitDir, c)
		}
		common = filepath.Clean(c)
	}
	if fi, err := os.Stat(filepath.Join(common, "objects")); err != nil || !fi.IsDir() {
		return Location{}, fmt.Errorf("repository at %s has no objects directory: is it a git repository?", common)
	}
	return Location{GitDir: gitDir, CommonDir: common, WorkTree: workTree}, nil
}

// isGitDir reports whether d has the HEAD file every git directory has.
func isGitDir(d string) bool {
	fi, err := os.Stat(filepath.Join(d, "HEAD"))
	return err == nil && !fi.IsDir()
}

func looksBare(d string) bool {
	for _, sub := range []string{"objects", "refs"} {
		if fi, err := os.Stat(filepath.Join(d, sub)); err != nil || !fi.IsDir() {
			return false
		}
	}
	return true
}

// readGitFile reads a ".git" file ("gitdir: <path>") as written for linked worktrees and submodules.
func readGitFile(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("read %s: %w", path, err)
	}
	line := string(bytes.TrimSpace(b))
	if !strings.HasPrefix(line, "gitdir:") {
		return "", fmt.Errorf("%s is not a valid .git file (expected \"gitdir: <path>\")", path)
	}
	gd := strings.TrimSpace(strings.TrimPrefix(line, "gitdir:"))
	if !filepath.IsAbs(gd) {
		gd = filepath.Join(filepath.Dir(path), gd)
	}
	if !isGitDir(gd) {
		return "", fmt.Errorf("%s points at %s, which is not a git directory: the worktree may have been removed; run `git worktree prune`", path, gd)
	}
	return gd, nil
}
