//go:build unix

package gitrepo

import (
	"io/fs"
	"math"
	"os"
	"strconv"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// readFile reads a small file (a loose ref or object) with open, read and close. os.ReadFile also
// stats the file and registers it with the runtime poller, about twice the system calls; list
// reads a thousand refs and a thousand commits, and these calls are most of its time. Together with
// that stop's parallel reads and trimmed commit parse, list of 1,000 loose workflows went from 44.9
// to 22.7 ms (BENCHMARKS.md, "Speed work on issues 11 and 14's open targets").
func readFile(path string, sizeHint int) ([]byte, error) {
	return readFileInto(path, make([]byte, 0, max(sizeHint, 64)))
}

// readFileInto is readFile appending to buf, which it grows as needed.
func readFileInto(path string, buf []byte) ([]byte, error) {
	fd, err := openRead(path)
	if err != nil {
		return nil, err
	}
	defer syscall.Close(fd)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := syscall.Read(fd, buf[len(buf):cap(buf)])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, &fs.PathError{Op: "read", Path: path, Err: err}
		}
		if n == 0 {
			return buf, nil
		}
		buf = buf[:len(buf)+n]
	}
}

// openRead opens path for reading with one system call (retried when a signal interrupts it).
func openRead(path string) (int, error) {
	for {
		fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
		if err == nil {
			return fd, nil
		}
		if err != syscall.EINTR {
			return -1, &fs.PathError{Op: "open", Path: path, Err: err}
		}
	}
}

// inode is the device and inode number of a stat result.
func inode(fi os.FileInfo) (dev, ino uint64) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Dev), uint64(st.Ino)
	}
	return 0, 0
}

// mapWhole maps the file at path read-only. The mapping is never unmapped: slices of it are
// handed out, and a process maps few files this way (packed-refs). git replaces such files by a
// rename, never truncating them in place, so the pages stay valid.
func mapWhole(path string) ([]byte, error) {
	fd, err := openRead(path)
	if err != nil {
		return nil, err
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return nil, &fs.PathError{Op: "fstat", Path: path, Err: err}
	}
	if st.Size == 0 {
		return []byte{}, nil
	}
	b, err := syscall.Mmap(fd, 0, int(st.Size), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, &fs.PathError{Op: "mmap", Path: path, Err: err}
	}
	return b, nil
}

// stampFiles names one version of each file in dir (inode, size, modification and change times), from an
// fstatat relative to dir on a few goroutines: a thousand lstats of whole paths were most of a
// scan of a thousand refs whose files it need not read. A stamp is "" when the file is younger
// than a clock tick (a second: file systems' clocks move in ticks, and a write within the tick
// leaves the stamp as it was); gone is true where the file no longer exists. A zero now stamps
// every file, however young (StampsIn).
func stampFiles(dir *os.File, names []string, now time.Time) (stamps []string, gone []bool) {
	stamps, gone = make([]string, len(names)), make([]bool, len(names))
	fd := int(dir.Fd())
	tick := now.Add(-time.Second).UnixNano()
	if now.IsZero() {
		tick = math.MaxInt64
	}
	Parallel(len(names), 64, func(i int) {
		var st unix.Stat_t
		var err error
		for {
			if err = unix.Fstatat(fd, names[i], &st, unix.AT_SYMLINK_NOFOLLOW); err != unix.EINTR {
				break
			}
		}
		if err != nil {
			gone[i] = true // a file that cannot be stamped is read, and its error reported, by the caller
			if err != unix.ENOENT {
				gone[i], stamps[i] = false, ""
			}
			return
		}
		mtime := st.Mtim.Nano()
		if mtime > tick {
			return
		}
		b := make([]byte, 0, 64)
		b = strconv.AppendUint(b, uint64(st.Dev), 10)
		b = append(b, ':')
		b = strconv.AppendUint(b, uint64(st.Ino), 10)
		b = append(b, ':')
		b = strconv.AppendInt(b, st.Size, 10)
		b = append(b, ':')
		b = strconv.AppendInt(b, mtime, 10)
		// The change time too: a file rewritten in place with its size and modification time
		// put back (os.utime, touch -r) keeps all of the above; no call sets the change time.
		b = append(b, ':')
		b = strconv.AppendInt(b, st.Ctim.Nano(), 10)
		stamps[i] = string(b)
	})
	return stamps, gone
}
