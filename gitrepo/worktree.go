package gitrepo

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/exarchos/git-exarchos/internal/faults"
)

// Linked worktrees, branches and working-tree status, through the git binary: go-git does not
// manage linked worktrees, and git's own locks and safety checks are the point here.

// ZeroSHA is the all-zero object name git uses for "no ref" in compare-and-swap updates.
const ZeroSHA = "0000000000000000000000000000000000000000"

// Worktree is one entry of `git worktree list`.
type Worktree struct {
	Path           string `json:"path"`
	Head           string `json:"head,omitempty"`
	Branch         string `json:"branch,omitempty"` // short name; empty when detached or bare
	Bare           bool   `json:"bare,omitempty"`
	Detached       bool   `json:"detached,omitempty"`
	Locked         bool   `json:"locked,omitempty"`
	LockReason     string `json:"lockReason,omitempty"`
	Prunable       bool   `json:"prunable,omitempty"` // its directory is gone
	PrunableReason string `json:"prunableReason,omitempty"`
}

// CommonGit runs git on the repository itself (the common directory), not on any one worktree:
// worktree and ref operations must not depend on the worktree the command was started in, which
// may be the very one being removed.
func (l Location) CommonGit(stdin io.Reader, args ...string) (string, error) {
	return runGit(l.CommonDir, l.CommonDir, nil, stdin, args...)
}

// Worktrees lists the repository's worktrees, the main one first.
func (l Location) Worktrees() ([]Worktree, error) {
	out, err := l.CommonGit(nil, "worktree", "list", "--porcelain", "-z")
	if err != nil {
		return nil, err
	}
	var list []Worktree
	var cur *Worktree
	for _, field := range strings.Split(out, "\x00") {
		if field == "" {
			cur = nil
			continue
		}
		key, val, _ := strings.Cut(field, " ")
		if key == "worktree" {
			list = append(list, Worktree{Path: val})
			cur = &list[len(list)-1]
			continue
		}
		if cur == nil {
			continue
		}
		switch key {
		case "HEAD":
			cur.Head = val
		case "branch":
			cur.Branch = strings.TrimPrefix(val, "refs/heads/")
		case "bare":
			cur.Bare = true
		case "detached":
			cur.Detached = true
		case "locked":
			cur.Locked, cur.LockReason = true, val
		case "prunable":
			cur.Prunable, cur.PrunableReason = true, val
		}
	}
	return list, nil
}

// SamePath reports whether two paths name the same place, symlinks resolved where they exist.
func SamePath(a, b string) bool {
	return canonical(a) == canonical(b)
}

func canonical(p string) string {
	p = filepath.Clean(p)
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	// The path may be gone (a worktree deleted by hand): resolve its parent instead.
	if r, err := filepath.EvalSymlinks(filepath.Dir(p)); err == nil {
		return filepath.Join(r, filepath.Base(p))
	}
	return p
}

// FindWorktree returns the registered worktree at path.
func (l Location) FindWorktree(path string) (Worktree, bool, error) {
	list, err := l.Worktrees()
	if err != nil {
		return Worktree{}, false, err
	}
	for _, w := range list {
		if SamePath(w.Path, path) {
			return w, true, nil
		}
	}
	return Worktree{}, false, nil
}

// MainWorktree is the top of the main working tree, where `.worktrees/` lives.
func (l Location) MainWorktree() (string, error) {
	list, err := l.Worktrees()
	if err != nil {
		return "", err
	}
	if len(list) == 0 || list[0].Bare {
		return "", fmt.Errorf("the repository at %s is bare: it has no main working tree to put .worktrees/ in; pass --path", l.CommonDir)
	}
	return list[0].Path, nil
}

// AddWorktree creates a linked worktree at path: on a new branch started at base when
// newBranch, else on the existing branch.
func (l Location) AddWorktree(path, branch, base string, newBranch bool) error {
	args := []string{"worktree", "add", "--quiet"}
	if newBranch {
		args = append(args, "-b", branch, path, base)
	} else {
		args = append(args, path, branch)
	}
	_, err := l.CommonGit(nil, args...)
	return err
}

// RemoveWorktree runs `git worktree remove`; force discards local changes (the caller must have
// preserved them) but never overrides a lock.
func (l Location) RemoveWorktree(path string, force bool) error {
	args := []string{"worktree", "remove"}
	if force {
		args = append(args, "--force")
	}
	_, err := l.CommonGit(nil, append(args, path)...)
	return err
}

// PruneWorktrees drops the administrative files of worktrees whose directory is gone.
func (l Location) PruneWorktrees() error {
	_, err := l.CommonGit(nil, "worktree", "prune")
	return err
}

