package project

import (
	"fmt"
	"strings"

	"github.com/exarchos/git-exarchos/gitrepo"
)

// The rules a workflow is held to (repository-defined workflows, limits, validation commands, who
// may sign decisions) are read from the protected base branch, never from the checked-out HEAD, the
// working tree or local git config: an agent can commit on its own branch and set config, but it
// cannot quietly change what the base branch holds.

// Base names the protected base branch the rules are read from.
type Base struct {
	// Ref is the full ref name read, e.g. refs/remotes/origin/main.
	Ref string `json:"ref"`
	// Commit is the ref's tip; "" when there is no such commit (see Problem).
	Commit string `json:"commit,omitempty"`
	// Source says how the ref was chosen: "exarchos.definitionsRef", "remote HEAD", "remote branch",
	// or "local default branch".
	Source string `json:"source"`
	// Problem says why no commit was found and how to fix it.
	Problem string `json:"problem,omitempty"`
	// Moved says the remote-tracking ref was moved by something other than a fetch: Commit is
	// then the value the last fetch gave it (trust_inputs.go).
	Moved string `json:"moved,omitempty"`
}

// Base resolves the protected base branch once per Repo:
//  1. the ref named by exarchos.definitionsRef in the user's own (global or system) git config;
//  2. the remote's default branch as last fetched (refs/remotes/<remote>/HEAD), else its main or master;
//  3. with no remote, the local default branch (init.defaultBranch, else main, else master).
func (r *Repo) Base() *Base {
	if r.base == nil {
		r.base = r.resolveBase()
	}
	return r.base
}

// SetBase makes b the base branch rules and signers are read from, in place of the one Base
// resolves (verify's --base: CI names the base it is given).
func (r *Repo) SetBase(b *Base) { r.base = b }

func (r *Repo) resolveBase() *Base {
	facts := r.Facts()
	resolve := func(b *Base) *Base {
		sha, ok, err := facts.ResolveRef(b.Ref)
		switch {
		case err != nil:
			b.Problem = fmt.Sprintf("cannot read the base branch %s: %v", b.Ref, err)
		case !ok:
			b.Problem = fmt.Sprintf("the base branch %s does not exist", b.Ref)
		default:
			b.Commit = sha
			if strings.HasPrefix(b.Ref, "refs/remotes/") {
				b.Commit, b.Moved, b.Problem = FetchedValue(r.CommonDir(), b.Ref, sha)
			}
		}
		return b
	}
	// Only the user's own configuration names another base: the repository's config, `git -c`
	// and GIT_CONFIG_* can be set by any process working in the repository.
	if name, ok := gitrepo.UserConfig("exarchos.definitionsRef"); ok && strings.TrimSpace(name) != "" {
		name = strings.TrimSpace(name)
		if !strings.HasPrefix(name, "refs/") {
			name = "refs/heads/" + name
		}
		b := resolve(&Base{Ref: name, Source: "exarchos.definitionsRef"})
		if b.Commit != "" { // an annotated tag names its commit through the tag object
			if c, err := facts.PeelToCommit(b.Commit); err != nil {
				b.Commit, b.Problem = "", fmt.Sprintf("cannot read the base %s: %v", b.Ref, err)
			} else {
				b.Commit = c
			}
		}
		if b.Problem != "" {
			b.Problem += ": fix exarchos.definitionsRef (`git config --global exarchos.definitionsRef refs/remotes/origin/main`) or unset it"
		}
		return b
	}
	remote := "origin"
	if _, ok := r.Config("remote.origin.url"); !ok {
		remote = ""
		if rs := r.ConfigRemotes(); len(rs) > 0 {
			remote = rs[0]
		}
	}
	if remote != "" {
		if target, ok, err := facts.SymbolicTarget("refs/remotes/" + remote + "/HEAD"); err == nil && ok {
			return resolve(&Base{Ref: target, Source: "remote HEAD"})
		}
		for _, b := range []string{"main", "master"} {
			if bb := resolve(&Base{Ref: "refs/remotes/" + remote + "/" + b, Source: "remote branch"}); bb.Problem == "" {
				return bb
			}
		}
		return &Base{Ref: "refs/remotes/" + remote + "/HEAD", Source: "remote HEAD",
			Problem: fmt.Sprintf("remote %s has no default branch fetched: run `git fetch %s && git remote set-head %s --auto`", remote, remote, remote)}
	}
	names := []string{"main", "master"}
	if d, ok := r.Config("init.defaultBranch"); ok && strings.TrimSpace(d) != "" {
		names = append([]string{strings.TrimSpace(d)}, names...)
	}
	for _, n := range names {
		if b := resolve(&Base{Ref: "refs/heads/" + n, Source: "local default branch"}); b.Problem == "" {
			return b
		}
	}
	return &Base{Ref: "refs/heads/" + names[0], Source: "local default branch",
		Problem: fmt.Sprintf("there is no remote and no local %s branch to read the rules from: commit to %s, or name a ref with `git config --global exarchos.definitionsRef <ref>`", names[0], names[0])}
}

// BaseDir reads the files directly in dir at the base branch's tip (name → content); nil when the
// base has no commit or no such directory.
func (r *Repo) BaseDir(dir string) (map[string][]byte, error) {
	b := r.Base()
	if b.Commit == "" {
		return nil, nil
	}
	files, err := r.Facts().DirFiles(b.Commit, dir)
	if err != nil {
		return nil, fmt.Errorf("read %s at %s (%s): %w", dir, b.Ref, b.Commit, err)
	}
	return files, nil
}

// BaseFile reads one file at the base branch's tip; ok=false when the base has no commit or no
// such file.
func (r *Repo) BaseFile(p string) (content []byte, ok bool, err error) {
	i := strings.LastIndex(p, "/")
	dir, name := "", p
	if i >= 0 {
		dir, name = p[:i], p[i+1:]
	}
	files, err := r.BaseDir(dir)
	if err != nil {
		return nil, false, err
	}
	content, ok = files[name]
	return content, ok, nil
}
