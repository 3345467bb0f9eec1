package gitrepo

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// The facts of what a branch changed (guards.ChangeFacts): its merge-base with the base branch,
// the paths its commits changed since, and what its worktree holds uncommitted. The merge-base and
// the diff are read in process (history.go), falling back to git for what that reader cannot
// answer as git would; the status is git's.
//
// Each git question is one process (13 ms where a process start costs that), and the guards of one
// transition ask the same ones (artifact-design and paths-allowed both want the merge-base and
// the diff since it), so every answer is kept: merge-base once, one diff (--name-status answers
// both ChangedPaths and AddedOrModified), one status per worktree. Answers about commit ids never
// change, so the Repo keeps them for all its decisions (a view of 200 workflows on one branch asks
// once), as it keeps which worktree has a branch, under the stamps of the files git reads for it;
// a worktree's status is kept by the Facts value of one decision, under the branch's tip, so a
// call that gathers again because the branch moved asks again.

// asked is what a Facts value has asked git, shared by its copies.
type asked struct {
	mu         sync.Mutex
	mergeBases map[[2]string]mergeBase
	diffs      map[[2]string]diff
	worktrees  map[string]worktreeList
	dirty      map[string]dirtyAnswer
}

type mergeBase struct {
	sha string
	ok  bool
	err error
}

// diff is one `git diff --name-status`: each changed path with git's status letter.
type diff struct {
	paths  []string
	status []byte
	err    error
}

// worktreeList is one `git worktree list`.
type worktreeList struct {
	wts []Worktree
	err error
}

type dirtyAnswer struct {
	paths []string
	err   error
}

// answer is what once keeps: one git question's answer, which may be a failure.
type answer interface{ failed() bool }

func (a mergeBase) failed() bool    { return a.err != nil }
func (a diff) failed() bool         { return a.err != nil }
func (a worktreeList) failed() bool { return a.err != nil }
func (a dirtyAnswer) failed() bool  { return a.err != nil }

// once answers from m under key, or calls ask and keeps its answer, unless it failed (a failure
// may be passing: a gc moving objects, a lock). The lock is not held while git runs: two guards
// asking the same at once may both ask, never get different answers kept.
func once[K comparable, V answer](a *asked, m *map[K]V, key K, ask func() V) V {
	a.mu.Lock()
	if v, ok := (*m)[key]; ok {
		a.mu.Unlock()
		return v
	}
	a.mu.Unlock()
	v := ask()
	if v.failed() {
		return v
	}
	a.mu.Lock()
	if *m == nil {
		*m = map[K]V{}
	}
	(*m)[key] = v
	a.mu.Unlock()
	return v
}

// byIDs is where the answer to a question about a and b is kept: the Repo's, when both are
// object ids (the answer never changes), else this decision's.
func (f Facts) byIDs(a, b string) *asked {
	if IsLowerHex(a) && IsLowerHex(b) && len(a) == 2*f.s.st.format.Size() && len(b) == len(a) {
		return &f.s.known
	}
	return f.asked
}

// MergeBase returns the best common ancestor of a and b; ok=false when they share none.
func (f Facts) MergeBase(a, b string) (string, bool, error) {
	m := f.byIDs(a, b)
	mb := once(m, &m.mergeBases, [2]string{a, b}, func() mergeBase {
		if ha, ok := f.s.st.format.parseID(a); ok && f.s.plainHistory() {
			if hb, ok := f.s.st.format.parseID(b); ok {
				if mb, ok, err := f.s.mergeBase(ha, hb); err == nil {
					return mergeBase{sha: mb.String(), ok: ok}
				}
			}
		}
		out, err := f.s.Loc.CommonGit(nil, "merge-base", a, b)
		if err != nil {
			if ExitCode(err) == 1 && strings.TrimSpace(out) == "" {
				return mergeBase{}
			}
			return mergeBase{err: err}
		}
		return mergeBase{sha: strings.TrimSpace(out), ok: true}
	})
	return mb.sha, mb.ok, mb.err
}

// ChangedPaths lists the paths added, modified, deleted or renamed (both names) between two commits.
func (f Facts) ChangedPaths(from, to string) ([]string, error) {
	d := f.diff(from, to)
	return d.paths, d.err
}

// AddedOrModified lists the paths that exist at to and differ from (or are absent at) from: git's
// --diff-filter=AM, read from the same diff as ChangedPaths.
func (f Facts) AddedOrModified(from, to string) ([]string, error) {
	d := f.diff(from, to)
	if d.err != nil {
		return nil, d.err
	}
	var out []string
	for i, p := range d.paths {
		if d.status[i] == 'A' || d.status[i] == 'M' {
			out = append(out, p)
		}
	}
	return out, nil
}

