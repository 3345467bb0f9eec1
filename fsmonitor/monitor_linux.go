//go:build linux

package fsmonitor

import (
	"bytes"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/fnv"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"
)

// ErrAlreadyRunning is returned by Serve when another monitor watches the tree.
var ErrAlreadyRunning = errors.New("a file-system monitor already watches this working tree")

// watchMask is every event by which a directory's entries, or their content or mode, change.
const watchMask = unix.IN_MODIFY | unix.IN_ATTRIB | unix.IN_CLOSE_WRITE | unix.IN_CREATE | unix.IN_DELETE |
	unix.IN_MOVED_FROM | unix.IN_MOVED_TO | unix.IN_DELETE_SELF | unix.IN_MOVE_SELF | unix.IN_ONLYDIR | unix.IN_DONT_FOLLOW

// Token returns the token of the monitor watching root: its identity and the count of changes it
// has seen, after draining every queued event. ErrNotRunning when none listens.
func Token(root string) (string, error) {
	line, err := answer(root)
	if err != nil {
		return "", err
	}
	id, rest, _ := strings.Cut(line, " ")
	seq, _, _ := strings.Cut(rest, " ")
	return id + " " + seq, nil
}

// answer is the monitor's whole answer: "<id> <count>", then " <refs key>:<refs count>" when it
// watches the repository's workflow refs (refs_linux.go).
func answer(root string) (string, error) {
	root, err := canonical(root)
	if err != nil {
		return "", err
	}
	fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return "", fmt.Errorf("fsmonitor socket: %w", err)
	}
	defer unix.Close(fd)
	if err := unix.Connect(fd, &unix.SockaddrUnix{Name: socketName(root)}); err != nil {
		if errors.Is(err, unix.ECONNREFUSED) || errors.Is(err, unix.ENOENT) {
			return "", ErrNotRunning
		}
		return "", fmt.Errorf("connect to the fsmonitor of %s: %w", root, err)
	}
	// Only a monitor of our own user is believed: another user could bind the name first.
	cred, err := unix.GetsockoptUcred(fd, unix.SOL_SOCKET, unix.SO_PEERCRED)
	if err != nil {
		return "", fmt.Errorf("fsmonitor of %s: peer credentials: %w", root, err)
	}
	if int(cred.Uid) != os.Getuid() {
		return "", fmt.Errorf("the fsmonitor socket of %s belongs to uid %d, not to this user", root, cred.Uid)
	}
	// ... and only one that runs this very program: any other process that took the name (a
	// script answering a fixed token) is not a monitor, and the caller reads the tree itself.
	if theirs, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", cred.Pid)); err != nil || theirs != ownExe() {
		return "", fmt.Errorf("the fsmonitor socket of %s is held by process %d (%s), not by this program", root, cred.Pid, theirs)
	}
	tv := unix.NsecToTimeval((2 * time.Second).Nanoseconds())
	_ = unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &tv)
	var buf [256]byte
	n := 0
	for n < len(buf) {
		m, err := unix.Read(fd, buf[n:])
		if err != nil {
			if errors.Is(err, unix.EINTR) {
				continue
			}
			return "", fmt.Errorf("read the fsmonitor of %s: %w", root, err)
		}
		if m == 0 {
			break
		}
		n += m
	}
	line, ok := bytes.CutSuffix(buf[:n], []byte("\n"))
	if !ok || len(line) == 0 {
		return "", fmt.Errorf("the fsmonitor of %s answered %q", root, buf[:n])
	}
	return string(line), nil
}

// Capacity counts the directories a monitor of root would watch and reads the kernel's limit on
// inotify watches per user (fs.inotify.max_user_watches), for doctor.
func Capacity(root string) (dirs, limit int, err error) {
	b, err := os.ReadFile("/proc/sys/fs/inotify/max_user_watches")
	if err != nil {
		return 0, 0, fmt.Errorf("read the inotify watch limit: %w", err)
	}
	if limit, err = strconv.Atoi(strings.TrimSpace(string(b))); err != nil {
		return 0, 0, fmt.Errorf("read the inotify watch limit: %q", b)
	}
	err = walkTree(root, root, func(_ string, e fs.DirEntry) error {
		if e.IsDir() {
			dirs++
		}
		return nil
	})
	return dirs, limit, err
}

