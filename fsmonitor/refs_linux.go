//go:build linux

package fsmonitor

// The watch of the repository's workflow refs, for the hook's watch of the controls (hookrun,
// hook_controls_refs.go): with 10,000 loose refs, stamping every ref file on every PostToolUse
// cost 10,000 fstatat and missed the hook's 15 ms (BENCHMARKS.md, "The controls' refs under the
// monitor"). The monitor also watches the common git dir's refs/exarchos/ (every directory under
// it), refs/ (for refs/exarchos itself) and the common git dir (for packed-refs and reftable/),
// and counts their changes apart from the tree's, so a `git status` answer kept under the tree's
// token is not thrown away by a ref move. The answer carries " <key>:<count>" where key names the
// common dir watched; RefsToken gives "<id> <count>" only to a caller naming the same common dir.
// A queue overflow, a watched directory removed or moved, or a directory created under
// refs/exarchos/ counts a change and watches the refs afresh. The timed rescan does not look at
// the refs: git writes a ref by renaming a lock file over it (an event), and a write in place is an
// IN_MODIFY; a write through a shared map or an outside hard link of a ref file is not seen here.

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// ErrRefsNotWatched is returned by RefsToken when the monitor of the tree does not watch the refs
// of that common git dir (an older monitor, another repository layout, or a watch that failed).
var ErrRefsNotWatched = errors.New("the file-system monitor does not watch these refs")

// refsWatch is what the monitor watches of the refs and the count of their changes.
type refsWatch struct {
	common string        // the common git dir ("" : none found)
	key    string        // refsKey(common) while watched, else ""
	seq    atomic.Uint64 // changes counted under key
	top    int32         // the common git dir
	refs   int32         // its refs/ (-1: none)
	dirs   map[int32]string
	// retired: watches dropped by watchRefs whose last events (IN_IGNORED closes them) may still
	// be queued; they are the refs' events, never the tree's.
	retired map[int32]bool
}

// watches reports whether wd is one of the refs' watches.
func (w *refsWatch) watches(wd int32) bool {
	if wd == w.top || wd == w.refs || w.retired[wd] {
		return true
	}
	_, ok := w.dirs[wd]
	return ok
}

// refsKey names a common git dir in the answer.
func refsKey(common string) string {
	sum := sha256.Sum256([]byte(filepath.Clean(common)))
	return hex.EncodeToString(sum[:12])
}

// refsToken is the answer's refs part, "" when the refs are not watched.
func (m *monitor) refsToken() string {
	if m.refs.key == "" {
		return ""
	}
	return " " + m.refs.key + ":" + strconv.FormatUint(m.refs.seq.Load(), 10)
}

// RefsToken returns the token of the refs of the common git dir common, as the monitor of the
// worktree at root watches them: its identity and the count of changes to refs/exarchos/,
// packed-refs and reftable/, after draining every queued event. It changes with every such change
// and whenever the monitor is another (restarted); ErrNotRunning when none listens,
// ErrRefsNotWatched when it does not watch common.
func RefsToken(root, common string) (string, error) {
	line, err := answer(root)
	if err != nil {
		return "", err
	}
	f := strings.Fields(line)
	if len(f) != 3 {
		return "", ErrRefsNotWatched
	}
	abs, err := filepath.Abs(common)
	if err != nil {
		return "", err
	}
	key, seq, ok := strings.Cut(f[2], ":")
	if !ok || key != refsKey(abs) {
		return "", ErrRefsNotWatched
	}
	return f[0] + " " + seq, nil
}

// commonGitDir is the common git dir of the worktree at root, as git lays it out: root/.git, or
// the directory a .git file names, and then the one its commondir file names ("" : none).
func commonGitDir(root string) string {
	dot := filepath.Join(root, ".git")
	fi, err := os.Lstat(dot)
	if err != nil {
		return ""
	}
	gitDir := dot
	if !fi.IsDir() {
		b, err := os.ReadFile(dot)
		p, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir: ")
		if err != nil || !ok {
			return ""
		}
		if !filepath.IsAbs(p) {
			p = filepath.Join(root, p)
		}
		gitDir = filepath.Clean(p)
	}
	if b, err := os.ReadFile(filepath.Join(gitDir, "commondir")); err == nil {
		p := strings.TrimSpace(string(b))
		if !filepath.IsAbs(p) {
			p = filepath.Join(gitDir, p)
		}
		return filepath.Clean(p)
	}
	return gitDir
}

