package guidance

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/exarchos/git-exarchos/internal/atomicfile"
)

// block is a section as it stands in its file.
func block(section []byte) []byte {
	return []byte(Begin + "\n" + string(section) + End + "\n")
}

// cut splits a file around exarchos's section: before, the section with its markers, after; ok is
// false when the file has no complete section.
func cut(b []byte) (before, sec, after []byte, ok bool) {
	i := bytes.Index(b, []byte(Begin))
	if i < 0 {
		return b, nil, nil, false
	}
	j := bytes.Index(b[i:], []byte(End))
	if j < 0 {
		return b, nil, nil, false
	}
	end := i + j + len(End)
	if end < len(b) && b[end] == '\n' {
		end++
	}
	return b[:i], b[i:end], b[end:], true
}

// want is what f's file should hold, given what it holds now (nil: no file).
func (f File) want(current []byte) []byte {
	if !f.Section {
		return f.Body
	}
	before, _, after, ok := cut(current)
	if !ok {
		if len(bytes.TrimSpace(current)) == 0 {
			return block(f.Body)
		}
		return append(append(bytes.TrimRight(current, "\n"), '\n', '\n'), block(f.Body)...)
	}
	return append(append(append([]byte{}, before...), block(f.Body)...), after...)
}

// Current reports whether f's file holds what this version writes (for a section: the section).
func (f File) Current() bool {
	b, err := os.ReadFile(f.Path)
	return err == nil && bytes.Equal(b, f.want(b))
}

// Install writes the files that are not current and returns their paths. A section goes into its
// file between the markers; the user's text around it is kept.
func Install(files []File) ([]string, error) {
	var changed []string
	for _, f := range files {
		current, err := os.ReadFile(f.Path)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return changed, fmt.Errorf("read %s: %w", f.Path, err)
		}
		want := f.want(current)
		if err == nil && bytes.Equal(current, want) {
			continue
		}
		if err := os.MkdirAll(filepath.Dir(f.Path), 0o755); err != nil {
			return changed, fmt.Errorf("create %s: %w", filepath.Dir(f.Path), err)
		}
		if err := atomicfile.Write(f.Path, want, 0o644); err != nil {
			return changed, fmt.Errorf("write %s: %w", f.Path, err)
		}
		changed = append(changed, f.Path)
	}
	return changed, nil
}

// Uninstall removes the files (a section is cut out of its file, which goes only when nothing of
// the user's is left), then the directories that held only them, and returns what it changed.
func Uninstall(files []File) ([]string, error) {
	var changed []string
	for _, f := range files {
		current, err := os.ReadFile(f.Path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return changed, fmt.Errorf("read %s: %w", f.Path, err)
		}
		if f.Section {
			before, _, after, ok := cut(current)
			if !ok {
				continue
			}
			rest := append(append(bytes.TrimRight(before, "\n"), '\n'), after...) // the blank line install added goes
			if len(bytes.TrimSpace(rest)) > 0 {
				if err := atomicfile.Write(f.Path, rest, 0o644); err != nil {
					return changed, fmt.Errorf("write %s: %w", f.Path, err)
				}
				changed = append(changed, f.Path)
				continue
			}
		}
		if err := os.Remove(f.Path); err != nil {
			return changed, fmt.Errorf("remove %s: %w", f.Path, err)
		}
		changed = append(changed, f.Path)
		// The skill's directory, commands/exarchos, the extension's: gone once empty (a directory
		// that still holds anything stays).
		for d, i := filepath.Dir(f.Path), 0; i < 3 && os.Remove(d) == nil; d, i = filepath.Dir(d), i+1 {
		}
	}
	return changed, nil
}