// ownExe is the program this process runs, as the kernel names it.
func ownExe() string {
	exe, _ := os.Readlink("/proc/self/exe")
	return exe
}

// canonical is the form of root both sides name the socket by.
func canonical(root string) (string, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return "", fmt.Errorf("fsmonitor root %s: %w", root, err)
	}
	return abs, nil
}

// monitor is the state of one Serve: the inotify instance, the watched directories and the count.
type monitor struct {
	root   string
	fd     int
	dirs   map[int32]string // watch descriptor → directory
	rootWD int32
	id     string
	seq    atomic.Uint64 // counted by the loop and by the rescan's goroutine
	refs   refsWatch     // the workflow refs of the repository (refs_linux.go)
	asked  atomic.Int64  // when a caller last asked (Unix nanoseconds)

	scan struct { // the timed rescan's last digest (see rescan)
		sync.Mutex
		digest uint64
		at     time.Time
		every  time.Duration
	}
}

// Serve watches root until it is removed or moved, or no caller asked for Options.Idle. It returns
// ErrAlreadyRunning when another monitor of root listens.
func Serve(root string, o Options) error {
	o = o.withDefaults()
	root, err := canonical(root)
	if err != nil {
		return err
	}
	ln, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC|unix.SOCK_NONBLOCK, 0)
	if err != nil {
		return fmt.Errorf("fsmonitor socket: %w", err)
	}
	defer unix.Close(ln)
	if err := unix.Bind(ln, &unix.SockaddrUnix{Name: socketName(root)}); err != nil {
		if errors.Is(err, unix.EADDRINUSE) {
			return ErrAlreadyRunning
		}
		return fmt.Errorf("fsmonitor bind: %w", err)
	}
	var rootStat unix.Stat_t // looked at again once a second: see the loop
	if err := unix.Stat(root, &rootStat); err != nil {
		return fmt.Errorf("fsmonitor: %w", err)
	}
	fd, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	if err != nil {
		return fmt.Errorf("inotify: %w", err)
	}
	defer unix.Close(fd)
	var idb [8]byte
	_, _ = rand.Read(idb[:])
	m := &monitor{root: root, fd: fd, dirs: map[int32]string{}, id: hex.EncodeToString(idb[:])}
	if err := m.walk(); err != nil {
		return err
	}
	if m.dirs[m.rootWD] != root {
		return fmt.Errorf("fsmonitor: %s is not a directory", root)
	}
	m.refs.common = commonGitDir(root)
	m.watchRefs()
	if o.Rescan > 0 {
		m.scan.every = o.Rescan
		m.rescan() // before the first token: a change after it is either an event or a new digest
	}
	if err := unix.Listen(ln, 64); err != nil {
		return fmt.Errorf("fsmonitor listen: %w", err)
	}
	if o.Ready != nil {
		o.Ready()
	}
	stop := make(chan struct{})
	defer close(stop)
	if o.Rescan > 0 {
		go m.rescanLoop(o.Pause, stop)
	}
	m.asked.Store(time.Now().UnixNano())
	lastLooked := time.Now()
	buf := make([]byte, 64<<10)
	pfd := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}, {Fd: int32(ln), Events: unix.POLLIN}}
	for {
		if _, err := unix.Poll(pfd, 1000); err != nil && !errors.Is(err, unix.EINTR) {
			return fmt.Errorf("fsmonitor poll: %w", err)
		}
		gone, err := m.drain(buf)
		if err != nil || gone {
			return err
		}
		for {
			c, _, err := unix.Accept4(ln, unix.SOCK_CLOEXEC)
			if err != nil {
				break // EAGAIN: no caller waiting
			}
			m.asked.Store(time.Now().UnixNano())
			if o.Rescan > 0 {
				m.rescanIfStale()
			}
			gone, err := m.drain(buf) // every event queued before the caller connected is counted
			token := m.id + " " + strconv.FormatUint(m.seq.Load(), 10) + m.refsToken() + "\n"
			if err == nil && !gone {
				_, _ = unix.Write(c, []byte(token))
			}
			unix.Close(c)
			if err != nil || gone {
				return err
			}
		}
		if time.Since(time.Unix(0, m.asked.Load())) > o.Idle {
			return nil
		}
		// A removed root whose directory entry a process still holds (a file open under it) reports
		// no event until it lets go, so the root is also looked at once a second.
		if time.Since(lastLooked) >= time.Second {
			lastLooked = time.Now()
			var st unix.Stat_t
			if unix.Stat(root, &st) != nil || st.Ino != rootStat.Ino || st.Dev != rootStat.Dev {
				return nil
			}
			// A reinstalled binary: callers running the new one would not believe this one.
			if strings.HasSuffix(ownExe(), " (deleted)") {
				return nil
			}
		}
	}
}