// watchRefs watches the refs afresh, forgetting the watches of directories no longer there. When
// any watch fails, the refs are not watched (no refs token: callers stamp the refs themselves).
func (m *monitor) watchRefs() {
	old := m.refs.dirs
	oldTop, oldRefs := m.refs.top, m.refs.refs
	// A watch left from a failed try stays in the maps, so its events are still counted here.
	m.refs.key, m.refs.top, m.refs.refs, m.refs.dirs = "", -1, -1, map[int32]string{}
	defer func() {
		keep := func(wd int32) bool {
			_, ok := m.refs.dirs[wd]
			_, tree := m.dirs[wd]
			return ok || tree || wd == m.refs.top || wd == m.refs.refs
		}
		if m.refs.retired == nil {
			m.refs.retired = map[int32]bool{}
		}
		retire := func(wd int32) {
			if wd > 0 && !keep(wd) {
				_, _ = unix.InotifyRmWatch(m.fd, uint32(wd))
				m.refs.retired[wd] = true
			}
		}
		for wd := range old {
			retire(wd)
		}
		retire(oldTop)
		retire(oldRefs)
	}()
	common := m.refs.common
	// A common dir inside the tree (not its .git) would share its watches with the tree's.
	if common == "" || strings.HasPrefix(common+"/", m.root+"/") && !strings.HasPrefix(common+"/", filepath.Join(m.root, ".git")+"/") {
		return
	}
	add := func(p string, mask uint32) (int32, bool) {
		wd, err := unix.InotifyAddWatch(m.fd, p, mask|unix.IN_ONLYDIR)
		if err != nil {
			return -1, false
		}
		if _, tree := m.dirs[int32(wd)]; tree || int32(wd) == m.refs.top || int32(wd) == m.refs.refs {
			return -1, false
		}
		if _, dup := m.refs.dirs[int32(wd)]; dup {
			return -1, false
		}
		return int32(wd), true
	}
	var ok bool
	if m.refs.top, ok = add(common, unix.IN_CREATE|unix.IN_DELETE|unix.IN_MOVED_FROM|unix.IN_MOVED_TO|unix.IN_MODIFY|unix.IN_CLOSE_WRITE|unix.IN_ATTRIB|unix.IN_DELETE_SELF|unix.IN_MOVE_SELF); !ok {
		return
	}
	refsDir := filepath.Join(common, "refs")
	if m.refs.refs, ok = add(refsDir, unix.IN_CREATE|unix.IN_DELETE|unix.IN_MOVED_FROM|unix.IN_MOVED_TO|unix.IN_DELETE_SELF|unix.IN_MOVE_SELF); !ok {
		if _, err := os.Lstat(refsDir); err == nil {
			return // there but not watched
		}
		m.refs.refs = -1 // not there: its creation is an event of the common dir
	}
	failed := false
	_ = filepath.WalkDir(filepath.Join(refsDir, "exarchos"), func(p string, e fs.DirEntry, err error) error {
		switch {
		case err != nil && p == filepath.Join(refsDir, "exarchos") && errors.Is(err, fs.ErrNotExist):
			return nil // not there: its creation is an event of refs/
		case err != nil:
			failed = true
			return filepath.SkipAll
		case !e.IsDir():
			return nil
		}
		wd, ok := add(p, watchMask)
		if !ok {
			if _, err := os.Lstat(p); err != nil {
				return filepath.SkipDir // gone again: its removal is an event of its parent
			}
			failed = true
			return filepath.SkipAll
		}
		m.refs.dirs[wd] = p
		return nil
	})
	if !failed {
		m.refs.key = refsKey(common)
	}
}

// refsEvent counts an event of the refs' watches that may change a workflow ref, and reports
// whether the refs must be watched afresh (a directory created, removed or moved).
func (m *monitor) refsEvent(wd int32, mask uint32, name string) (rewatch bool) {
	if m.refs.retired[wd] {
		if mask&unix.IN_IGNORED != 0 {
			delete(m.refs.retired, wd)
		}
		m.countRefs()
		return false
	}
	structural := mask&(unix.IN_DELETE_SELF|unix.IN_MOVE_SELF|unix.IN_IGNORED) != 0 ||
		mask&unix.IN_ISDIR != 0 && mask&(unix.IN_CREATE|unix.IN_MOVED_TO|unix.IN_MOVED_FROM|unix.IN_DELETE) != 0
	switch wd {
	case m.refs.top:
		if name != "" && name != "packed-refs" && name != "refs" && name != "reftable" && !strings.HasPrefix(name, "packed-refs.") {
			return mask&(unix.IN_DELETE_SELF|unix.IN_MOVE_SELF|unix.IN_IGNORED) != 0 && m.countRefs()
		}
	case m.refs.refs:
		if name != "" && name != "exarchos" {
			return mask&(unix.IN_DELETE_SELF|unix.IN_MOVE_SELF|unix.IN_IGNORED) != 0 && m.countRefs()
		}
	}
	m.countRefs()
	return structural
}

// countRefs counts a change of the refs; it reports true, for refsEvent's conditions.
func (m *monitor) countRefs() bool {
	m.refs.seq.Add(1)
	return true
}
