package gitrepo

// Refs read and moved by hand, under git's own lock protocol (locks.go). Measured reasons
// (BENCHMARKS.md): moving a ref with a `git update-ref` process costs 2.36 ms, more than half of a
// whole append in process at the time (p50 4.10 ms, "Event store (issue 2)"); finding one packed
// ref by its name, in a packed-refs file mapped once and searched by bisection, took the hook's
// PreToolUse at 10,000 workflows after gc from 9.01 to 7.71 ms ("PostToolUse under a file-system
// monitor, packed-refs mapped", second stop). Measured again for issue 31 (BENCHMARKS.md, "Issue
// 31: what each fast path buys"): a ref read 3.4 µs against 2.1 ms through git, a scan of 50 refs
// 0.25–0.37 against 2.4–2.5 ms, a compare-and-swap 0.6–1.0 against 1.8–2.7 ms (`git update-ref
// --stdin`, refs_git.go): each buys more than a millisecond on the hook or an append. Only the
// "files" storage is read here.

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
)

// ErrStale is returned by casRef when the ref no longer holds the expected old value.
var ErrStale = errors.New("ref changed concurrently")

// lockWait is how long casRef waits for another process's lock on the same ref (git pack-refs, a
// concurrent writer) before giving up, like git's core.filesRefLockTimeout.
const lockWait = 2 * time.Second

// readRef resolves a ref the way git's files backend does: the loose file wins, else packed-refs.
// Reading the loose file first is what keeps this correct while `git pack-refs` runs: it writes
// packed-refs before it deletes the loose file.
func ReadRef(commonDir, name string) (Hash, bool, error) {
	if refsViaGit(commonDir) {
		return gitReadRef(commonDir, name)
	}
	path := filepath.Join(commonDir, filepath.FromSlash(name))
	b, err := readFile(path, 128)
	if err == nil {
		h, reason := parseLooseRef(b)
		if reason != "" {
			return ZeroHash, false, fmt.Errorf("%s %s; git ignores it, and so does every command but this one: remove it with `%s`", name, reason, removeFileFix(path))
		}
		return h, true, nil
	}
	if !errors.Is(err, fs.ErrNotExist) && !isDirErr(err) {
		return ZeroHash, false, fmt.Errorf("read %s: %w", name, err)
	}
	return readPackedRef(commonDir, name)
}

// packedRefs keeps the last packed-refs mapped, while the file's identity (inode, size,
// modification time) stays the same: a call resolves several refs (its workflow, the base branch
// and its fallbacks), and packed-refs holds every packed ref of the repository, hundreds of KiB with
// ten thousand workflows. git replaces the file by a rename, so a rewrite changes the inode. The
// file is mapped, not read: one ref is found by a binary search that touches a few pages, where a
// read copies the whole file into fresh memory on every call.
var packedRefs struct {
	sync.Mutex
	path    string
	id      fileID
	content []byte
}

// packedRefsContent returns packed-refs' content; the slice is shared and must not be changed.
func packedRefsContent(commonDir string) ([]byte, error) {
	path := filepath.Join(commonDir, "packed-refs")
	id, err := statID(path)
	if err != nil {
		return nil, err
	}
	packedRefs.Lock()
	defer packedRefs.Unlock()
	if packedRefs.path == path && packedRefs.id == id {
		return packedRefs.content, nil
	}
	content, err := mapWhole(path)
	if err != nil {
		return nil, err
	}
	if after, err := statID(path); err == nil && after == id {
		packedRefs.path, packedRefs.id, packedRefs.content = path, id, content
	}
	return content, nil
}

// readPackedRef finds one ref in packed-refs and decodes only its line: by binary search when
// git wrote the file sorted (its header says so), else by looking for the name.
func readPackedRef(commonDir, name string) (Hash, bool, error) {
	content, err := packedRefsContent(commonDir)
	if errors.Is(err, fs.ErrNotExist) {
		return ZeroHash, false, nil
	}
	if err != nil {
		return ZeroHash, false, fmt.Errorf("read packed-refs: %w", err)
	}
	if h, found, ok := searchSortedPackedRefs(content, name); ok {
		return h, found, nil
	}
	needle := []byte(" " + name)
	for from := 0; ; {
		i := bytes.Index(content[from:], needle)
		if i < 0 {
			return ZeroHash, false, nil
		}
		at, end := from+i, from+i+len(needle)
		if end == len(content) || content[end] == '\n' || content[end] == '\r' {
			lineStart := bytes.LastIndexByte(content[:at], '\n') + 1
			if h, ok := ParseHash(content[lineStart:at]); ok && !h.IsZero() {
				return h, true, nil
			}
		}
		from = end
	}
}

