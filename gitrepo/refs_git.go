package gitrepo

// Refs through the git binary. The files reader and writer (refs.go) are a cache in front of git
// for the one ref storage they understand, "files"; a repository whose extensions.refStorage is
// anything else (reftable, which git 2.45 can create and is moving to by default) has its refs
// read with `git for-each-ref` and moved with `git update-ref --stdin`, the old value given, so a
// write is still a compare-and-swap under git's own locking. Where the installed git cannot read
// the repository either, the error is git's own, with the fix (a newer git).

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// forceRefsThroughGit sends every repository's refs through git (RouteRefsThroughGit).
var forceRefsThroughGit atomic.Bool

// RouteRefsThroughGit makes every ref read and write go through git, whatever the repository's
// ref storage, and returns the previous setting. Tests set it so that every command family runs
// on the path a reftable repository takes, on repositories the installed git can make.
func RouteRefsThroughGit(on bool) (was bool) { return forceRefsThroughGit.Swap(on) }

// refStorages is each common directory's ref storage as its config names it ("" for files), noted
// when the repository's features are read (readRepoFeatures), so deciding costs no read per ref.
var refStorages sync.Map

// refStorage is the ref storage of the repository at commonDir, "" for files.
func refStorage(commonDir string) string {
	if v, ok := refStorages.Load(commonDir); ok {
		return v.(string)
	}
	f, err := readRepoFeatures(commonDir) // notes it
	if err != nil {
		return ""
	}
	return f.refStorage
}

// refsViaGit reports whether refs of the repository at commonDir are read and moved by git.
func refsViaGit(commonDir string) bool {
	return forceRefsThroughGit.Load() || refStorage(commonDir) != ""
}

// RefsThroughGit reports whether this repository's refs are read and moved by git rather than
// from their files (a ref storage other than "files", or the tests' switch): a cache keyed by the
// refs' files (packed-refs, refs/exarchos) must not be taken as current for it.
func (s *Repo) RefsThroughGit() bool { return refsViaGit(s.Loc.CommonDir) }

// refsGit runs git on the repository at commonDir for its refs; git's failure to read the
// repository at all is named with the fix.
func refsGit(commonDir string, stdin []byte, args ...string) (string, error) {
	var in io.Reader
	if stdin != nil {
		in = bytes.NewReader(stdin)
	}
	refsGitRuns.Add(1)
	out, err := runGit(commonDir, commonDir, nil, in, args...)
	var ge *GitError
	if errors.As(err, &ge) && strings.Contains(ge.Stderr, "extension") {
		if st := refStorage(commonDir); st != "" {
			return out, fmt.Errorf("%w; this repository keeps its refs in %s storage (extensions.refStorage = %s) and the installed git cannot read it: install git 2.45 or later (`git --version` says which git runs), then run the command again", err, st, st)
		}
	}
	return out, err
}

// refsGitRuns counts the git processes started for refs (tests hold the cached path to none).
var refsGitRuns atomic.Int64

// reftableSnapshots keeps, per reftable repository, every ref as one `git for-each-ref` listed it,
// under the stamp of reftable/tables.list, which git renames over on every ref write: a hook call
// resolves several refs (its workflow, the base branch and its fallbacks), each a git process of
// about 2 ms without it. A snapshot is used only while tables.list has that stamp and is older
// than a second (a stamp can repeat within a file system's clock tick), so it is never staler than
// the refs; right after a write every read asks git.
var reftableSnapshots struct {
	sync.Mutex
	m map[string]*refSnapshot
}

type refSnapshot struct {
	stamp string
	refs  map[string]Hash
	order []string
}

// reftableRefs returns the repository's refs from its snapshot (taking one if needed); ok is false
// where no snapshot may be used: refs not in reftable, or tables.list just written.
func reftableRefs(commonDir string) (refs map[string]Hash, order []string, ok bool, err error) {
	if refStorage(commonDir) != "reftable" {
		return nil, nil, false, nil
	}
	list := filepath.Join(commonDir, "reftable", "tables.list")
	settled := func() (string, bool) {
		fi, err := os.Stat(list)
		if err != nil || time.Since(fi.ModTime()) < time.Second {
			return "", false
		}
		return FileStamp(list), true
	}
	stamp, ok := settled()
	if !ok || stamp == "" {
		return nil, nil, false, nil
	}
	reftableSnapshots.Lock()
	snap := reftableSnapshots.m[commonDir]
	reftableSnapshots.Unlock()
	if snap != nil && snap.stamp == stamp {
		return snap.refs, snap.order, true, nil
	}
	refs, order, _, err = gitListRefs(commonDir, "refs/", nil)
	if err != nil {
		return nil, nil, false, err
	}
	if after, ok := settled(); ok && after == stamp { // no write while it was listed
		reftableSnapshots.Lock()
		if reftableSnapshots.m == nil {
			reftableSnapshots.m = map[string]*refSnapshot{}
		}
		reftableSnapshots.m[commonDir] = &refSnapshot{stamp: stamp, refs: refs, order: order}
		reftableSnapshots.Unlock()
	}
	return refs, order, true, nil
}

