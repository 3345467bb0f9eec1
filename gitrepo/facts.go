package gitrepo

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
)

// Facts answers guards' questions about the repository (guards.GitFacts), asking git each question
// once (changes.go): answers about commit ids are kept by the Repo, a worktree's status by the
// Facts value and its copies, so hold one Facts for one decision and take a new one for the next.
type Facts struct {
	s     *Repo
	asked *asked
	// status reads the changed paths of the worktree at dir (WithStatus); nil runs `git status`.
	status func(dir string) ([]string, error)
}

// WithStatus is f reading a worktree's changed paths with read: the file-system monitor's kept
// answer where it runs (hookrun), git's status otherwise.
func (f Facts) WithStatus(read func(dir string) ([]string, error)) Facts { f.status = read; return f }

// Facts returns the repository facts guards read, with no worktree asked about yet.
func (s *Repo) Facts() Facts { return Facts{s: s, asked: &asked{}} }

// BranchTip returns the commit at the tip of a local branch (Location.BranchTip, with the error
// guards want when there is none).
func (f Facts) BranchTip(branch string) (string, error) {
	tip, ok, err := f.s.Loc.BranchTip(branch)
	if err != nil {
		return "", err
	}
	if !ok {
		name := branch
		if !strings.HasPrefix(name, "refs/") {
			name = "refs/heads/" + branch
		}
		if f.s.Loc.headFile() == "ref: "+name {
			// The branch checked out has no commit yet (a new repository): switching to it is no fix.
			return "", &MissingBranchError{Branch: branch, Unborn: true}
		}
		return "", &MissingBranchError{Branch: branch}
	}
	return tip, nil
}

// MissingBranchError: the workflow's branch has no commit, because it does not exist or because
// it is checked out but has no commit yet (a new repository). Fix is the command that helps.
type MissingBranchError struct {
	Branch string
	Unborn bool
}

func (e *MissingBranchError) Error() string {
	if e.Unborn {
		return fmt.Sprintf("branch %s has no commits yet: make the first one (`%s`)", e.Branch, e.Fix())
	}
	return fmt.Sprintf("branch %s does not exist: create it with `%s`, or bind the workflow to an existing branch", e.Branch, e.Fix())
}

// Fix is the command that gives the branch a commit.
func (e *MissingBranchError) Fix() string {
	if e.Unborn {
		return "git commit --allow-empty -m init"
	}
	return "git switch -c " + e.Branch
}

// ResolveRef resolves a ref name (full, or a branch or remote-tracking short name) to a commit.
func (f Facts) ResolveRef(name string) (string, bool, error) {
	for _, full := range []string{name, "refs/heads/" + name, "refs/remotes/" + name, "refs/tags/" + name} {
		if !strings.HasPrefix(full, "refs/") {
			continue
		}
		h, ok, err := ReadRef(f.s.Loc.CommonDir, full)
		if err != nil {
			return "", false, err
		}
		if ok {
			return h.String(), true, nil
		}
	}
	return "", false, nil
}

// PeelToCommit follows annotated tags (a tag of a tag too) from id to the commit they name, as
// `git rev-parse <id>^{commit}` does; a commit is returned as it is.
func (f Facts) PeelToCommit(id string) (string, error) {
	h, ok := f.s.st.format.parseID(id)
	if !ok {
		return "", fmt.Errorf("%q is not a %s object id", id, f.s.st.format)
	}
	for depth := 0; depth < 32; depth++ {
		typ, content, err := f.s.st.Raw(h)
		if err != nil {
			return "", fmt.Errorf("read %s: %w", h, err)
		}
		switch typ {
		case plumbing.CommitObject:
			return h.String(), nil
		case plumbing.TagObject:
			target, ok := bytes.CutPrefix(content, []byte("object "))
			if !ok {
				return "", fmt.Errorf("tag %s names no object", h)
			}
			if i := bytes.IndexByte(target, '\n'); i >= 0 {
				target = target[:i]
			}
			if h, err = parseHash(target, f.s.st.format); err != nil {
				return "", fmt.Errorf("tag %s: %w", id, err)
			}
		default:
			return "", fmt.Errorf("%s is a %s, not a commit", id, typ)
		}
	}
	return "", fmt.Errorf("tag %s: more than 32 tags deep", id)
}

