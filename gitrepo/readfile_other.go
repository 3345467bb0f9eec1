//go:build !unix

package gitrepo

import (
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// readFile reads a small file (a loose ref or object).
func readFile(path string, _ int) ([]byte, error) { return os.ReadFile(path) }

// readFileInto is readFile appending to buf.
func readFileInto(path string, buf []byte) ([]byte, error) {
	b, err := os.ReadFile(path)
	return append(buf, b...), err
}

// inode is unknown here: a file is told by its size and modification time alone.
func inode(os.FileInfo) (dev, ino uint64) { return 0, 0 }

// mapWhole reads the whole file at path.
func mapWhole(path string) ([]byte, error) { return os.ReadFile(path) }

// stampFiles names one version of each file in dir (size, modification time; no inode here), ""
// when younger than a clock tick (a zero now: however young); gone is true where the file no longer
// exists.
func stampFiles(dir *os.File, names []string, now time.Time) (stamps []string, gone []bool) {
	stamps, gone = make([]string, len(names)), make([]bool, len(names))
	for i, n := range names {
		fi, err := os.Lstat(filepath.Join(dir.Name(), n))
		if os.IsNotExist(err) {
			gone[i] = true
			continue
		}
		if err != nil || !now.IsZero() && now.Sub(fi.ModTime()) < time.Second {
			continue
		}
		stamps[i] = fmt.Sprintf("%d:%d", fi.Size(), fi.ModTime().UnixNano())
	}
	return stamps, gone
}