// gitReadRef is ReadRef through git: the ref of exactly that name, if there is one.
func gitReadRef(commonDir, name string) (Hash, bool, error) {
	if all, _, ok, err := reftableRefs(commonDir); err != nil || ok {
		h, found := all[name]
		return h, found, err
	}
	refs, _, _, err := gitListRefs(commonDir, name, nil)
	if err != nil {
		return ZeroHash, false, fmt.Errorf("read %s: %w", name, err)
	}
	h, ok := refs[name]
	return h, ok, nil
}

// gitScanRefs is ScanRefs through git: the refs under prefix in name order, from the reftable
// snapshot where one may be used, else listed by git.
func gitScanRefs(commonDir, prefix string, valid func(rest string) bool) (map[string]Hash, []string, []BadRef, error) {
	all, allOrder, ok, err := reftableRefs(commonDir)
	if err != nil {
		return nil, nil, nil, err
	}
	if !ok {
		return gitListRefs(commonDir, prefix, valid)
	}
	refs := map[string]Hash{}
	var order []string
	var bad []BadRef
	for _, name := range allOrder {
		if strings.HasPrefix(name, prefix) {
			refs, order, bad = keepRef(refs, order, bad, prefix, name, all[name], valid)
		}
	}
	return refs, order, bad, nil
}

// gitListRefs runs `git for-each-ref` on the refs under prefix (or the ref named prefix), in name
// order, skipping broken ones as git does.
func gitListRefs(commonDir, prefix string, valid func(rest string) bool) (map[string]Hash, []string, []BadRef, error) {
	out, err := refsGit(commonDir, nil, "for-each-ref", "--format=%(objectname) %(refname)", "--", prefix)
	if err != nil {
		return nil, nil, nil, err
	}
	refs := map[string]Hash{}
	var order []string
	var bad []BadRef
	for _, line := range strings.Split(out, "\n") {
		id, name, ok := strings.Cut(line, " ")
		if !ok || !strings.HasPrefix(name, prefix) {
			continue
		}
		if h, ok := ParseHash(id); ok && !h.IsZero() {
			refs, order, bad = keepRef(refs, order, bad, prefix, name, h, valid)
		}
	}
	return refs, order, bad, nil
}

// keepRef adds one listed ref to a scan's result, or to its bad entries when its name is not valid.
func keepRef(refs map[string]Hash, order []string, bad []BadRef, prefix, name string, h Hash, valid func(rest string) bool) (map[string]Hash, []string, []BadRef) {
	if valid != nil && !valid(strings.TrimPrefix(name, prefix)) {
		return refs, order, append(bad, BadRef{Name: name, Reason: "is not a workflow id", Fix: "git update-ref -d " + shellQuote(name)})
	}
	refs[name] = h
	return refs, append(order, name), bad
}

// gitCasRef is CasRef through git: one `git update-ref --stdin` transaction that names the old
// value (zero: the ref must not exist), so git refuses it when the ref moved; that refusal is
// ErrStale once a read confirms the ref no longer holds old.
func gitCasRef(commonDir, name string, newH, oldH Hash) error {
	var line string
	switch {
	case newH.IsZero() && oldH.IsZero():
		return nil
	case newH.IsZero():
		line = fmt.Sprintf("delete %s %s\n", name, oldH)
	case oldH.IsZero():
		line = fmt.Sprintf("create %s %s\n", name, newH)
	default:
		line = fmt.Sprintf("update %s %s %s\n", name, newH, oldH)
	}
	_, err := refsGit(commonDir, []byte(line), "update-ref", "--stdin")
	if err == nil {
		return nil
	}
	cur, exists, rerr := gitReadRef(commonDir, name)
	if rerr == nil && ((oldH.IsZero() && exists) || (!oldH.IsZero() && cur != oldH)) {
		return ErrStale
	}
	var ge *GitError
	if errors.As(err, &ge) && strings.Contains(strings.ToLower(ge.Stderr), "lock") {
		// Another process holds the ref's (or the table stack's) lock past git's own wait.
		return fmt.Errorf("update %s: %w: %v", name, ErrLocked, err)
	}
	return fmt.Errorf("update %s: %w", name, err)
}

// placeholderHead is what the HEAD file of a repository whose refs are not files holds, so that
// an older git still sees a repository there; its real HEAD is in the ref storage.
const placeholderHead = "ref: refs/heads/.invalid"

// gitHead is HEAD of the worktree whose git directory is gitDir, asked of git: "ref: <name>" when
// it names a branch, else the commit; "" when git cannot say.
func gitHead(gitDir string) string {
	if out, err := runGit(gitDir, gitDir, nil, nil, "symbolic-ref", "-q", "HEAD"); err == nil {
		return "ref: " + strings.TrimSpace(out)
	}
	out, err := runGit(gitDir, gitDir, nil, nil, "rev-parse", "-q", "--verify", "HEAD")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(out)
}