// searchSortedPackedRefs looks name up by binary search in a packed-refs file whose header has the
// "sorted" trait, as git's packed-refs backend does. ok is false when the file is not known to be
// sorted or a line does not read as "<id> <name>", and the caller searches it line by line.
func searchSortedPackedRefs(content []byte, name string) (h Hash, found, ok bool) {
	header, _, _ := bytes.Cut(content, []byte{'\n'})
	if !bytes.HasPrefix(header, []byte("# pack-refs with:")) ||
		!slices.ContainsFunc(bytes.Fields(header), func(f []byte) bool { return string(f) == "sorted" }) {
		return ZeroHash, false, false
	}
	lo := min(len(header)+1, len(content))
	want := []byte(name)
	hi := len(content)
	for lo < hi {
		// The record holding the middle: back to its line's start, and past a peeled "^" line to
		// the ref it belongs to (lo is always a record's start, so this stays at or after lo).
		rec := lo + bytes.LastIndexByte(content[lo:lo+(hi-lo)/2], '\n') + 1
		for rec > lo && content[rec] == '^' {
			rec = lo + bytes.LastIndexByte(content[lo:rec-1], '\n') + 1
		}
		end := lineEnd(content, rec)
		line := bytes.TrimSuffix(content[rec:end], []byte{'\r'})
		id, ref, cut := bytes.Cut(line, []byte{' '})
		if !cut || len(line) == 0 || line[0] == '^' {
			return ZeroHash, false, false
		}
		switch c := bytes.Compare(ref, want); {
		case c == 0:
			h, valid := ParseHash(id)
			if !valid || h.IsZero() {
				return ZeroHash, false, false
			}
			return h, true, true
		case c < 0:
			lo = end + 1
			for lo < hi && content[lo] == '^' { // its peeled line
				lo = lineEnd(content, lo) + 1
			}
		default:
			hi = rec
		}
	}
	return ZeroHash, false, true
}

// lineEnd is where the line that starts at from ends: its newline, or the end of b.
func lineEnd(b []byte, from int) int {
	if i := bytes.IndexByte(b[from:], '\n'); i >= 0 {
		return from + i
	}
	return len(b)
}

// parseLooseRef reads a loose ref file's content; reason says what is wrong with it, if anything.
func parseLooseRef(b []byte) (Hash, string) {
	line := strings.TrimSpace(string(b))
	switch {
	case line == "":
		return ZeroHash, "is an empty file, not a ref"
	case strings.HasPrefix(line, "ref:"):
		return ZeroHash, "is a symbolic ref (exarchos refs must point at commits)"
	}
	h, ok := ParseHash(line)
	if !ok || h.IsZero() {
		return ZeroHash, fmt.Sprintf("holds %q, not a commit id", Truncate(line, 40))
	}
	return h, ""
}

