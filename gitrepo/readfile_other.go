//go:build !unix

package gitrepo

import "os"

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
