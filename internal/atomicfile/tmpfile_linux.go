package atomicfile

import (
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"

	"golang.org/x/sys/unix"
)

// createUnnamed opens an unnamed file in dir (O_TMPFILE): a kill before it is linked leaves
// nothing. A file system without O_TMPFILE is an error, and the caller falls back to a named
// temporary file.
func createUnnamed(dir string, mode fs.FileMode) (*os.File, error) {
	fd, err := unix.Open(dir, unix.O_TMPFILE|unix.O_WRONLY|unix.O_CLOEXEC, uint32(mode.Perm()))
	if err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(fd), ""), nil
}

// linkUnnamed gives the unnamed file a temporary name in dir, through /proc (linkat with
// AT_EMPTY_PATH needs a capability an ordinary user lacks).
func linkUnnamed(f *os.File, dir, prefix string) (string, error) {
	for attempt := 0; attempt < 10; attempt++ {
		name := filepath.Join(dir, prefix+strconv.FormatUint(rand.Uint64(), 36))
		err := unix.Linkat(unix.AT_FDCWD, "/proc/self/fd/"+strconv.Itoa(int(f.Fd())), unix.AT_FDCWD, name, unix.AT_SYMLINK_FOLLOW)
		if err == nil {
			return name, nil
		}
		if err != unix.EEXIST {
			return "", fmt.Errorf("link the new file: %w", err)
		}
	}
	return "", fmt.Errorf("link the new file: no free temporary name")
}
