package gitstore

import (
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/exarchos/git-exarchos/gitrepo"
)

// Git is what the event log needs of its repository: objects, refs and config. (Running git
// itself, for fetch, push and fsck, goes through gitrepo.Location: it is transport, not storage.)
// gitrepo.Repo is the implementation: a fast path that reads objects, packs, refs and config from
// their files, and falls back to git (`git cat-file --batch`; `git for-each-ref` and `git
// update-ref --stdin` for a ref storage other than files; `git config`) for what it cannot read.
type Git interface {
	// Objects, in the repository's hash.
	ObjectFormat() gitrepo.ObjectFormat
	ReadRaw(h gitrepo.Hash) (plumbing.ObjectType, []byte, error)
	ReadObject(h gitrepo.Hash, want plumbing.ObjectType) ([]byte, error)
	GetTree(h gitrepo.Hash) (*gitrepo.Tree, error)
	GetCommit(h gitrepo.Hash) (*gitrepo.Commit, error)
	HasObject(h gitrepo.Hash) bool
	ObjectExists(h gitrepo.Hash) bool
	WriteObject(t plumbing.ObjectType, content []byte) (gitrepo.Hash, error)
	LooseObjectPath(h gitrepo.Hash) string
	Reindex()

	// Refs: reads, and moves by compare-and-swap (old zero: must not exist; new zero: delete).
	Ref(name string) (gitrepo.Hash, bool, error)
	Refs(prefix string, valid func(rest string) bool) (map[string]gitrepo.Hash, []string, []gitrepo.BadRef, error)
	UpdateRef(name string, newH, oldH gitrepo.Hash) error
	LockRef(name string) (*gitrepo.RefLock, error)

	// Config: read with git's rules (the files, else `git config`), written through git.
	Config(key string) (string, bool)
	ConfigAll(key string) []string
	AddConfig(key, value string) error
	Actor() (string, error)
	Signature(now time.Time) (gitrepo.Signature, error)

	// The state of the repository around the log: the branch checked out, a running `git gc`,
	// the lock and temporary files a killed writer left (fsck).
	CurrentBranch() string
	GCRunning() bool
	StaleFiles() ([]gitrepo.StaleFile, error)
}

var _ Git = (*gitrepo.Repo)(nil)
