package app

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"

	"github.com/exarchos/git-exarchos/gitstore"
	"github.com/exarchos/git-exarchos/hooks"
	"github.com/exarchos/git-exarchos/workflow"
)

// ClaudeHookOptions are the streams of `git exarchos hook claude`.
type ClaudeHookOptions struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
}

// ClaudeHook answers one Claude Code hook event: the payload on stdin, the decision on stdout.
// It runs on every tool call, so the common path reads one ref listing and one snapshot blob and
// never starts a process. It always exits 0: malformed input, or input over the size limit (read
// no further than the limit), gets a message on stderr and the event's safe default. The only
// error is failing to write stdout.
func ClaudeHook(o ClaudeHookOptions) error {
	warn := func(msg string) { fmt.Fprintf(o.Stderr, "git exarchos hook claude: %s\n", msg) }
	in, err := hooks.ReadInput(o.Stdin)
	if err != nil {
		warn(err.Error() + "; answering with no opinion")
		return hooks.NoOpinion().Write(o.Stdout)
	}
	return hooks.Handle(in, &hookRepo{}, warn).Write(o.Stdout)
}

// hookRepo implements hooks.Repository. One hook process serves one event in one directory, so
// the repository opened by Bound is kept for the calls that follow.
type hookRepo struct {
	repo *Repo
}

func (h *hookRepo) open(dir string) (*Repo, error) {
	if h.repo == nil {
		r, err := openStore(dir)
		if err != nil {
			return nil, err
		}
		h.repo = r
	}
	return h.repo, nil
}

// Bound returns the active workflows bound to the branch checked out in dir's worktree: the
// workflow a session works on is the one of its working directory, never just any active one.
func (h *hookRepo) Bound(dir string) ([]hooks.Bound, error) {
	r, err := h.open(dir)
	if errors.Is(err, gitstore.ErrNotRepository) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return r.BoundWorkflows()
}

// BoundWorkflows returns the active workflows bound to the branch checked out in this worktree:
// their own branch, or one of their task worktrees' branches (binding.go). It reads the refs and the hook cache (hook_cache.go); objects are read only for workflows that
// changed since the cache last saw them. Nothing is folded.
func (r *Repo) BoundWorkflows() ([]hooks.Bound, error) {
	branch := r.Store.CurrentBranch()
	if branch == "" {
		return nil, nil
	}
	heads, err := r.Store.Heads()
	if err != nil {
		return nil, err
	}
	cache := r.hookCache()
	changed := len(cache.entries) != len(heads)
	var out []hooks.Bound
	for _, feature := range slices.Sorted(maps.Keys(heads)) {
		e, ok := cache.entries[feature]
		var st workflow.State
		fresh := false
		if !ok || e.commit != heads[feature] {
			var snap *gitstore.Snapshot
			if st, snap, err = r.State(feature); err != nil {
				return nil, err
			}
			heads[feature] = snap.Commit.String() // the ref may have moved since Heads read it
			cache.put(feature, heads[feature], st)
			e, fresh, changed = cache.entries[feature], true, true
		}
		asTask := e.branch != branch
		if (asTask && !taskBranchCandidate(branch, e.branch)) || !r.isActive(gitstore.Summary{Type: e.typ, Phase: e.phase}) {
			continue
		}
		if !fresh {
			if st, ok = cache.state(feature, e.commit); !ok {
				var snap *gitstore.Snapshot
				if st, snap, err = r.State(feature); err != nil {
					return nil, err
				}
				cache.put(feature, snap.Commit.String(), st)
			}
		}
		if asTask && !hasTaskWorktree(st, branch) {
			continue
		}
		def, _ := r.Rules().Defs.Lookup(st.Type) // nil: not defined on the base branch
		out = append(out, hooks.Bound{Feature: feature, State: st, Def: def, Root: r.Store.Loc.WorkTree})
	}
	if changed {
		cache.save(heads)
	}
	return out, nil
}

// bound reads one workflow as the hooks see it.
func (r *Repo) bound(feature string) (hooks.Bound, error) {
	st, _, err := r.State(feature)
	if err != nil {
		return hooks.Bound{}, err
	}
	def, _ := r.Rules().Defs.Lookup(st.Type)
	return hooks.Bound{Feature: feature, State: st, Def: def, Root: r.Store.Loc.WorkTree}, nil
}

func (h *hookRepo) Summary(w hooks.Bound) string { return h.repo.summary(w) }

func (h *hookRepo) Notes(hooks.Bound) []string { return h.repo.trustNotes() }

// summary is workflow.Summary with the guards checked on this repository.
func (r *Repo) summary(w hooks.Bound) string {
	env := workflow.Env{Guards: r.factEvaluator(), OptIn: r.Rules().optIn()}
	return workflow.Summary(w.Def, w.State, env)
}

// Record appends events and puts the new head in the hook cache, so the next tool call (which,
// in a phase with a turn cap, follows this append) reads the state without reading objects.
func (h *hookRepo) Record(w hooks.Bound, recheck func(workflow.State) string, evs ...workflow.NewEvent) (string, error) {
	// The journal's denials ride in the same commit.
	waiting, files, _ := h.repo.journaled(w.Feature)
	var denied string
	res, err := h.repo.Store.Update(w.Feature, h.repo.Projector(), func(cur *gitstore.Snapshot) ([]workflow.NewEvent, error) {
		denied = ""
		if recheck != nil {
			st, err := workflow.DecodeState(cur.State)
			if err != nil {
				return nil, err
			}
			if denied = recheck(st); denied != "" {
				return waiting, nil // the journal still lands; the call itself is refused
			}
		}
		return append(waiting, evs...), nil
	})
	if err != nil {
		return "", err
	}
	for _, f := range files {
		_ = os.Remove(f)
	}
	if len(res.Appended) == 0 {
		return denied, nil
	}
	if st, err := workflow.DecodeState(res.State); err == nil {
		c := h.repo.hookCache()
		c.put(w.Feature, res.Commit.String(), st)
		if heads, err := h.repo.Store.Heads(); err == nil {
			c.save(heads)
		}
	}
	return denied, nil
}

// RecordLater journals an audit-only event; the next write to the workflow appends it.
func (h *hookRepo) RecordLater(w hooks.Bound, ev workflow.NewEvent) error {
	return h.repo.journal(w.Feature, ev)
}

// Defines reports whether the worktree enclosing dir has a .exarchos/workflows directory. It
// looks at the file system only (a few stats), not at git: the definitions themselves are read
// from the commit at HEAD once the repository is open.
func (h *hookRepo) Defines(dir string) bool {
	d, err := filepath.Abs(dir)
	if err != nil {
		return false
	}
	for range 64 {
		if fi, err := os.Stat(filepath.Join(d, filepath.FromSlash(DefinitionsDir))); err == nil && fi.IsDir() {
			return true
		}
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return false
		}
		parent := filepath.Dir(d)
		if parent == d {
			return false
		}
		d = parent
	}
	return false
}

func (h *hookRepo) StopGuard(dir string) bool {
	r, err := h.open(dir)
	if err != nil {
		return false
	}
	return r.Rules().Config.StopGuard
}