// EnsureExcluded adds pattern to the repository's info/exclude (shared by every worktree) unless
// a line already says it. The user's .gitignore is never edited.
func (l Location) EnsureExcluded(pattern string) (bool, error) {
	path := filepath.Join(l.CommonDir, "info", "exclude")
	b, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return false, fmt.Errorf("read %s: %w", path, err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.TrimSpace(line) == pattern {
			return false, nil
		}
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return false, fmt.Errorf("create %s: %w", filepath.Dir(path), err)
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return false, fmt.Errorf("open %s: %w", path, err)
	}
	add := pattern + "\n"
	if len(b) > 0 && !bytes.HasSuffix(b, []byte("\n")) {
		add = "\n" + add
	}
	if _, err := f.WriteString("# git exarchos task worktrees\n" + add); err != nil {
		f.Close()
		return false, fmt.Errorf("write %s: %w", path, err)
	}
	return true, f.Close()
}

// ResolveCommit resolves a revision to a commit sha; ok is false when it names nothing.
func (l Location) ResolveCommit(rev string) (string, bool, error) {
	out, err := l.CommonGit(nil, "rev-parse", "--verify", "--quiet", "--end-of-options", rev+"^{commit}")
	if err != nil {
		if ExitCode(err) == 1 {
			return "", false, nil
		}
		return "", false, err
	}
	return strings.TrimSpace(out), true, nil
}

// BranchTip returns the commit a local branch (or a full ref name) points at; ok is false when it
// does not exist.
func (l Location) BranchTip(branch string) (string, bool, error) {
	name := branch
	if !strings.HasPrefix(name, "refs/") {
		name = "refs/heads/" + branch
	}
	h, ok, err := ReadRef(l.CommonDir, name)
	if err != nil || !ok {
		return "", ok, err
	}
	return h.String(), true, nil
}

// IsAncestor reports whether ancestor is reachable from descendant (a commit is its own
// ancestor). It is the one ancestry check: git's merge-base uses the commit-graph where one exists.
func (l Location) IsAncestor(ancestor, descendant string) (bool, error) {
	if ancestor == descendant {
		return true, nil
	}
	_, err := l.CommonGit(nil, "merge-base", "--is-ancestor", ancestor, descendant)
	if err == nil {
		return true, nil
	}
	if ExitCode(err) == 1 {
		return false, nil
	}
	return false, err
}

// ValidBranchName reports whether git accepts name as a branch.
func (l Location) ValidBranchName(name string) bool {
	_, err := l.CommonGit(nil, "check-ref-format", "--branch", name)
	return err == nil && !strings.HasPrefix(name, "-")
}

// DeleteBranch deletes a local branch only if it still points at tip (compare-and-swap).
func (l Location) DeleteBranch(branch, tip string) error {
	_, err := l.CommonGit(nil, "update-ref", "-m", "git exarchos cancel", "-d", "refs/heads/"+branch, tip)
	return err
}

// CheckedOutAt returns the live worktree (not one whose directory is gone) that has branch
// checked out.
func (l Location) CheckedOutAt(branch string) (string, bool, error) {
	list, err := l.Worktrees()
	if err != nil {
		return "", false, err
	}
	for _, w := range list {
		if w.Branch == branch && !w.Prunable {
			return w.Path, true, nil
		}
	}
	return "", false, nil
}

// Status counts what `git status` shows in a worktree: staged changes, unstaged changes,
// untracked files (ignored ones excluded) and conflicts.
type Status struct {
	Staged    int      `json:"staged"`
	Modified  int      `json:"modified"`
	Untracked int      `json:"untracked"`
	Conflicts int      `json:"conflicts"`
	Paths     []string `json:"-"`
}

// Dirty reports whether anything would be lost by removing the worktree's files.
func (s Status) Dirty() bool { return s.Staged+s.Modified+s.Untracked+s.Conflicts > 0 }

func (s Status) String() string {
	if !s.Dirty() {
		return "clean"
	}
	var parts []string
	for _, p := range []struct {
		n    int
		what string
	}{{s.Staged, "staged"}, {s.Modified, "modified"}, {s.Untracked, "untracked"}, {s.Conflicts, "conflicted"}} {
		if p.n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", p.n, p.what))
		}
	}
	return strings.Join(parts, ", ")
}