// diff is `git diff --name-status -z --no-renames from to`, asked once.
func (f Facts) diff(from, to string) diff {
	m := f.byIDs(from, to)
	return once(m, &m.diffs, [2]string{from, to}, func() diff {
		if ta, err := f.s.treeOf(from); err == nil {
			if tb, err := f.s.treeOf(to); err == nil {
				var d diff
				if f.s.diffTrees("", ta, tb, &d) == nil {
					return d
				}
			}
		}
		out, err := f.s.Loc.CommonGit(nil, "diff", "--name-status", "-z", "--no-renames", from, to, "--")
		if err != nil {
			return diff{err: err}
		}
		paths, status, err := parseNameStatus(out)
		return diff{paths: paths, status: status, err: err}
	})
}

// parseNameStatus reads `git diff --name-status -z --no-renames`: a status letter, then the
// path, each NUL-terminated.
func parseNameStatus(out string) (paths []string, status []byte, err error) {
	recs := strings.Split(out, "\x00")
	for i := 0; i+1 < len(recs); i += 2 {
		st, path := recs[i], recs[i+1]
		if st == "" || path == "" || strings.IndexByte("ADMTUX", st[0]) < 0 {
			return nil, nil, fmt.Errorf("git diff --name-status: unreadable record %q %q", st, path)
		}
		paths, status = append(paths, path), append(status, st[0])
	}
	if len(recs)%2 == 0 || recs[len(recs)-1] != "" {
		return nil, nil, errors.New("git diff --name-status: output cut short")
	}
	return paths, status, nil
}

// WorktreeChanges lists the paths the worktree that has branch checked out holds uncommitted
// (staged, unstaged and untracked files that are not ignored); none when no worktree has it. Asked
// once per tip of the branch.
func (f Facts) WorktreeChanges(branch string) ([]string, error) {
	tip, _, _ := f.s.Loc.BranchTip(branch)
	d := once(f.asked, &f.asked.dirty, branch+"\x00"+tip, func() dirtyAnswer {
		dir, _, err := f.WorktreeOf(branch)
		if err != nil || dir == "" {
			return dirtyAnswer{err: err}
		}
		if f.status != nil {
			paths, err := f.status(dir)
			return dirtyAnswer{paths: paths, err: err}
		}
		rep, err := StatusIn(dir)
		return dirtyAnswer{paths: rep.Paths(), err: err}
	})
	return d.paths, d.err
}

// WorktreeOf is the directory of the worktree that has branch checked out and its HEAD commit,
// or "" when none has. The worktree this process runs in is looked at first, in its HEAD file:
// it is the one that has the branch nearly always, and then no `git worktree list` runs.
func (f Facts) WorktreeOf(branch string) (dir, head string, err error) {
	l := f.s.Loc
	if l.WorkTree != "" {
		if b, err := os.ReadFile(filepath.Join(l.GitDir, "HEAD")); err == nil && strings.TrimSpace(string(b)) == "ref: refs/heads/"+branch {
			if head := l.Head(); head != "" {
				return l.WorkTree, head, nil
			}
		}
	}
	// Which worktree has which branch changes only with the files `git worktree list` reads, so
	// the answer is the Repo's, kept under their stamps (a view over many workflows asks once);
	// the HEAD commit is read now, in process.
	ask := func() worktreeList {
		wts, err := l.Worktrees()
		return worktreeList{wts: wts, err: err}
	}
	var list worktreeList
	if stamp := l.worktreesStamp(); stamp != "" {
		list = once(&f.s.known, &f.s.known.worktrees, stamp, ask)
	} else {
		list = ask()
	}
	if list.err != nil {
		return "", "", list.err
	}
	for _, wt := range list.wts {
		if wt.Branch == branch && !wt.Bare && wt.Path != "" {
			head, _, err = l.BranchTip(branch)
			return wt.Path, head, err
		}
	}
	return "", "", nil
}

// worktreesStamp names the version of what `git worktree list` reads: the main worktree's HEAD,
// the administrative directories of the linked ones, and each one's HEAD and gitdir (where it
// is). "" when they cannot be read: then nothing is kept.
func (l Location) worktreesStamp() string {
	var b strings.Builder
	b.WriteString(FileStamp(filepath.Join(l.CommonDir, "HEAD")))
	admin := filepath.Join(l.CommonDir, "worktrees")
	b.WriteString("|" + FileStamp(admin))
	entries, err := os.ReadDir(admin)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return ""
	}
	for _, e := range entries {
		d := filepath.Join(admin, e.Name())
		fmt.Fprintf(&b, "|%s:%s:%s", e.Name(), FileStamp(filepath.Join(d, "HEAD")), FileStamp(filepath.Join(d, "gitdir")))
	}
	return b.String()
}
