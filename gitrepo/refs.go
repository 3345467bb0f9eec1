package gitrepo

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
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
	b, err := os.ReadFile(filepath.Join(commonDir, filepath.FromSlash(name)))
	if err == nil {
		line := strings.TrimSpace(string(b))
		if strings.HasPrefix(line, "ref:") {
			return ZeroHash, false, fmt.Errorf("%s is a symbolic ref; exarchos refs must point at commits", name)
		}
		h, ok := ParseHash(line)
		if !ok || h.IsZero() {
			return ZeroHash, false, fmt.Errorf("%s holds %q, not a commit id: repair it with `git update-ref %s <commit>`", name, line, name)
		}
		return h, true, nil
	}
	if !errors.Is(err, fs.ErrNotExist) && !isDirErr(err) {
		return ZeroHash, false, fmt.Errorf("read %s: %w", name, err)
	}
	packed, err := readPackedRefs(commonDir, name)
	if err != nil {
		return ZeroHash, false, err
	}
	h, ok := packed[name]
	return h, ok, nil
}

func isDirErr(err error) bool {
	var pe *fs.PathError
	return errors.As(err, &pe) && strings.Contains(pe.Err.Error(), "is a directory")
}

// readPackedRefs returns the packed refs whose names start with prefix.
func readPackedRefs(commonDir, prefix string) (map[string]Hash, error) {
	f, err := os.Open(filepath.Join(commonDir, "packed-refs"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read packed-refs: %w", err)
	}
	defer f.Close()
	out := map[string]Hash{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		line := sc.Bytes()
		if len(line) == 0 || line[0] == '#' || line[0] == '^' {
			continue
		}
		id, name, ok := bytes.Cut(line, []byte(" ")) // 40 or 64 hex digits, by the repository's hash
		if !ok || !strings.HasPrefix(string(name), prefix) {
			continue
		}
		if h, ok := ParseHash(string(id)); ok && !h.IsZero() {
			out[string(name)] = h
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read packed-refs: %w", err)
	}
	return out, nil
}

// listRefs returns every ref under prefix (e.g. "refs/exarchos/"), loose refs overriding packed ones.
func ListRefs(commonDir, prefix string) (map[string]Hash, error) {
	out, err := readPackedRefs(commonDir, prefix)
	if err != nil {
		return nil, err
	}
	if out == nil {
		out = map[string]Hash{}
	}
	root := filepath.Join(commonDir, filepath.FromSlash(prefix))
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
		h, ok, err := ReadRef(commonDir, name)
		if err != nil {
			return err
		}
		if ok {
			out[name] = h
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", prefix, err)
	}
	return out, nil
}

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
type RefLock struct {
	commonDir, name, refPath, lockPath string
	f                                  *os.File
	done                               bool
}

func LockRef(commonDir, name string) (*RefLock, error) {
	refPath := filepath.Join(commonDir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(refPath), 0o777); err != nil {
		return nil, fmt.Errorf("update %s: %w", name, err)
	}
	f, err := acquireLock(refPath + ".lock")
	if err != nil {
		return nil, fmt.Errorf("update %s: %w", name, err)
	}
	return &RefLock{commonDir: commonDir, name: name, refPath: refPath, lockPath: refPath + ".lock", f: f}, nil
}

// commit writes the new value into the lock file and renames it over the ref: a crash leaves the
// old or the new value, never a torn one. A zero value deletes the ref.
func (l *RefLock) Commit(newH Hash) error {
	if newH.IsZero() {
		l.f.Close()
		err := deleteRefLocked(l.commonDir, l.name, l.refPath)
		l.Release()
		return err
	}
	if _, err := l.f.WriteString(newH.String() + "\n"); err != nil {
		return fmt.Errorf("update %s: write lock: %w", l.name, err)
	}
	if err := l.f.Close(); err != nil {
		return fmt.Errorf("update %s: close lock: %w", l.name, err)
	}
	if err := os.Rename(l.lockPath, l.refPath); err != nil {
		return fmt.Errorf("update %s: %w", l.name, err)
	}
	l.done = true
	return nil
}

// release drops the lock without changing the ref (a no-op after commit).
func (l *RefLock) Release() {
	if !l.done {
		l.f.Close()
		os.Remove(l.lockPath)
		l.done = true
	}
}

// casRef moves name from old to new (old zero: the ref must not exist; new zero: delete it) under
// the ref's lock, checking the current value under the lock, so it interoperates with any git
// process touching the same ref. A crash leaves either the old or the new value, plus at worst a
// stale lock file, which the next writer's error names.
func CasRef(commonDir, name string, newH, oldH Hash) error {
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

func acquireLock(lockPath string) (*os.File, error) {
	deadline := time.Now().Add(lockWait)
	backoff := 100 * time.Microsecond
	for {
		f, err := os.OpenFile(lockPath, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
		if err == nil {
			return f, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, err
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("%w: %s exists; another git process may be running. If none is, a crashed one left it: remove it with `rm %s`", ErrLocked, lockPath, lockPath)
		}
		time.Sleep(backoff)
		if backoff < 5*time.Millisecond {
			backoff *= 2
		}
	}
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
	packed, err := readPackedRefs(commonDir, name)
	if err != nil {
		return err
	}
	if _, ok := packed[name]; !ok {
		return nil
	}
	os.Remove(refPath + ".lock")
	if _, err := runGit(commonDir, commonDir, nil, nil, "update-ref", "-d", name); err != nil {
		return fmt.Errorf("delete packed %s: %w", name, err)
	}
	return nil
}