// Truncate shortens s to n bytes for a message, marking the cut.
func Truncate(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

func isDirErr(err error) bool {
	var pe *fs.PathError
	return errors.As(err, &pe) && strings.Contains(pe.Err.Error(), "is a directory")
}

// BadRef is an entry where a ref should be that is not a usable one: a stray file (.DS_Store), an
// empty or torn file, a symbolic ref, a ref to a commit that is not stored, a name that is not a
// workflow id, a packed-refs line that does not parse. Git skips such entries and so do the
// commands here, each workflow being read on its own; fsck names them with a command that removes
// them.
type BadRef struct {
	Name   string `json:"name"`
	Reason string `json:"reason"`
	Fix    string `json:"fix"`
	// Missing is the commit a ref points at that was not found, to check again before reporting.
	Missing Hash `json:"-"`
}

// readPackedRefs returns the packed refs whose names start with prefix, and the lines that are
// not "<commit id> <ref name>" (git itself refuses to read past such a line).
func readPackedRefs(commonDir, prefix string) (refs map[string]Hash, order []string, bad []BadRef, err error) {
	path := filepath.Join(commonDir, "packed-refs")
	content, err := packedRefsContent(commonDir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil, nil
	}
	if err != nil {
		return nil, nil, nil, fmt.Errorf("read packed-refs: %w", err)
	}
	// Sized for the lines under prefix: growing a map of a thousand refs was a tenth of list's time.
	under := bytes.Count(content, []byte(" "+prefix))
	out := make(map[string]Hash, under)
	order = make([]string, 0, under)
	// Only the lines under prefix are decoded; the others are checked for shape without a copy,
	// so that reading one ref among thousands (status, the hook) stays cheap.
	for n := 1; len(content) > 0; n++ {
		var line []byte
		line, content, _ = bytes.Cut(content, []byte("\n"))
		line = bytes.TrimSuffix(line, []byte("\r"))
		if len(line) == 0 || line[0] == '#' || line[0] == '^' {
			continue
		}
		id, name, ok := bytes.Cut(line, []byte(" ")) // 40 or 64 hex digits, by the repository's hash
		ok = ok && len(name) > 0 && (len(id) == 40 || len(id) == 64)
		if ok && !bytes.HasPrefix(name, []byte(prefix)) {
			if IsLowerHex(id) {
				continue
			}
			ok = false
		}
		h, okHash := ParseHash(id) // checks the digits of the lines under prefix
		if !ok || !okHash || h.IsZero() {
			bad = append(bad, BadRef{Name: "packed-refs line " + fmt.Sprint(n), Reason: fmt.Sprintf("%q is not \"<commit id> <ref name>\"", Truncate(string(line), 60)), Fix: dropLineFix(path, string(line))})
			continue
		}
		out[string(name)] = h
		order = append(order, string(name))
	}
	return out, order, bad, nil
}

// listRefs returns every usable ref under prefix (e.g. "refs/exarchos/"), loose refs overriding
// packed ones; entries that are not usable refs are skipped, as git skips them.
func ListRefs(commonDir, prefix string) (map[string]Hash, error) {
	refs, _, _, err := ScanRefs(commonDir, prefix, nil)
	return refs, err
}

// ScanRefs is ListRefs that also returns the names in order and what it skipped. valid, when
// given, says which names (after prefix) belong there; others are reported as bad.
func ScanRefs(commonDir, prefix string, valid func(rest string) bool) (map[string]Hash, []string, []BadRef, error) {
	if refsViaGit(commonDir) {
		return gitScanRefs(commonDir, prefix, valid)
	}
	refs, order, bad, _, err := scanRefs(commonDir, prefix, valid, nil)
	return refs, order, bad, err
}

// StampedRef is a loose ref's value as read from its file, with the file's stamp when it was read.
type StampedRef struct {
	Hash  Hash
	Stamp string
}

// ScanRefsKnown is ScanRefs that opens a loose ref's file only when its stamp (inode, size,
// modification time, one stat) differs from the one known gives for that name: a thousand opens
// and reads were most of a scan, and a caller that keeps what it read needs only the refs that
// moved. stamps returns each loose ref's stamp as read, "" where it is not to be kept: a file
// younger than a clock tick can be rewritten in place with its stamp unchanged.
func ScanRefsKnown(commonDir, prefix string, valid func(rest string) bool, known map[string]StampedRef) (refs map[string]Hash, order []string, stamps map[string]string, err error) {
	if refsViaGit(commonDir) { // no file to stamp: nothing is kept
		refs, order, _, err = gitScanRefs(commonDir, prefix, valid)
		return refs, order, map[string]string{}, err
	}
	if known == nil {
		known = map[string]StampedRef{}
	}
	refs, order, _, stamps, err = scanRefs(commonDir, prefix, valid, known)
	return refs, order, stamps, err
}

// scanLooseKnown is the loose half of ScanRefsKnown: workflow ids cannot hold a '/', so only the
// files directly under root are refs (a subdirectory's files have names that are not valid, and
// are skipped as ScanRefs skips them). The directory is read unsorted, each file stamped relative
// to the directory (one path component to resolve, on a few goroutines), and only the files whose
// stamp is new, differs from known's or is not to be kept are read; out gets every loose value.
func scanLooseKnown(root, prefix string, valid func(rest string) bool, known map[string]StampedRef, out map[string]Hash) (map[string]string, error) {
	dir, err := os.Open(root)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]string{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", prefix, err)
	}
	defer dir.Close()
	entries, err := dir.ReadDir(-1)
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", prefix, err)
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() || strings.HasSuffix(n, ".lock") {
			continue
		}
		if valid != nil && !valid(n) {
			delete(out, prefix+n)
			continue
		}
		names = append(names, n)
	}
	// The stamp is taken before the file is read: a write after it moves the stamp, so the next
	// scan reads the file again.
	stamps, gone := stampFiles(dir, names, time.Now())
	type looseRef struct {
		name    string
		content []byte
		err     error
	}
	var loose []looseRef
	for i, n := range names {
		if gone[i] {
			continue // deleted (or packed) since the directory was read; packed was read first
		}
		if k, ok := known[prefix+n]; ok && stamps[i] != "" && k.Stamp == stamps[i] {
			out[prefix+n] = k.Hash
			continue
		}
		loose = append(loose, looseRef{name: n})
	}
	Parallel(len(loose), 64, func(i int) {
		loose[i].content, loose[i].err = readFile(filepath.Join(root, loose[i].name), 128)
	})
	stampOf := make(map[string]string, len(names))
	for i, n := range names {
		if !gone[i] {
			stampOf[prefix+n] = stamps[i]
		}
	}
	for _, r := range loose {
		name := prefix + r.name
		if errors.Is(r.err, fs.ErrNotExist) {
			delete(stampOf, name)
			continue
		}
		if r.err != nil {
			return nil, fmt.Errorf("list %s: %w", prefix, r.err)
		}
		h, reason := parseLooseRef(r.content)
		if reason != "" {
			// The loose file hides any packed value, as in git: the ref is broken.
			delete(out, name)
			delete(stampOf, name)
			continue
		}
		out[name] = h
	}
	return stampOf, nil
}

