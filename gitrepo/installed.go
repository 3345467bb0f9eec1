package gitrepo

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/exarchos/git-exarchos/internal/atomicfile"
)

// What exarchos's installers wrote (hooks install --claude, mcp --install, setup): each records the
// content it left in a file of the worktree, so the paths-allowed guard and the hook's effects
// check can tell the file the installer wrote from one changed since (issue 32: an installed
// .claude/settings.json, untracked, made every planning phase refuse to move, and the fix offered
// stashed it, which uninstalled the hooks). The record is kept in the common git directory, out of
// the worktree: one "sha256 path<TAB>seal" a line, the path relative to the worktree's top.

func installedRecord(commonDir string) string {
	return filepath.Join(commonDir, "exarchos", "installed")
}

func contentSum(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// RecordInstalled records that an installer left content at path (relative to the worktree's top).
// Earlier contents stay recorded: another worktree may hold one of them. Each line is sealed
// (seal.go): a line appended by anything else is not believed (issue 38 item 6).
func (l Location) RecordInstalled(path string, content []byte) error {
	key, err := SealKey(RepoSealDir(l.CommonDir), true)
	if err != nil {
		return err
	}
	line := contentSum(content) + " " + filepath.ToSlash(path)
	rec := installedRecord(l.CommonDir)
	old, err := os.ReadFile(rec)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	for _, have := range strings.Split(string(old), "\n") {
		if have, seal, ok := strings.Cut(have, "\t"); ok && have == line && Sealed(key, []byte(have), seal) {
			return nil
		}
	}
	if err := os.MkdirAll(filepath.Dir(rec), 0o755); err != nil {
		return err
	}
	return atomicfile.Write(rec, append(old, line+"\t"+Seal(key, []byte(line))+"\n"...), 0o644)
}

// InstalledAsWritten reports whether content is what an installer recorded writing at path, on a
// sealed line.
func (l Location) InstalledAsWritten(path string, content []byte) (bool, error) {
	f, err := os.Open(installedRecord(l.CommonDir))
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	defer f.Close()
	key, err := SealKey(RepoSealDir(l.CommonDir), false)
	if err != nil {
		return false, nil // no key: nothing recorded was sealed
	}
	want := []byte(contentSum(content) + " " + filepath.ToSlash(path))
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line, seal, ok := bytes.Cut(sc.Bytes(), []byte{'\t'})
		if ok && bytes.Equal(line, want) && Sealed(key, line, string(seal)) {
			return true, nil
		}
	}
	return false, sc.Err()
}

// InstalledAsWritten (guards.InstallFacts): whether the installed file path, in the worktree that
// has branch checked out (commit "") or at commit, holds what an installer wrote.
func (f Facts) InstalledAsWritten(branch, path, commit string) (bool, error) {
	var content []byte
	if commit == "" {
		dir, _, err := f.WorktreeOf(branch)
		if err != nil || dir == "" {
			return false, err
		}
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(path)))
		if err != nil {
			return false, nil // deleted or unreadable: not what was installed
		}
		content = b
	} else if b, ok, err := f.FileAt(commit, path); err == nil && ok {
		content = b // read in process: no `git cat-file`
	} else {
		return false, nil // absent at commit
	}
	return f.s.Loc.InstalledAsWritten(path, content)
}