// drain reads every queued event, counts the changes, and watches new directories. gone is true
// when the root itself was removed or moved.
func (m *monitor) drain(buf []byte) (gone bool, err error) {
	rewalk, rewatchRefs := false, false
	for {
		n, err := unix.Read(m.fd, buf)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if errors.Is(err, unix.EAGAIN) || n <= 0 {
			break
		}
		if err != nil {
			return false, fmt.Errorf("read inotify: %w", err)
		}
		for off := 0; off+unix.SizeofInotifyEvent <= n; {
			wd := int32(binary.NativeEndian.Uint32(buf[off:]))
			mask := binary.NativeEndian.Uint32(buf[off+4:])
			nameLen := int(binary.NativeEndian.Uint32(buf[off+12:]))
			name := string(bytes.TrimRight(buf[off+unix.SizeofInotifyEvent:off+unix.SizeofInotifyEvent+nameLen], "\x00"))
			off += unix.SizeofInotifyEvent + nameLen
			switch {
			case mask&unix.IN_Q_OVERFLOW != 0: // events were lost, new directories among them perhaps
				rewalk, rewatchRefs = true, true
				m.seq.Add(1)
				m.refs.seq.Add(1)
			case m.refs.watches(wd):
				if m.refsEvent(wd, mask, name) {
					rewatchRefs = true
				}
			case wd == m.rootWD && mask&(unix.IN_DELETE_SELF|unix.IN_MOVE_SELF|unix.IN_IGNORED) != 0:
				return true, nil
			case mask&unix.IN_IGNORED != 0: // a watched directory is gone; its parent counted that
				delete(m.dirs, wd)
			case wd == m.rootWD && name == ".git": // the repository's own files are not the tree's
			default:
				m.seq.Add(1)
				dir, known := m.dirs[wd]
				switch {
				case mask&unix.IN_ISDIR != 0 && mask&(unix.IN_CREATE|unix.IN_MOVED_TO) != 0 && known:
					if err := m.watchTree(filepath.Join(dir, name)); err != nil {
						return false, err
					}
					if mask&unix.IN_MOVED_TO != 0 {
						rewalk = true // a directory moved within the tree: the paths under it changed
					}
				case mask&(unix.IN_MOVE_SELF) != 0 || mask&unix.IN_ISDIR != 0 && mask&unix.IN_MOVED_FROM != 0:
					rewalk = true
				}
			}
		}
	}
	if rewatchRefs {
		m.watchRefs()
	}
	if rewalk {
		return false, m.walk()
	}
	return false, nil
}

// walk watches every directory of the tree afresh, and forgets the watches of directories that
// are no longer in it (moved out).
func (m *monitor) walk() error {
	old := m.dirs
	m.dirs = map[int32]string{}
	if err := m.watchTree(m.root); err != nil {
		return err
	}
	for wd := range old {
		if _, ok := m.dirs[wd]; !ok {
			_, _ = unix.InotifyRmWatch(m.fd, uint32(wd))
		}
	}
	return nil
}

