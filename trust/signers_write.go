package trust

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/exarchos/git-exarchos/internal/atomicfile"
	"github.com/exarchos/git-exarchos/internal/faults"
)

// .exarchos/allowed_signers and .exarchos/roles are one rule: who may decide, and who may make
// which decision. `signers add` changes both, and a kill between two plain writes left roles empty
// (every restriction gone) or the two out of step. So they are written as one change: each new
// content is staged beside its file, then a journal naming them is renamed into place (the
// commit point), then each staged file is renamed over its file (roles first: a roles file ahead
// of its signers restricts, never widens), then the journal goes. The next `signers add` finishes
// a change whose journal exists, and drops staged files without one: a kill at any instant ends
// as both old or both new.

const (
	signersJournal = ".exarchos/.signers-change"
	stagedSuffix   = ".exarchos-new"
)

// writeSignerFiles writes the files (worktree-relative slash paths → content) as one change.
func writeSignerFiles(root string, order []string, content map[string][]byte) error {
	if err := finishSignerChange(root); err != nil {
		return err
	}
	for _, p := range order {
		if err := atomicfile.Write(filepath.Join(root, filepath.FromSlash(p))+stagedSuffix, content[p], 0o644); err != nil {
			return err
		}
	}
	faults.Hit("signers-staged")
	if err := atomicfile.Write(filepath.Join(root, filepath.FromSlash(signersJournal)), []byte(strings.Join(order, "\n")+"\n"), 0o644); err != nil {
		return err
	}
	faults.Hit("signers-committed")
	return finishSignerChange(root)
}

// FinishSignersChange completes a `signers add` a kill interrupted in the working tree at root
// (or drops what it staged before its commit point), so that what reads the signers next reads
// them whole and nothing of the change is left untracked (`setup` calls it before its signer step).
func FinishSignersChange(root string) error { return finishSignerChange(root) }

// finishSignerChange completes the change its journal names, or drops what was staged without
// one.
func finishSignerChange(root string) error {
	journal := filepath.Join(root, filepath.FromSlash(signersJournal))
	b, err := os.ReadFile(journal)
	if errors.Is(err, fs.ErrNotExist) {
		for _, p := range []string{RolesPath, AllowedSignersPath} {
			if err := os.Remove(filepath.Join(root, filepath.FromSlash(p)) + stagedSuffix); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return err
			}
		}
		return nil
	}
	if err != nil {
		return err
	}
	for i, p := range strings.Fields(string(b)) {
		if p != RolesPath && p != AllowedSignersPath {
			return fmt.Errorf("%s names %q, which signers add never writes: remove the file and run the command again", signersJournal, p)
		}
		dst := filepath.Join(root, filepath.FromSlash(p))
		if err := os.Rename(dst+stagedSuffix, dst); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("finish writing %s: %w", p, err) // a missing staged file was renamed before a kill
		}
		if i == 0 {
			faults.Hit("signers-half")
		}
	}
	return os.Remove(journal)
}
