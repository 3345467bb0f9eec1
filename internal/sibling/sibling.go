// Package sibling finds a companion binary of the running one: git-exarchos starts
// git-exarchos-mcp, whose tools run git-exarchos. `go install ./cmd/...` puts them side by side,
// so the one beside the running executable is preferred (same build), then the one on PATH.
//
// It may import the standard library only.
package sibling

import (
	"os"
	"os/exec"
	"path/filepath"
)

// Find returns the path of the program name: beside the running executable, else on PATH.
func Find(name string) (string, error) {
	if self, err := os.Executable(); err == nil {
		// LookPath with a separator checks that one file (and adds .exe on Windows).
		if p, err := exec.LookPath(filepath.Join(filepath.Dir(self), name)); err == nil {
			return p, nil
		}
	}
	return exec.LookPath(name)
}
