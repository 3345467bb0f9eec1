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
	"strings"
	"sync"
	"sync/atomic"
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
	out, err := runGit(commonDir, commonDir, nil, in, args...)
	var ge *GitError
	if errors.As(err, &ge) && strings.Contains(ge.Stderr, "extension") {
		if st := refStorage(commonDir); st != "" {
			return out, fmt.Errorf("%w; this repository keeps its refs in %s storage (extensions.refStorage = %s) and the installed git cannot read it: install git 2.45 or later (`git --version` says which git runs), then run the command again", err, st, st)
		}
	}
	return out, err
}

// gitReadRef is ReadRef through git: the ref of exactly that name, if there is one.
func gitReadRef(commonDir, name string) (Hash, bool, error) {
	refs, _, _, err := gitScanRefs(commonDir, name, nil)
	if err != nil {
		return ZeroHash, false, fmt.Errorf("read %s: %w", name, err)
	}
	h, ok := refs[name]
	return h, ok, nil
}

// gitScanRefs is ScanRefs through git: `git for-each-ref` lists the refs under prefix (or the ref
// named prefix) in name order, skipping broken ones as git does.
func gitScanRefs(commonDir, prefix string, valid func(rest string) bool) (map[string]Hash, []string, []BadRef, error) {
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
		h, ok := ParseHash(id)
		if !ok || h.IsZero() {
			continue
		}
		if valid != nil && !valid(strings.TrimPrefix(name, prefix)) {
			bad = append(bad, BadRef{Name: name, Reason: "is not a workflow id", Fix: "git update-ref -d " + shellQuote(name)})
			continue
		}
		refs[name] = h
		order = append(order, name)
	}
	return refs, order, bad, nil
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