// FileExists reports whether path is a file in the tree of commit.
func (f Facts) FileExists(commit, path string) (bool, error) {
	e, ok, err := f.at(commit, path)
	if err != nil || !ok {
		return false, err
	}
	return e.Mode.IsFile(), nil
}

// FileAt returns the content of the file at path in commit, read in process (no git is started);
// ok=false when there is no file there (or commit is the empty tree). A symlink's content is its
// target; a submodule is no file.
func (f Facts) FileAt(commit, path string) ([]byte, bool, error) {
	if commit == "" || commit == emptyTreeID {
		return nil, false, nil
	}
	e, ok, err := f.at(commit, path)
	if err != nil || !ok || !(e.Mode.IsFile() || e.Mode == filemode.Symlink) {
		return nil, false, err
	}
	b, err := f.s.ReadObject(e.Hash, plumbing.BlobObject)
	if err != nil {
		return nil, false, fmt.Errorf("read %s at %s: %w", path, commit, err)
	}
	return b, true, nil
}

// emptyTreeID is git's empty tree (SHA-1), the "since" of a branch that started with none.
const emptyTreeID = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"

// DirFiles returns the regular files directly in dir at commit, name → content, read in process
// (no git is started); none when dir does not exist there.
func (f Facts) DirFiles(commit, dir string) (map[string][]byte, error) {
	e, ok, err := f.at(commit, dir)
	if err != nil || !ok || e.Mode != filemode.Dir {
		return nil, err
	}
	t, err := f.s.GetTree(e.Hash)
	if err != nil {
		return nil, err
	}
	out := map[string][]byte{}
	for _, entry := range t.Entries {
		if entry.Mode != filemode.Regular && entry.Mode != filemode.Executable && entry.Mode != filemode.Deprecated {
			continue // symlinks and submodules are not files to read
		}
		if out[entry.Name], err = f.s.ReadObject(entry.Hash, plumbing.BlobObject); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// at finds the tree entry at a slash path in commit's tree.
func (f Facts) at(commit, path string) (TreeEntry, bool, error) {
	h, ok := f.s.st.format.parseID(commit)
	if !ok {
		return TreeEntry{}, false, fmt.Errorf("%q is not a %s commit id", commit, f.s.st.format)
	}
	c, err := f.s.GetCommit(h)
	if err != nil {
		return TreeEntry{}, false, fmt.Errorf("read commit %s: %w", commit, err)
	}
	root, err := f.s.GetTree(c.Tree)
	if err != nil {
		return TreeEntry{}, false, fmt.Errorf("read tree of %s: %w", commit, err)
	}
	return f.s.FindPath(root, strings.TrimPrefix(path, "./"))
}

// IsAncestor reports whether ancestor is reachable from descendant (a commit is its own ancestor).
func (f Facts) IsAncestor(ancestor, descendant string) (bool, error) {
	return f.s.Loc.IsAncestor(ancestor, descendant)
}

// SymbolicTarget reads a symbolic ref (such as refs/remotes/origin/HEAD) without following it: the
// name it points at, or ok=false when the ref is missing or not symbolic. Symbolic refs are never
// packed, so the loose file is the whole story.
func (f Facts) SymbolicTarget(name string) (string, bool, error) {
	b, err := os.ReadFile(filepath.Join(f.s.Loc.CommonDir, filepath.FromSlash(name)))
	if errors.Is(err, fs.ErrNotExist) || (err != nil && isDirErr(err)) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("read %s: %w", name, err)
	}
	target, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "ref:")
	if !ok {
		return "", false, nil
	}
	return strings.TrimSpace(target), true, nil
}