// watchTree watches dir and every directory under it.
func (m *monitor) watchTree(dir string) error {
	return walkTree(m.root, dir, func(p string, e fs.DirEntry) error {
		if !e.IsDir() {
			return nil
		}
		wd, err := unix.InotifyAddWatch(m.fd, p, watchMask)
		if errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ENOTDIR) {
			return filepath.SkipDir // gone again already; its removal is an event of its parent
		}
		if err != nil {
			return fmt.Errorf("watch %s: %w (raise fs.inotify.max_user_watches if the tree has more directories than it allows)", p, err)
		}
		m.dirs[int32(wd)] = p
		if p == m.root {
			m.rootWD = int32(wd)
		}
		return nil
	})
}

// walkTree calls visit for dir and every entry under it (a directory before what it holds), as
// git status sees the worktree at root: without the repository's own .git at the root, symbolic
// links not followed. An entry that is gone, or a directory that cannot be read, is left out:
// the watch of a directory the monitor cannot read has already failed.
func walkTree(root, dir string, visit func(path string, e fs.DirEntry) error) error {
	gitPath := filepath.Join(root, ".git")
	return filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return nil
		case p == gitPath && e.IsDir():
			return filepath.SkipDir
		case p == gitPath: // a linked worktree's .git file
			return nil
		}
		return visit(p, e)
	})
}

// rescanLoop digests every file's status on a timer and counts a change when the digest differs:
// the writes inotify does not report (a shared memory map, a hard link from outside the tree).
// It waits at least fifty times a scan's duration between scans, so it stays near 2% of a core,
// and it pauses when nobody asked for Options.Pause; the next question then rescans before it is
// answered (rescanIfStale), so the pause loses nothing.
func (m *monitor) rescanLoop(pause time.Duration, stop <-chan struct{}) {
	for {
		m.scan.Lock()
		every := m.scan.every
		m.scan.Unlock()
		select {
		case <-stop:
			return
		case <-time.After(every):
		}
		if time.Since(time.Unix(0, m.asked.Load())) < pause {
			m.rescan()
		}
	}
}

// rescan digests the tree now and counts a change when the digest differs from the last one.
func (m *monitor) rescan() {
	m.scan.Lock()
	defer m.scan.Unlock()
	t0 := time.Now()
	if d := m.digest(); d != m.scan.digest || m.scan.at.IsZero() {
		if !m.scan.at.IsZero() {
			m.seq.Add(1)
		}
		m.scan.digest = d
	}
	m.scan.at = time.Now()
	if took := m.scan.at.Sub(t0) * 50; took > m.scan.every {
		m.scan.every = took
	}
}

// rescanIfStale rescans before a question is answered when the timed rescan paused.
func (m *monitor) rescanIfStale() {
	m.scan.Lock()
	stale := time.Since(m.scan.at) > 2*m.scan.every
	m.scan.Unlock()
	if stale {
		m.rescan()
	}
}

// digest hashes the path, inode, size, mtime, ctime and mode of every entry of the tree.
func (m *monitor) digest() uint64 {
	h := fnv.New64a()
	var st unix.Stat_t
	var rec [36]byte
	_ = walkTree(m.root, m.root, func(p string, _ fs.DirEntry) error {
		if unix.Lstat(p, &st) != nil {
			return nil
		}
		h.Write([]byte(p))
		binary.LittleEndian.PutUint64(rec[0:], st.Ino)
		binary.LittleEndian.PutUint64(rec[8:], uint64(st.Size))
		binary.LittleEndian.PutUint64(rec[16:], uint64(st.Mtim.Nano()))
		binary.LittleEndian.PutUint64(rec[24:], uint64(st.Ctim.Nano()))
		binary.LittleEndian.PutUint32(rec[32:], st.Mode)
		h.Write(rec[:])
		return nil
	})
	return h.Sum64()
}
