package gitrepo

// The ref and object lock files of git's protocol, by hand, because refs are moved in process
// (refs.go gives the measured reason: a `git update-ref` process per append). Naming the owner in
// the lock costs an append no measurable time ("Event-log robustness (issue 15)" in BENCHMARKS.md).

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// A writer killed while it holds a ref's lock, or while it writes an object, leaves the lock file
// or a tmp_obj_* file behind. Git names nothing in a ref lock (it holds the new value only once the
// update commits); like `git gc`'s gc.pid, our locks hold "<pid> <host>" until then, and our
// temporary objects carry the pid and a digest of the host in their names, so a leftover can be
// proved stale: its owner is dead on this host. Anything else left by a crash (git's own locks,
// another host's) is stale once older than a bound no live writer comes near.
const (
	// StaleLockAge is how old a ref lock of unknown or foreign owner must be to count as stale:
	// writers hold one for a single build, well under a second.
	StaleLockAge = 5 * time.Minute
	// StaleTmpAge is the same bound for temporary object files (git's prune waits far longer, but
	// counts only files git itself leaves).
	StaleTmpAge = time.Hour
)

var (
	hostOnce sync.Once
	hostName string
	hostTag  string
)

// host is this machine's name as git writes it in gc.pid, and a short digest of it for file names.
func host() (string, string) {
	hostOnce.Do(func() {
		hostName, _ = os.Hostname()
		if hostName == "" {
			hostName = "unknown"
		}
		sum := sha256.Sum256([]byte(hostName))
		hostTag = hex.EncodeToString(sum[:4])
	})
	return hostName, hostTag
}

// lockOwner is the content a lock holds while we own it: "<pid> <host>\n", gc.pid's format.
func lockOwner() []byte {
	name, _ := host()
	return []byte(fmt.Sprintf("%d %s\n", os.Getpid(), name))
}

// ownerTag is "<pid>-<host digest>-", which starts the random part of our temporary files' names.
func ownerTag() string {
	_, tag := host()
	return fmt.Sprintf("%d-%s-", os.Getpid(), tag)
}

// tmpObjectPattern names our temporary object files: tmp_obj_<pid>-<host digest>-<random>.
func TmpObjectPattern() string { return "tmp_obj_" + ownerTag() }

// taggedOwnerDead reads an ownerTag at the start of s: known says it is one of ours from this
// host, dead that its process is gone.
func taggedOwnerDead(s string) (known, dead bool) {
	_, tag := host()
	f := strings.SplitN(s, "-", 3)
	if len(f) != 3 || f[1] != tag {
		return false, false
	}
	pid, err := strconv.Atoi(f[0])
	if err != nil {
		return false, false
	}
	return true, ProcessDead(pid)
}

// staleLock says whether a lock file's owner is provably gone, and why.
func staleLock(content []byte, mod time.Time) (bool, string) {
	name, _ := host()
	if f := strings.Fields(string(content)); len(f) == 2 && bytes.HasSuffix(content, []byte("\n")) {
		if pid, err := strconv.Atoi(f[0]); err == nil && f[1] == name {
			if ProcessDead(pid) {
				return true, fmt.Sprintf("its owner, process %d on this host, is gone", pid)
			}
			return false, ""
		}
	}
	if age := time.Since(mod); age > StaleLockAge {
		return true, fmt.Sprintf("left %s ago by a process that did not name itself or runs on another host", age.Round(time.Second))
	}
	return false, ""
}

// removeIfStale removes the lock at path if its owner is provably gone; it reports whether it did.
// The file is judged and removed only if it is still the same file (another cleaner may have
// removed it and a live writer taken the lock since).
func removeIfStale(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return false
	}
	content := make([]byte, 512)
	n, _ := f.Read(content)
	if stale, _ := staleLock(content[:n], info.ModTime()); !stale {
		return false
	}
	if now, err := os.Stat(path); err != nil || !os.SameFile(info, now) {
		return false
	}
	return os.Remove(path) == nil
}

// StaleFile is a file a crashed writer left behind.
type StaleFile struct {
	Name   string // what to call it in a report: a lock's ref-relative path, or objects/
	Paths  []string
	Reason string
	Fix    string
}

// StaleFiles finds the ref locks (under every exarchos prefix, and packed-refs.lock, which a
// killed `git pack-refs` leaves) and temporary object files that crashed writers left behind, with a command that removes them. Live writers' files are not
// reported. Writers remove stale ref locks on their own when they meet one.
func (s *Repo) StaleFiles() ([]StaleFile, error) {
	var out []StaleFile
	for _, prefix := range []string{"refs/exarchos", "refs/exarchos-remotes", "refs/exarchos-tombstones", "refs/exarchos-rescue", "packed-refs.lock"} {
		root := filepath.Join(s.Loc.CommonDir, filepath.FromSlash(prefix))
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) {
					return nil
				}
				return err
			}
			if d.IsDir() || !strings.HasSuffix(p, ".lock") {
				return nil
			}
			content, err := os.ReadFile(p)
			info, serr := os.Stat(p)
			if err != nil || serr != nil {
				return nil // released meanwhile
			}
			stale, why := staleLock(content, info.ModTime())
			if _, tail, ok := strings.Cut(filepath.Base(p), "~"); ok {
				// A new ref value a writer had not yet renamed into place.
				known, dead := taggedOwnerDead(tail)
				stale, why = dead || (!known && time.Since(info.ModTime()) > StaleLockAge), "its writer is gone"
			}
			if stale {
				rel, _ := filepath.Rel(s.Loc.CommonDir, p)
				out = append(out, StaleFile{Name: filepath.ToSlash(rel), Paths: []string{p}, Reason: "stale ref lock: " + why + "; writers remove it when they meet it", Fix: removeFileFix(p)})
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("look for stale locks: %w", err)
		}
	}
	tmps, err := s.staleTmpObjects()
	if err != nil {
		return nil, err
	}
	if len(tmps) > 0 {
		quoted := make([]string, len(tmps))
		for i, p := range tmps {
			quoted[i] = shellQuote(p)
		}
		out = append(out, StaleFile{Name: "objects/", Paths: tmps, Reason: fmt.Sprintf("%d temporary object file(s) left by writers that died before renaming them into place (harmless: no ref points at them)", len(tmps)),
			Fix: "rm -f -- " + strings.Join(quoted, " ")})
	}
	return out, nil
}

// staleTmpObjects lists tmp_obj_* files under objects/ whose writer is provably gone: ours name
// their pid and host; any other is judged by age.
func (s *Repo) staleTmpObjects() ([]string, error) {
	var out []string
	dirs, err := filepath.Glob(filepath.Join(s.Loc.CommonDir, "objects", "*", "tmp_obj_*"))
	if err != nil {
		return nil, err
	}
	top, _ := filepath.Glob(filepath.Join(s.Loc.CommonDir, "objects", "tmp_obj_*"))
	for _, p := range append(dirs, top...) {
		info, err := os.Stat(p)
		if err != nil {
			continue
		}
		stale := time.Since(info.ModTime()) > StaleTmpAge
		if known, dead := taggedOwnerDead(strings.TrimPrefix(filepath.Base(p), "tmp_obj_")); known && dead {
			stale = true
		}
		if stale {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out, nil
}