// scanRefs reads the refs under prefix; with known (not nil) it stamps each loose file first and
// takes known's value for an unchanged stamp, returning the stamps.
func scanRefs(commonDir, prefix string, valid func(rest string) bool, known map[string]StampedRef) (map[string]Hash, []string, []BadRef, map[string]string, error) {
	packed, order, bad, err := readPackedRefs(commonDir, prefix)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	out := packed
	if out == nil {
		out = make(map[string]Hash, len(known))
	}
	for _, name := range order { // in the file's order, so the bad ones are reported in it too
		if h, ok := out[name]; ok && valid != nil && !valid(strings.TrimPrefix(name, prefix)) {
			bad = append(bad, BadRef{Name: name, Reason: "is packed under a name that is not a workflow id", Fix: dropLineFix(filepath.Join(commonDir, "packed-refs"), h.String()+" "+name)})
			delete(out, name)
		}
	}
	root := filepath.Join(commonDir, filepath.FromSlash(prefix))
	type looseRef struct {
		name, path string
		content    []byte
		err        error
	}
	if known != nil {
		stamps, err := scanLooseKnown(root, prefix, valid, known, out)
		if err != nil {
			return nil, nil, nil, nil, err
		}
		return out, SortedNames(out), bad, stamps, nil
	}
	var loose []looseRef
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if d.IsDir() || strings.HasSuffix(p, ".lock") {
			return nil
		}
		rel, err := filepath.Rel(commonDir, p)
		if err != nil {
			return err
		}
		name := filepath.ToSlash(rel)
		if valid != nil && !valid(strings.TrimPrefix(name, prefix)) {
			bad = append(bad, BadRef{Name: name, Reason: "is not a workflow id", Fix: removeFileFix(p)})
			delete(out, name)
			return nil
		}
		loose = append(loose, looseRef{name: name, path: p})
		return nil
	})
	if err != nil {
		return nil, nil, nil, nil, fmt.Errorf("list %s: %w", prefix, err)
	}
	// The files are read on a few goroutines: each read is three system calls, and with a thousand
	// workflows they are most of list's time.
	Parallel(len(loose), 64, func(i int) { loose[i].content, loose[i].err = readFile(loose[i].path, 128) })
	for _, r := range loose {
		if errors.Is(r.err, fs.ErrNotExist) {
			continue // deleted (or packed) since the directory was read; packed was read first
		}
		if r.err != nil {
			return nil, nil, nil, nil, fmt.Errorf("list %s: %w", prefix, r.err)
		}
		h, reason := parseLooseRef(r.content)
		if reason != "" {
			// The loose file hides any packed value, as in git: the ref is broken, not the packed one.
			bad = append(bad, BadRef{Name: r.name, Reason: reason, Fix: removeFileFix(r.path)})
			delete(out, r.name)
			continue
		}
		out[r.name] = h
	}

	// git keeps packed-refs sorted, so with no loose ref and nothing skipped the names are in
	// order already (checked, not trusted): sorting a thousand was a sixth of list's own time.
	if len(loose) > 0 || len(order) != len(out) || !slices.IsSorted(order) {
		order = SortedNames(out)
	}
	return out, order, bad, nil, nil
}

