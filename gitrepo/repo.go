// Package gitrepo is exarchos's access to git: discovery of a repository the way git finds it, its
// format and extensions, objects (loose and packed, SHA-1 or SHA-256) and the tree and commit
// codec, refs under git's lock protocol (or through git, for a ref storage other than files),
// configuration, worktrees and the git binary. It knows nothing of workflows; gitstore keeps the
// event log on top of it.
//
// It may import the standard library, golang.org/x/sys/unix (fstatat), go-git (for its plumbing types) and
// the internal helpers; no package of exarchos's own.
package gitrepo

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// ErrNotFound means a thing looked up by name (a workflow, rescued work) does not exist; gitstore
// uses the same sentinel, so one errors.Is covers both.
var ErrNotFound = errors.New("not found")

// Repo is one repository opened for reading and writing objects and refs.
type Repo struct {
	Loc Location

	st     *Objects
	config map[string][]string // git config, loaded on first use
	// known keeps the facts about commit ids (merge-bases, diffs) git was asked: they never
	// change, so every decision of this process shares them (changes.go).
	known asked
}

// Open discovers the repository enclosing dir and opens it.
func Open(dir string) (*Repo, error) {
	loc, err := Discover(dir)
	if err != nil {
		return nil, err
	}
	return OpenAt(loc)
}

// OpenAt opens a known repository. A repository whose format exarchos does not understand is
// refused here, before anything is read or written.
func OpenAt(loc Location) (*Repo, error) {
	f, err := readRepoFeatures(loc.CommonDir)
	if err != nil {
		return nil, err
	}
	return &Repo{Loc: loc, st: newObjects(loc.CommonDir, f)}, nil
}

// Objects is the object database (in the common directory, shared by every worktree).
func (s *Repo) Objects() *Objects { return s.st }

// ObjectFormat is the repository's hash function.
func (s *Repo) ObjectFormat() ObjectFormat { return s.st.format }

// CurrentBranch is the branch checked out in this worktree ("" when HEAD is detached).
func (s *Repo) CurrentBranch() string {
	head := s.Loc.headFile()
	ref, ok := strings.CutPrefix(head, "ref: refs/heads/")
	if !ok {
		return ""
	}
	return ref
}

// GCRunning reports whether `git gc` holds its lock in this repository.
func (s *Repo) GCRunning() bool {
	_, err := os.Stat(filepath.Join(s.Loc.CommonDir, "gc.pid"))
	return err == nil
}

// HeadCommit is the commit checked out in this worktree (a branch's tip, or a detached HEAD as CI
// checks a pull request out); "" on an unborn branch.
func (s *Repo) HeadCommit() string { return s.Loc.Head() }

// Head is the commit checked out in the worktree of l; "" on an unborn branch. It reads HEAD and
// the ref it names, with no process: the hook calls it on every tool call.
func (l Location) Head() string {
	head := l.headFile()
	if head == "" {
		return ""
	}
	if ref, ok := strings.CutPrefix(head, "ref: "); ok {
		h, found, err := ReadRef(l.CommonDir, ref)
		if err != nil || !found {
			return ""
		}
		return h.String()
	}
	return head
}

// headFile is what HEAD holds ("ref: <name>" or a commit id), read from its file; where the file is
// the placeholder of a repository whose refs are not files, git is asked.
func (l Location) headFile() string {
	b, err := os.ReadFile(filepath.Join(l.GitDir, "HEAD"))
	if err != nil {
		return ""
	}
	head := strings.TrimSpace(string(b))
	if head == placeholderHead {
		return gitHead(l.GitDir)
	}
	return head
}

// fileID is what tells one version of a file from another without reading it, as git's
// stat_validity_check does for packed-refs: inode, size and modification time.
type fileID struct {
	dev, ino uint64
	size     int64
	mtime    int64
}

func statID(path string) (fileID, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return fileID{}, err
	}
	id := fileID{size: fi.Size(), mtime: fi.ModTime().UnixNano()}
	id.dev, id.ino = inode(fi)
	return id, nil
}

// FileStamp names one version of the file at path (inode, size, modification time) without reading
// it; "" when it cannot be read. A caller keeps what it derived from the file under its stamp.
func FileStamp(path string) string {
	id, err := statID(path)
	if err != nil {
		return ""
	}
	return fmt.Sprint(id)
}
