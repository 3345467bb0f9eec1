package hookrun

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/exarchos/git-exarchos/gitrepo"
	"github.com/exarchos/git-exarchos/guards"
	"github.com/exarchos/git-exarchos/hooks"
)

// RecordInstalled records the content an installer left in file (an absolute path), when file is
// one of guards.InstalledFiles at the top of its worktree: paths-allowed and the hook's effects
// check then do not count it against a phase while it holds that content. Every installer calls
// it after writing, and also when it found nothing to change (a file installed by an older
// version is recorded on the next install).
func RecordInstalled(file string) error {
	loc, err := gitrepo.Discover(filepath.Dir(file))
	if err != nil || loc.WorkTree == "" {
		return nil // outside any worktree (user scope): nothing a phase counts
	}
	rel, err := filepath.Rel(loc.WorkTree, file)
	if err != nil || !guards.IsInstalledFile(filepath.ToSlash(rel)) {
		return nil
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return fmt.Errorf("record what was installed in %s: %w", file, err)
	}
	if err := loc.RecordInstalled(filepath.ToSlash(rel), b); err != nil {
		return fmt.Errorf("record what was installed in %s: %w", file, err)
	}
	return nil
}

// InstalledAsWritten (hooks.InstalledFacts): whether the installed file c names holds what its
// installer wrote, in the worktree at w.Root or, for a change the branch committed, at HEAD.
func (h *hookRepo) InstalledAsWritten(w hooks.Bound, c hooks.Change) bool {
	loc, err := gitrepo.Discover(w.Root)
	if err != nil {
		return false
	}
	var content []byte
	if c.Where == "branch" {
		out, err := loc.Git(nil, "cat-file", "blob", "HEAD:"+c.Path)
		if err != nil {
			return false
		}
		content = []byte(out)
	} else if content, err = os.ReadFile(filepath.Join(w.Root, filepath.FromSlash(c.Path))); err != nil {
		return false
	}
	same, err := loc.InstalledAsWritten(c.Path, content)
	return err == nil && same
}
