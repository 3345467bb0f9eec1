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

// fileID is what tells one version of a file from another without reading it.
type fileID struct {
	size  int64
	mtime int64
}

func statID(path string) (fileID, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return fileID{}, err
	}
	return fileID{size: fi.Size(), mtime: fi.ModTime().UnixNano()}, nil
}

// mapWhole reads the whole file at path.
func mapWhole(path string) ([]byte, error) { return os.ReadFile(path) }