// WorktreeStatus reads the status of the linked worktree at path without writing its index
// (--no-optional-locks), so the user's index is left exactly as it was. A rename counts once.
func (l Location) WorktreeStatus(path string) (Status, error) {
	out, err := l.WorktreeGit(path, nil, statusArgs("--ignore-submodules=none")...)
	if err != nil {
		return Status{}, err
	}
	rep, err := ParseStatus(out)
	if err != nil {
		return Status{}, err
	}
	var s Status
	for _, e := range rep.Entries {
		s.Paths = append(s.Paths, e.Path)
		switch {
		case e.Untracked():
			s.Untracked++
		case e.Unmerged:
			s.Conflicts++
		default:
			if e.Staged != '.' {
				s.Staged++
			}
			if e.Unstaged != '.' {
				s.Modified++
			}
		}
	}
	return s, nil
}

// WorktreeHead returns the commit checked out in the linked worktree at path.
func (l Location) WorktreeHead(path string) (string, error) {
	out, err := l.WorktreeGit(path, nil, "rev-parse", "--verify", "HEAD")
	return strings.TrimSpace(out), err
}

// isMainWorktree reports whether path is the repository's main working tree (whose git directory
// is the common directory itself): the discovered work tree when this is the main checkout, or
// the directory that holds the common .git directory.
func (l Location) isMainWorktree(path string) bool {
	if l.WorkTree != "" && l.GitDir == l.CommonDir && SamePath(path, l.WorkTree) {
		return true
	}
	return filepath.Base(l.CommonDir) == ".git" && SamePath(path, filepath.Dir(l.CommonDir))
}

// linkedGitDir returns the administrative directory (<common>/worktrees/<id>) of the linked
// worktree at path, found from the files git keeps there, never through path/.git: when a crash
// or a hand removed that file, git run in path would find the enclosing repository instead (the
// main checkout), and its work would be taken for the task's.
func (l Location) linkedGitDir(path string) (string, error) {
	admin := filepath.Join(l.CommonDir, "worktrees")
	entries, err := os.ReadDir(admin)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return "", fmt.Errorf("read %s: %w", admin, err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(admin, e.Name(), "gitdir"))
		if err != nil {
			continue // not a worktree's administrative directory
		}
		dotGit := strings.TrimSpace(string(b))
		if !filepath.IsAbs(dotGit) {
			dotGit = filepath.Join(admin, e.Name(), dotGit)
		}
		if SamePath(filepath.Dir(dotGit), path) {
			return filepath.Join(admin, e.Name()), nil
		}
	}
	return "", fmt.Errorf("%s is not a linked worktree of %s (no administrative directory under %s names it)", path, l.CommonDir, admin)
}

// WorktreeGit runs git on the linked worktree at path, its git directory and working tree named
// explicitly (see linkedGitDir).
func (l Location) WorktreeGit(path string, env []string, args ...string) (string, error) {
	gitDir := l.CommonDir
	if !l.isMainWorktree(path) {
		var err error
		if gitDir, err = l.linkedGitDir(path); err != nil {
			return "", err
		}
	}
	return runGit(path, "", append([]string{"GIT_DIR=" + gitDir, "GIT_WORK_TREE=" + path}, env...), nil, args...)
}

// DiscardWorktree removes the linked worktree at path, whose work the caller has preserved. The
// directory is first renamed aside, one atomic step, so a process killed at any instant leaves
// either the whole worktree at path or nothing there -- never a half-deleted copy that a rerun
// would take for the work and preserve over the real snapshot. Then git forgets the worktree
// (its administrative files only), then the copy set aside is deleted. Run again after a crash,
// it finishes the job. The caller checks locks first: git refuses to forget a locked worktree.
func (l Location) DiscardWorktree(path string) error {
	aside := DiscardPath(path)
	if _, err := os.Lstat(path); err == nil {
		if err := os.RemoveAll(aside); err != nil { // left by a run killed before it finished
			return fmt.Errorf("delete %s: %w", aside, err)
		}
		if err := os.Rename(path, aside); err != nil {
			return fmt.Errorf("move %s aside before removing it: %w", path, err)
		}
	}
	faults.Hit("moved")
	if _, registered, err := l.FindWorktree(path); err != nil {
		return err
	} else if registered {
		if _, err := l.CommonGit(nil, "worktree", "remove", path); err != nil {
			return err
		}
	}
	return removeAside(aside)
}

// DiscardPath is where DiscardWorktree sets a worktree's directory aside before deleting it: a
// hidden sibling, on the same file system so that the rename is atomic.
func DiscardPath(path string) string {
	return filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".exarchos-removing")
}

// removeAside deletes a directory set aside, half of its entries first (a fault point sits
// between the halves).
func removeAside(dir string) error {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	for i, e := range entries {
		if i == len(entries)/2 {
			faults.Hit("half")
		}
		if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
			return fmt.Errorf("delete %s: %w", dir, err)
		}
	}
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("delete %s: %w", dir, err)
	}
	return nil
}
