// Package atomicfile writes a file so that a reader sees its old content or its new, never half of
// it, and so that a kill leaves no copy behind: on Linux the content goes to an unnamed file
// (O_TMPFILE) in the same directory, which gets a temporary name only for the instant before it
// is renamed over the path; elsewhere, to a named temporary file. A copy left by a kill in that
// instant, or by a system without O_TMPFILE, is removed by the next write of the same path once
// it is a minute old (a younger one may be a concurrent writer's), on the named path only: the
// hooks write their cache through here, and reading a directory on every write would cost them.
//
// It may import the standard library, golang.org/x/sys/unix (O_TMPFILE, linkat) and internal/faults.
package atomicfile

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/exarchos/git-exarchos/internal/faults"
)

// Write writes content to path through a temporary file and a rename, creating the directory.
func Write(path string, content []byte, mode fs.FileMode) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	prefix := "." + filepath.Base(path) + ".tmp-"
	if f, err := createUnnamed(dir, mode); err == nil {
		tmp, err := fill(f, content, mode, func() (string, error) { return linkUnnamed(f, dir, prefix) })
		if err == nil {
			if err = os.Rename(tmp, path); err == nil {
				return nil
			}
			os.Remove(tmp)
			return fmt.Errorf("write %s: %w", path, err)
		}
		// No O_TMPFILE here after all (or no /proc to link it through): a named file.
	}
	removeStale(dir, prefix)
	f, err := os.CreateTemp(dir, prefix)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	tmp, err := fill(f, content, mode, func() (string, error) { return f.Name(), nil })
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// fill writes and closes f, and returns the name it is renamed from.
func fill(f *os.File, content []byte, mode fs.FileMode, name func() (string, error)) (string, error) {
	_, err := f.Write(content)
	if err == nil {
		err = f.Chmod(mode)
	}
	faults.Hit("atomicfile-written")
	tmp := ""
	if err == nil {
		tmp, err = name()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return tmp, err
}

// removeStale removes temporary copies of this path that a killed writer left.
func removeStale(dir, prefix string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), prefix) {
			continue
		}
		if fi, err := e.Info(); err == nil && time.Since(fi.ModTime()) > time.Minute {
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}