// removeFileFix is the shell command that deletes a file (a bad loose ref, a stale lock).
func removeFileFix(path string) string { return "rm -f -- " + shellQuote(path) }

// dropLineFix is the shell command that deletes one exact line from a file: grep -x -F matches the
// whole line as a fixed string, so nothing in it needs escaping beyond the shell's quotes.
func dropLineFix(path, line string) string {
	q := shellQuote(path)
	return fmt.Sprintf("grep -v -x -F -e %s %s > %s.new; mv %s.new %s", shellQuote(line), q, q, q, q)
}

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// sortedNames returns the keys of a ref map in order.
func SortedNames(m map[string]Hash) []string {
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// RefLock is git's own lock on one ref (<ref>.lock, created exclusively): while it is held no
// git process and no other writer can move the ref.
//
// Where refs go through git (refs_git.go) no lock can be held across processes: the lock notes the
// ref's value instead, and Commit is a compare-and-swap from it, ErrStale if the ref moved.
type RefLock struct {
	commonDir, name, refPath, lockPath string
	done                               bool
	inProcess                          *sync.Mutex // held with the lock file (refLockQueue)

	viaGit bool
	old    Hash
}

// LockRef takes name's lock (see RefLock).
func LockRef(commonDir, name string) (*RefLock, error) {
	if refsViaGit(commonDir) {
		old, _, err := gitReadRef(commonDir, name)
		if err != nil {
			return nil, err
		}
		return &RefLock{commonDir: commonDir, name: name, viaGit: true, old: old}, nil
	}
	refPath := filepath.Join(commonDir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(refPath), 0o777); err != nil {
		return nil, fmt.Errorf("update %s: %w", name, err)
	}
	mu := refLockQueue(refPath + ".lock")
	mu.Lock()
	if err := acquireLock(refPath + ".lock"); err != nil {
		mu.Unlock()
		return nil, fmt.Errorf("update %s: %w", name, err)
	}
	return &RefLock{commonDir: commonDir, name: name, refPath: refPath, lockPath: refPath + ".lock", inProcess: mu}, nil
}

// refLocks holds one mutex per lock file this process has taken.
var refLocks sync.Map // lock path → *sync.Mutex

// refLockQueue is the mutex writers of this process take before a ref's lock file. Polling the
// file is not fair: a goroutine that waited for the lock could lose it again and again to others
// of the same process releasing and re-taking it at once, until lockWait passed and it failed
// with ErrLocked although no other process held anything (issue 41: gitstore's pessimistic
// writers under -race). A sync.Mutex hands the lock over in order once a waiter starves, so the
// file is only ever contended by other processes, for which lockWait is meant.
func refLockQueue(lockPath string) *sync.Mutex {
	mu, _ := refLocks.LoadOrStore(lockPath, new(sync.Mutex))
	return mu.(*sync.Mutex)
}

// commit writes the new value into the lock file and renames it over the ref: a crash leaves the
// old or the new value, never a torn one. A zero value deletes the ref.
func (l *RefLock) Commit(newH Hash) error {
	if l.viaGit {
		l.done = true
		return gitCasRef(l.commonDir, l.name, newH, l.old)
	}
	if newH.IsZero() {
		err := deleteRefLocked(l.commonDir, l.name, l.refPath)
		l.Release()
		return err
	}
	// The new value goes into a file of its own, renamed over the ref while the lock is held, and
	// only then is the lock removed: the lock keeps naming its owner to the end, so whatever
	// instant a SIGKILL hits, what is left names a dead process (see StaleFiles). The file's name
	// ends in .lock, which git skips when it lists refs, and holds a '~', which no ref name does.
	tmp, err := os.CreateTemp(filepath.Dir(l.refPath), filepath.Base(l.refPath)+"~"+ownerTag()+"*.lock")
	if err != nil {
		return fmt.Errorf("update %s: %w", l.name, err)
	}
	_, err = tmp.WriteString(newH.String() + "\n")
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), l.refPath)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("update %s: %w", l.name, err)
	}
	l.Release()
	return nil
}

