package hooks

import (
	"path/filepath"
	"strings"
)

// followSymlinks is ti with its target replaced by the file it names once symlinks are followed,
// so every check judges the file a file tool will really write (issue 38 item 7: an Edit of a
// design file that is a symlink to ~/.gitconfig writes ~/.gitconfig). A target that does not exist
// yet is judged by its directory's real path. A few lstat calls, on file tools only.
func (t ToolInput) followSymlinks(cwd string) ToolInput {
	target := t.target()
	if target == "" {
		return t
	}
	if !filepath.IsAbs(target) {
		target = filepath.Join(cwd, target)
	}
	target = filepath.Clean(target)
	real, err := filepath.EvalSymlinks(target)
	if err != nil {
		dir, derr := filepath.EvalSymlinks(filepath.Dir(target))
		if derr != nil {
			return t
		}
		real = filepath.Join(dir, filepath.Base(target))
	}
	if real == target {
		return t
	}
	// A working directory reached through a symlink (macOS's /tmp) is no redirection: a file
	// under its real path is named under the path the session uses.
	if realCwd, err := filepath.EvalSymlinks(cwd); err == nil && realCwd != cwd {
		if rel, err := filepath.Rel(realCwd, real); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			real = filepath.Join(cwd, rel)
		}
	}
	if real == target {
		return t
	}
	switch {
	case t.FilePath != "":
		t.FilePath = real
	case t.NotebookPath != "":
		t.NotebookPath = real
	default:
		t.Path = real
	}
	return t
}
