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
