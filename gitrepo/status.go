package gitrepo

import (
	"fmt"
	"strings"
)

// The one reader of `git status` output. Every status exarchos asks for is porcelain v2 with NUL
// terminators (statusArgs): v2 says HEAD's commit (--branch), a rename's two paths and an unmerged
// entry in fields of their own, and -z keeps a path as git stores it (spaces, newlines, quotes,
// no C quoting to undo).

// StatusEntry is one path `git status` lists.
type StatusEntry struct {
	Path string
	// From is a rename's or copy's source path (only when renames are detected).
	From string
	// Staged and Unstaged are git's X and Y: '.' for no change, else M, T, A, D, R, C (or U and
	// the like for an unmerged path). Both are '?' for an untracked path, '!' for an ignored one.
	Staged, Unstaged byte
	// Unmerged is a conflicted path; Submodule a path that is a submodule.
	Unmerged, Submodule bool
}

// Untracked reports whether the path is not tracked (and not ignored).
func (e StatusEntry) Untracked() bool { return e.Staged == '?' }

// Ignored reports whether the path is ignored (listed only with --ignored).
func (e StatusEntry) Ignored() bool { return e.Staged == '!' }

// StatusReport is what one `git status` says: HEAD's commit ("" on a branch with no commit yet;
// only with --branch) and each path that differs.
type StatusReport struct {
	Head    string
	Entries []StatusEntry
}

// Paths lists every path the report names (a rename's new path; its source is in From).
func (r StatusReport) Paths() []string {
	out := make([]string, 0, len(r.Entries))
	for _, e := range r.Entries {
		out = append(out, e.Path)
	}
	return out
}

// statusArgs is the one `git status` command line, with the caller's extra options. It never
// writes the index (--no-optional-locks): a background or guard read must not take index.lock
// from under the user's own git command.
func statusArgs(extra ...string) []string {
	return append([]string{"--no-optional-locks", "status", "--porcelain=v2", "-z", "--branch", "--untracked-files=all"}, extra...)
}

// StatusIn runs `git status` in the worktree at dir (found from dir as git finds it), with
// renames off: a rename counts as its two paths, each checked on its own.
func StatusIn(dir string) (StatusReport, error) {
	out, err := GitIn(dir, statusArgs("--no-renames")...)
	if err != nil {
		return StatusReport{}, err
	}
	return ParseStatus(out)
}

// ParseStatus reads the output of `git status --porcelain=v2 -z` (with or without --branch,
// renames, --ignored). A record it does not know is an error: what the worktree holds is never
// guessed.
func ParseStatus(out string) (StatusReport, error) {
	recs := strings.Split(out, "\x00")
	r := StatusReport{Entries: make([]StatusEntry, 0, len(recs))}
	for i := 0; i < len(recs); i++ {
		rec := recs[i]
		if rec == "" {
			continue
		}
		var e StatusEntry
		switch rec[0] {
		case '#':
			if oid, ok := strings.CutPrefix(rec, "# branch.oid "); ok && oid != "(initial)" {
				r.Head = oid
			}
			continue
		case '?', '!':
			if len(rec) < 3 || rec[1] != ' ' {
				return StatusReport{}, fmt.Errorf("git status: unreadable record %q", rec)
			}
			e = StatusEntry{Path: rec[2:], Staged: rec[0], Unstaged: rec[0]}
		case '1', '2', 'u':
			// 1 XY sub mH mI mW hH hI path; 2 … Xscore path, then the source path as the next
			// record; u XY sub m1 m2 m3 mW h1 h2 h3 path.
			n := 9
			switch rec[0] {
			case '2':
				n = 10
			case 'u':
				n = 11
			}
			path, ok := afterFields(rec, n-1)
			if !ok || len(rec) < 10 || rec[1] != ' ' || rec[4] != ' ' || rec[9] != ' ' || path == "" {
				return StatusReport{}, fmt.Errorf("git status: unreadable record %q", rec)
			}
			e = StatusEntry{Path: path, Staged: rec[2], Unstaged: rec[3], Unmerged: rec[0] == 'u', Submodule: rec[5] == 'S'}
			if rec[0] == '2' {
				if i+1 >= len(recs) || recs[i+1] == "" {
					return StatusReport{}, fmt.Errorf("git status: rename of %q without its source path", e.Path)
				}
				i++
				e.From = recs[i]
			}
		default:
			return StatusReport{}, fmt.Errorf("git status: unreadable record %q", rec)
		}
		r.Entries = append(r.Entries, e)
	}
	return r, nil
}

// afterFields is what follows the first n space-separated fields of rec (a path may hold spaces:
// it is the rest); ok is false when rec has fewer. No slice of fields is made: PostToolUse reads
// every changed path of the worktree through here.
func afterFields(rec string, n int) (string, bool) {
	for ; n > 0; n-- {
		i := strings.IndexByte(rec, ' ')
		if i < 0 {
			return "", false
		}
		rec = rec[i+1:]
	}
	return rec, true
}
