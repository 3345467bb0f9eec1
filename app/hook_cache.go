package app

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/exarchos/git-exarchos/gitstore"
	"github.com/exarchos/git-exarchos/internal/atomicfile"
	"github.com/exarchos/git-exarchos/workflow"
)

// The hook cache keeps what the hooks read on every tool call, so that a call reads one ref and
// one small file whatever the repository's size, and never lists every workflow:
//
//	state/<feature>   "<commit> <projector> <sha256 of the rest>" then the state JSON at that commit
//	                  (the projector version with the base branch's commit: a state's verdicts
//	                  depend on the allowed signers and roles there, so when the base moves the
//	                  state is read again, once; reading the signers themselves costs a tree read)
//	branch/<hex name> the features bound to a branch, one a line (the branch → workflow index)
//	branch/.built     the index format; without it the index is rebuilt once from the refs
//
// A state entry is used only when the workflow's ref still points at its commit and its content
// still hashes to what was written, so an edited or stale entry is dropped, never believed. The
// index is written by the commands that create and move workflows (Execute, Init, pull) and is
// verified on every read against the state of the ref it names: an entry whose workflow moved to
// another branch or was deleted is dropped. Everything here may be deleted at any time.
//
// It exists because of packs: after `git gc` the workflow objects sit in the repository's main
// pack, and go-git loads a pack's whole index before reading one object from it, which on a large
// repository costs tens of milliseconds; objects are read only after a workflow changed. Measured
// then: 2.5–6.5 ms for the commits of 21 workflows after gc, growing with the repository
// (BENCHMARKS.md, "Claude Code hooks (issue 7)"). gitrepo's own pack reader (packs.go) has since
// removed that cost; what the cache saves now has not been measured again (issue 31 item 2).
const (
	hookCacheDir     = "exarchos-cache/hooks"
	hookIndexVersion = "exarchos-hook-index 2"
)

type hookCache struct{ dir string }

func (r *Repo) hookCache() *hookCache {
	return &hookCache{dir: filepath.Join(r.Store.Loc.CommonDir, filepath.FromSlash(hookCacheDir))}
}

// state returns the cached state of feature at commit, folded by the projector version (which in
// signed mode names the allowed signers and roles: verdicts depend on them), if there is one and
// it is intact.
func (c *hookCache) state(feature, commit, version string) (workflow.State, bool) {
	b, err := os.ReadFile(filepath.Join(c.dir, "state", feature))
	if err != nil {
		return workflow.State{}, false
	}
	first, rest, ok := bytes.Cut(b, []byte{'\n'})
	if !ok || string(first) != stateHeader(commit, version, rest) {
		return workflow.State{}, false
	}
	st, err := workflow.DecodeState(rest)
	if err != nil {
		return workflow.State{}, false
	}
	return st, true
}

func stateHeader(commit, version string, body []byte) string {
	sum := sha256.Sum256(body)
	return commit + " " + version + " " + hex.EncodeToString(sum[:])
}

// put records a workflow's state at a commit. Errors are ignored: the cache is an optimisation, and
// a repository the user cannot write to still gets correct answers, only slower.
func (c *hookCache) put(feature, commit, version string, st workflow.State) {
	b, err := json.Marshal(st)
	if err != nil {
		return
	}
	_ = atomicfile.Write(filepath.Join(c.dir, "state", feature), append([]byte(stateHeader(commit, version, b)+"\n"), b...), 0o644)
}

func (c *hookCache) branchFile(branch string) string {
	return filepath.Join(c.dir, "branch", hex.EncodeToString([]byte(branch)))
}

func (c *hookCache) built() bool {
	b, err := os.ReadFile(filepath.Join(c.dir, "branch", ".built"))
	return err == nil && strings.TrimSpace(string(b)) == hookIndexVersion
}

// features are the workflows the index binds to branch.
func (c *hookCache) features(branch string) []string {
	b, err := os.ReadFile(c.branchFile(branch))
	if err != nil {
		return nil
	}
	var out []string
	for _, f := range strings.Split(string(b), "\n") {
		if f = strings.TrimSpace(f); f != "" && !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	return out
}

func (c *hookCache) setFeatures(branch string, features []string) {
	if len(features) == 0 {
		_ = os.Remove(c.branchFile(branch))
		return
	}
	_ = atomicfile.Write(c.branchFile(branch), []byte(strings.Join(features, "\n")+"\n"), 0o644)
}

// hookStateVersion is what a cached state was folded under: the projector and the base branch's
// tip, which the allowed signers and roles (so the verdicts) are read from.
func (r *Repo) hookStateVersion() string {
	return workflow.ProjectorVersion + "@" + r.Base().Commit
}

// indexBranch binds feature to branch in the hook index. Every command that creates or moves a
// workflow calls it with the state it wrote.
func (r *Repo) indexBranch(feature string, st workflow.State) {
	if st.Branch == "" {
		return
	}
	c := r.hookCache()
	if !c.built() {
		_ = r.rebuildHookIndex() // the first write since the index was lost: it includes this workflow
		return
	}
	if fs := c.features(st.Branch); !slices.Contains(fs, feature) {
		c.setFeatures(st.Branch, append(fs, feature))
	}
}

// hookState reads one workflow as the hooks do: its ref, then the cached state at that commit, or
// the objects (and the cache is refreshed). ok is false when the workflow does not exist; an error
// means its ref or its objects cannot be read.
func (r *Repo) hookState(feature string) (workflow.State, bool, error) {
	commit, ok, err := r.Store.Head(feature)
	if err != nil || !ok {
		return workflow.State{}, false, err
	}
	c := r.hookCache()
	version := r.hookStateVersion()
	if st, ok := c.state(feature, commit, version); ok {
		return st, true, nil
	}
	st, snap, err := r.State(feature)
	if err != nil {
		return workflow.State{}, false, err
	}
	c.put(feature, snap.Commit.String(), version, st)
	return st, true, nil
}

// rebuildHookIndex writes the branch index from the refs: once, when it is missing (a repository
// used by an older version, or a deleted cache). One `git for-each-ref` reads every workflow's
// branch from its head commit's Exarchos-Branch trailer; git skips, as it always does, what it
// would not read as a ref (a .DS_Store, an empty file, a name exarchos never writes), so a
// malformed entry affects only itself (fsck reports it). A head without the trailer is read.
// Entries are verified when they are used, so a trailer that lies costs a read, never an answer.
func (r *Repo) rebuildHookIndex() error {
	out, err := r.Store.Loc.Git(nil, "for-each-ref", "--format=%(refname) %(trailers:key=Exarchos-Branch,valueonly,separator=%x2C)", gitstore.RefPrefix)
	if err != nil {
		return fmt.Errorf("rebuild the hooks' branch index: %w", err)
	}
	c := r.hookCache()
	byBranch := map[string][]string{}
	for _, line := range strings.Split(out, "\n") {
		name, branch, _ := strings.Cut(strings.TrimSpace(line), " ")
		f := strings.TrimPrefix(name, gitstore.RefPrefix)
		if f == name || gitstore.ValidateFeature(f) != nil {
			continue
		}
		if branch == "" {
			st, ok, err := r.hookState(f)
			if err != nil || !ok {
				continue
			}
			branch = st.Branch
		}
		if branch != "" {
			byBranch[branch] = append(byBranch[branch], f)
		}
	}
	_ = os.RemoveAll(filepath.Join(c.dir, "branch"))
	for b, fs := range byBranch {
		c.setFeatures(b, fs)
	}
	return atomicfile.Write(filepath.Join(c.dir, "branch", ".built"), []byte(hookIndexVersion+"\n"), 0o644)
}