// release drops the lock without changing the ref (a no-op after commit).
func (l *RefLock) Release() {
	if !l.done && !l.viaGit {
		os.Remove(l.lockPath)
		l.done = true
		l.inProcess.Unlock()
	}
}

// casRef moves name from old to new (old zero: the ref must not exist; new zero: delete it) under
// the ref's lock, checking the current value under the lock, so it interoperates with any git
// process touching the same ref. A crash leaves either the old or the new value, plus at worst a
// stale lock file, which the next writer's error names.
func CasRef(commonDir, name string, newH, oldH Hash) error {
	if refsViaGit(commonDir) {
		return gitCasRef(commonDir, name, newH, oldH)
	}
	l, err := LockRef(commonDir, name)
	if err != nil {
		return err
	}
	defer l.Release()
	cur, exists, err := ReadRef(commonDir, name)
	if err != nil {
		return err
	}
	if (oldH.IsZero() && exists) || (!oldH.IsZero() && cur != oldH) {
		return ErrStale
	}
	return l.Commit(newH)
}

// acquireLock creates lockPath exclusively, naming its owner in it. A lock already there is
// waited for, up to lockWait, unless its owner is provably gone (see removeIfStale): then it is
// removed and taken, so a writer killed while holding it never makes the next one fail.
//
// The owner is written once to a file of its own, which is then hard-linked as the lock (link, like
// O_EXCL, fails when the name exists): no instant shows an empty lock whose owner is unknown, and
// each attempt while waiting is one system call. Where hard links are not supported, O_EXCL and a
// write.
func acquireLock(lockPath string) error {
	owner, err := os.CreateTemp(filepath.Dir(lockPath), filepath.Base(strings.TrimSuffix(lockPath, ".lock"))+"~"+ownerTag()+"*.lock")
	if err != nil {
		return err
	}
	defer os.Remove(owner.Name())
	_, err = owner.Write(lockOwner())
	if cerr := owner.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	deadline := time.Now().Add(lockWait)
	backoff := 100 * time.Microsecond
	nextCheck := time.Now().Add(10 * time.Millisecond)
	for {
		err := os.Link(owner.Name(), lockPath)
		if err != nil && !errors.Is(err, fs.ErrExist) {
			err = createLockExcl(lockPath)
		}
		if err == nil || !errors.Is(err, fs.ErrExist) {
			return err
		}
		if now := time.Now(); now.After(nextCheck) {
			nextCheck = now.Add(50 * time.Millisecond)
			if removeIfStale(lockPath) {
				continue
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%w: %s exists and its owner is alive, or unknown and the lock is younger than %s; another git process may be running. If none is, a crashed one left it: remove it with `%s`", ErrLocked, lockPath, StaleLockAge, removeFileFix(lockPath))
		}
		time.Sleep(backoff)
		if backoff < 5*time.Millisecond {
			backoff *= 2
		}
	}
}

// createLockExcl is acquireLock's fallback where hard links fail.
func createLockExcl(lockPath string) error {
	f, err := os.OpenFile(lockPath, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
	if err != nil {
		return err
	}
	_, err = f.Write(lockOwner())
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// ErrLocked means a ref's lock file stayed in place longer than lockWait.
var ErrLocked = errors.New("ref is locked")

// deleteRefLocked deletes a ref while its lock is held: the loose file and its packed-refs line.
// Only `git update-ref -d` knows how to rewrite packed-refs safely against concurrent pack-refs,
// so the packed case goes through it after releasing our lock.
func deleteRefLocked(commonDir, name, refPath string) error {
	if err := os.Remove(refPath); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("delete %s: %w", name, err)
	}
	if _, ok, err := readPackedRef(commonDir, name); err != nil || !ok {
		return err
	}
	os.Remove(refPath + ".lock")
	if _, err := runGit(commonDir, commonDir, nil, nil, "update-ref", "-d", name); err != nil {
		return fmt.Errorf("delete packed %s: %w", name, err)
	}
	return nil
}
