package app

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/exarchos/git-exarchos/hooks"
	"github.com/exarchos/git-exarchos/workflow"
)

// The hook cache keeps, per workflow, what the hooks read on every tool call — type, phase, branch
// and the state snapshot — keyed by the commit the workflow's ref points at. A commit never changes,
// so an entry is either for the current head (and exact) or ignored; the cache needs no
// invalidation and may be deleted at any time.
//
// It exists because of packs: after `git gc` the workflow objects sit in the repository's main
// pack, and go-git loads a pack's whole index (with a checksum over it) before reading one object
// from it, which on a large repository costs tens of milliseconds on every tool call. With the
// cache, a tool call reads the refs, this index and one state file; objects are read only after a
// workflow changed.
//
// Layout, under <git common dir>/exarchos-cache/hooks/:
//
//	index           "exarchos-hook-cache 1 <projector>" then "<feature> <commit> <type> <phase> <branch>" lines
//	state/<feature> "<commit> <projector>" then the state JSON
const (
	hookCacheDir     = "exarchos-cache/hooks"
	hookCacheVersion = "exarchos-hook-cache 1"
)

type cacheEntry struct {
	commit, typ, phase, branch string
}

type hookCache struct {
	dir     string
	entries map[string]cacheEntry
	header  string
}

func (r *Repo) hookCache() *hookCache {
	c := &hookCache{
		dir:     filepath.Join(r.Store.Loc.CommonDir, filepath.FromSlash(hookCacheDir)),
		entries: map[string]cacheEntry{},
		header:  hookCacheVersion + " " + workflow.ProjectorVersion,
	}
	b, err := os.ReadFile(filepath.Join(c.dir, "index"))
	if err != nil {
		return c
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	if !sc.Scan() || sc.Text() != c.header {
		return c // another version's cache: rebuilt as it is used
	}
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 4 {
			return &hookCache{dir: c.dir, entries: map[string]cacheEntry{}, header: c.header}
		}
		e := cacheEntry{commit: f[1], typ: f[2], phase: f[3]}
		if len(f) > 4 {
			e.branch = f[4]
		}
		c.entries[f[0]] = e
	}
	return c
}

// state returns the cached state of feature at commit, if there is one.
func (c *hookCache) state(feature, commit string) (workflow.State, bool) {
	b, err := os.ReadFile(filepath.Join(c.dir, "state", feature))
	if err != nil {
		return workflow.State{}, false
	}
	first, rest, ok := bytes.Cut(b, []byte{'\n'})
	if !ok || string(first) != commit+" "+workflow.ProjectorVersion {
		return workflow.State{}, false
	}
	st, err := workflow.DecodeState(rest)
	if err != nil {
		return workflow.State{}, false
	}
	return st, true
}

// put records a workflow's head and state. Errors are ignored: the cache is an optimisation, and a
// repository the user cannot write to still gets correct answers, only slower.
func (c *hookCache) put(feature, commit string, st workflow.State) {
	c.entries[feature] = cacheEntry{commit: commit, typ: st.Type, phase: st.Phase, branch: st.Branch}
	b, err := json.Marshal(st)
	if err != nil {
		return
	}
	_ = hooks.WriteFileAtomic(filepath.Join(c.dir, "state", feature), append([]byte(commit+" "+workflow.ProjectorVersion+"\n"), b...), 0o644)
}

// save writes the index for the workflows that exist (heads), dropping the others' state files.
func (c *hookCache) save(heads map[string]string) {
	var b bytes.Buffer
	b.WriteString(c.header + "\n")
	names := make([]string, 0, len(heads))
	for f := range heads {
		names = append(names, f)
	}
	sort.Strings(names)
	for _, f := range names {
		if e, ok := c.entries[f]; ok && e.commit == heads[f] {
			fmt.Fprintf(&b, "%s %s %s %s %s\n", f, e.commit, e.typ, e.phase, e.branch)
		}
	}
	for f := range c.entries {
		if _, ok := heads[f]; !ok {
			_ = os.Remove(filepath.Join(c.dir, "state", f))
		}
	}
	_ = hooks.WriteFileAtomic(filepath.Join(c.dir, "index"), b.Bytes(), 0o644)
}
