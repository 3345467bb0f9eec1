package hookrun

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"

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
//	index             the branch → workflow index (hook_index.go): every workflow's commit and
//	                  branch, under the stamps of the refs it was read from and a sha256 of itself
//
// A state entry is used only when the workflow's ref still points at its commit and its content
// still hashes to what was written, so an edited or stale entry is dropped, never believed. The
// index is taken only while the refs it summarises are unchanged (hook_index.go); a ref that
// arrives by plain git, a restore or a lost line makes the next hook read the refs again.
// Everything here may be deleted at any time.
//
// It exists because of packs: after `git gc` the workflow objects sit in the repository's main
// pack, and go-git loads a pack's whole index before reading one object from it, which on a large
// repository costs tens of milliseconds; objects are read only after a workflow changed. Measured
// then: 2.5–6.5 ms for the commits of 21 workflows after gc, growing with the repository
// (BENCHMARKS.md, "Claude Code hooks (issue 7)"). gitrepo's own pack reader (packs.go) has since
// removed that cost; what the cache saves now has not been measured again (issue 31 item 2).
const (
	hookCacheDir = "exarchos-cache/hooks"
)

type hookCache struct{ dir string }

func (r *Repo) hookCache() *hookCache {
	return &hookCache{dir: filepath.Join(r.CommonDir(), filepath.FromSlash(hookCacheDir))}
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

// hookStateVersion is what a cached state was folded under: the projector and the base branch's
// tip, which the allowed signers and roles (so the verdicts) are read from.
func (r *Repo) hookStateVersion() string {
	return workflow.ProjectorVersion + "@" + r.Base().Commit
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
