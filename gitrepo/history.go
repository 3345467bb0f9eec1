package gitrepo

import (
	"cmp"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
)

// The merge-base and the tree diff a transition's guards ask (changes.go), read in process from the
// object reader instead of `git merge-base` and `git diff --name-status`, two of the three git
// processes a transition started: measured (issue 41, interleaved A/B, clibench's repository of
// 1,000 events), a transition 16.3 → 12.2 ms wall and 15.4 → 11.7 ms CPU, `git rev-parse` 1.6 ms.
// Each answer is git's own, or none: errNotHere sends the question to git where the history is
// not the plain object graph (shallow, grafts, replace refs, refs only git reads), where several
// merge-bases tie (git picks one), the walk is long (maxWalk), a submodule changed (git's config
// decides what it shows) or an object cannot be read. Tested against git (history_test.go).

// errNotHere: the in-process reader cannot give git's answer; ask git.
var errNotHere = errors.New("not answerable in process")

// plainHistory reports whether the commit graph git walks is the one the objects hold.
func (s *Repo) plainHistory() bool {
	common := s.Loc.CommonDir
	for _, p := range []string{"shallow", filepath.Join("info", "grafts")} {
		if _, err := os.Stat(filepath.Join(common, p)); err == nil {
			return false
		}
	}
	if os.Getenv("GIT_REPLACE_REF_BASE") != "" || os.Getenv("GIT_GRAFT_FILE") != "" || refsViaGit(common) {
		return false
	}
	replace, _, bad, err := ScanRefs(common, "refs/replace/", nil)
	return err == nil && len(replace) == 0 && len(bad) == 0
}

// Flags of the merge-base walk, as git's paint_down_to_common (commit-reach.c) keeps them.
const (
	fromA = 1 << iota
	fromB
	stale
	// maxWalk bounds the commits one walk reads: ≈6 µs each here (the 851 commits of this
	// project's history in 5 ms), so past 512 git's own walk, process start included, is as cheap.
	maxWalk = 512
)

// mergeBase finds the one best common ancestor of a and b by git's walk: commits in committer
// date order, each painted with the sides it is reached from; a commit reached from both is a
// candidate and makes its ancestors stale; the walk ends when only stale commits are queued.
// Every best common ancestor is a candidate, so one candidate is the only best one; several
// (criss-cross, or skewed clocks) go to git, which chooses among them.
func (s *Repo) mergeBase(a, b Hash) (Hash, bool, error) {
	if a == b {
		return a, true, nil
	}
	w := &walk{s: s, flags: map[Hash]int{}, queued: map[Hash]int{}}
	if err := cmp.Or(w.push(a, fromA), w.push(b, fromB)); err != nil {
		return ZeroHash, false, err
	}
	var found []Hash
	for n := 0; w.nonStale > 0; n++ {
		if n == maxWalk {
			return ZeroHash, false, errNotHere // a long walk: git's, on a commit-graph, costs less
		}
		c := w.q[len(w.q)-1]
		w.q = w.q[:len(w.q)-1]
		w.queued[c.h]--
		f := w.flags[c.h]
		if f&stale == 0 {
			w.nonStale--
		}
		paint := f & (fromA | fromB | stale)
		if f&(fromA|fromB) == fromA|fromB && f&stale == 0 {
			found = append(found, c.h)
			paint |= stale
			w.flags[c.h] |= stale // once a candidate, though queued again
			w.nonStale -= w.queued[c.h]
		}
		for _, p := range c.parents {
			if w.flags[p]&paint == paint {
				continue
			}
			if err := w.push(p, paint); err != nil {
				return ZeroHash, false, err
			}
		}
	}
	switch len(found) {
	case 0:
		return ZeroHash, false, nil
	case 1:
		return found[0], true, nil
	}
	return ZeroHash, false, errNotHere
}

type walkItem struct {
	h       Hash
	when    int64
	parents []Hash
}

// walk is one merge-base walk: each commit's flags, how often it is queued, and how many queued
// entries are of commits not yet stale (the walk's end).
type walk struct {
	s        *Repo
	q        []walkItem // by committer date, the latest last
	flags    map[Hash]int
	queued   map[Hash]int
	nonStale int
}

