package app

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// The quality gates' fixed environment (issue 38 item 9): a gate passed when the agent put a shim
// for the gate's program first on PATH (`go` that exits 0) or edited the script the gate runs on
// its branch. So a gate runs with
//   - the files its command names (a script by its path, make's Makefile, npm's package.json) as
//     the base branch holds them, put into the clean checkout over the branch's; the rest of the
//     checkout is the commit under test, as it must be;
//   - PATH without the entries a session can plant a program in unseen: relative ones, the
//     repository's worktrees and git directory, the checkout, the temporary directory;
//   - none of the variables that make a shell, git or an interpreter run something else first
//     (gateDropped).
// What it does not cover: a script the named one calls in turn, and a shim in a directory outside
// those (the hook refuses a command that puts one holding git first on PATH, not every program).

// gateDropped are the variables a gate does not inherit: each makes the program it starts run
// code of the session's first or in place of its own.
var gateDropped = []string{"BASH_ENV", "ENV", "GIT_EXEC_PATH", "LD_PRELOAD", "LD_LIBRARY_PATH", "LD_AUDIT", "GOFLAGS",
	"NODE_OPTIONS", "PYTHONPATH", "PYTHONSTARTUP", "PYTHONHOME", "PERL5OPT", "PERL5LIB", "RUBYOPT", "RUBYLIB",
	"GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT", "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE"}

// gateEnviron is the environment a gate runs in, in the clean checkout dir, env added.
func (r *Repo) gateEnviron(dir string, env []string) []string {
	drop := []string{dir, r.CommonDir(), os.TempDir()}
	if r.WorkTree() != "" {
		drop = append(drop, r.WorkTree())
	}
	if wts, err := r.WorktreePaths(); err == nil {
		drop = append(drop, wts...)
	}
	var out []string
	for _, kv := range os.Environ() {
		name, value, _ := strings.Cut(kv, "=")
		switch {
		case name == "PATH":
			out = append(out, "PATH="+gatePath(value, drop))
		case strings.HasPrefix(name, "GIT_CONFIG_KEY_") || strings.HasPrefix(name, "GIT_CONFIG_VALUE_"):
		case !slices.Contains(gateDropped, name):
			out = append(out, kv)
		}
	}
	return append(out, env...)
}

// gatePath is path without its relative entries and those under any of drop.
func gatePath(path string, drop []string) string {
	var keep []string
	for _, p := range filepath.SplitList(path) {
		if p == "" || !filepath.IsAbs(p) || under(p, drop) {
			continue
		}
		keep = append(keep, p)
	}
	return strings.Join(keep, string(filepath.ListSeparator))
}

func under(p string, dirs []string) bool {
	for _, d := range dirs {
		if d == "" {
			continue
		}
		if a, err := os.Stat(p); err == nil {
			if b, err := os.Stat(d); err == nil && os.SameFile(a, b) {
				return true
			}
		}
		if rel, err := filepath.Rel(d, p); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return true
		}
		if real, err := filepath.EvalSymlinks(p); err == nil && real != p && under(real, []string{d}) {
			return true
		}
	}
	return false
}

// gateFilesFromBase puts into the checkout dir, over the branch's, the base branch's version of
// each file the gate's command names, and returns those it replaced. A file the base does not
// have is left as the commit holds it.
func (r *Repo) gateFilesFromBase(dir, gate string) ([]string, error) {
	var names []string
	words := strings.FieldsFunc(gate, func(c rune) bool { return strings.ContainsRune(" \t\n;|&()<>`", c) })
	for _, w := range words {
		w = strings.Trim(w, `"'`)
		switch {
		case w == "make" || w == "gmake":
			names = append(names, "Makefile", "makefile", "GNUmakefile")
		case w == "npm" || w == "yarn" || w == "pnpm":
			names = append(names, "package.json")
		case w != "" && !strings.HasPrefix(w, "-") && !filepath.IsAbs(w) && !strings.Contains(w, "$"):
			names = append(names, strings.TrimPrefix(filepath.ToSlash(filepath.Clean(w)), "./"))
		}
	}
	var replaced []string
	seen := map[string]bool{}
	baseCommit := r.Base().Commit
	for _, n := range names {
		if seen[n] || n == "." || strings.HasPrefix(n, "../") || n == ".." {
			continue
		}
		seen[n] = true
		p := filepath.Join(dir, filepath.FromSlash(n))
		fi, err := os.Lstat(p)
		if err != nil || !fi.Mode().IsRegular() {
			continue // not a file of the checkout: a program on PATH, an argument
		}
		if baseCommit == "" {
			continue // no base to take it from
		}
		base, ok, err := r.Facts().FileAt(baseCommit, n)
		if err != nil || !ok {
			continue
		}
		if cur, err := os.ReadFile(p); err == nil && bytes.Equal(cur, base) {
			continue
		}
		if err := os.WriteFile(p, base, fi.Mode().Perm()); err != nil {
			return nil, err
		}
		replaced = append(replaced, n)
	}
	return replaced, nil
}