func (w *walk) push(h Hash, paint int) error {
	old := w.flags[h]
	w.flags[h] = old | paint
	if old&stale == 0 && paint&stale != 0 {
		w.nonStale -= w.queued[h] // its queued entries are stale now
	}
	c, err := w.s.GetCommit(h)
	if err != nil {
		return errNotHere // a missing or unreadable commit: git may still reach it
	}
	it := walkItem{h: h, when: c.Committer.When.Unix(), parents: c.Parents}
	i, _ := slices.BinarySearchFunc(w.q, it.when, func(q walkItem, t int64) int { return cmp.Compare(q.when, t) })
	w.q = slices.Insert(w.q, i, it)
	w.queued[h]++
	if w.flags[h]&stale == 0 {
		w.nonStale++
	}
	return nil
}

// treeOf is the entries of the tree a commit or tree id names; git's empty tree needs no object.
func (s *Repo) treeOf(id string) ([]TreeEntry, error) {
	h, ok := s.st.format.parseID(id)
	if !ok {
		return nil, errNotHere
	}
	if h == s.st.format.Sum(plumbing.TreeObject, nil) {
		return nil, nil
	}
	typ, content, err := s.st.Raw(h)
	if err != nil {
		return nil, errNotHere
	}
	if typ == plumbing.CommitObject {
		c, err := DecodeCommit(content, s.st.format)
		if err != nil {
			return nil, errNotHere
		}
		h = c.Tree
	}
	return s.entries(&TreeEntry{Hash: h})
}

// diffTrees is `git diff --name-status --no-renames` of two trees' entries: each path added (A),
// deleted (D), modified (M) or changed in type (T), in git's order.
func (s *Repo) diffTrees(prefix string, a, b []TreeEntry, out *diff) error {
	for len(a) > 0 || len(b) > 0 {
		c := 1 // b's entry comes first (or only b has entries left)
		if len(b) == 0 {
			c = -1
		} else if len(a) > 0 {
			c = strings.Compare(gitName(a[0]), gitName(b[0]))
		}
		var ea, eb *TreeEntry
		if c <= 0 {
			ea, a = &a[0], a[1:]
		}
		if c >= 0 {
			eb, b = &b[0], b[1:]
		}
		switch {
		case ea != nil && eb != nil && *ea == *eb:
		case ea != nil && ea.Mode == filemode.Submodule || eb != nil && eb.Mode == filemode.Submodule:
			return errNotHere
		case ea != nil && ea.Mode == filemode.Dir || eb != nil && eb.Mode == filemode.Dir:
			ta, err := s.entries(ea)
			if err != nil {
				return err
			}
			tb, err := s.entries(eb)
			if err != nil {
				return err
			}
			if err := s.diffTrees(prefix+gitName(*cmp.Or(ea, eb)), ta, tb, out); err != nil {
				return err
			}
		case ea != nil && eb != nil:
			st := byte('M')
			if (ea.Mode == filemode.Symlink) != (eb.Mode == filemode.Symlink) {
				st = 'T'
			}
			out.paths, out.status = append(out.paths, prefix+ea.Name), append(out.status, st)
		case ea != nil:
			out.paths, out.status = append(out.paths, prefix+ea.Name), append(out.status, 'D')
		default:
			out.paths, out.status = append(out.paths, prefix+eb.Name), append(out.status, 'A')
		}
	}
	return nil
}

// entries are the entries of the tree e names (none for no entry).
func (s *Repo) entries(e *TreeEntry) ([]TreeEntry, error) {
	if e == nil {
		return nil, nil
	}
	t, err := s.GetTree(e.Hash)
	if err != nil {
		return nil, errNotHere
	}
	return t.Entries, nil
}

// gitName is an entry's name as git orders tree entries: a tree's ends in '/', so an entry that is
// a file on one side and a directory on the other is two entries (deleted, then added).
func gitName(e TreeEntry) string {
	if e.Mode == filemode.Dir {
		return e.Name + "/"
	}
	return e.Name
}
