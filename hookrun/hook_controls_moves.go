package hookrun

// The controls' watch kept current by git exarchos's own moves of workflow refs. Every session's
// binding moves a ref, and the next SessionStart or PostToolUse then found the refs' directory and
// that ref's stamp moved and read, compared and rewrote the controls' whole state, O(refs): with
// 1,000 loose refs SessionStart after a move cost 12.4–15.2x `git rev-parse` against 6.4–8.4x
// before issue 28 (BENCHMARKS.md, "The controls kept by their writers"). Now the mover (gitstore's
// MoveWatcher, after the move took) changes in the worktree's stamps file only what its own move
// changed, and notes the move for the state in a journal the next full look applies:
//   - the refs directory's stamp, only when its entries (listed after the stamp was taken) are
//     exactly those the stamps file names, plus the created ref or minus the deleted one: a ref
//     created by anything else in between leaves the old stamp, and the next call looks;
//   - the moved ref's line, as "<stamp>@<commit>" (stamped before its content was read and found
//     to be this process's commit): the next calls read that one file too and compare it with the
//     commit, so a rewrite in place within the same clock tick (inode, size and time unchanged)
//     is still seen. Every other line is left as it was: whatever else moved still shows;
//   - the journal line "<feature> <from> <to>" (the commit read just before the move and the one
//     after, "-" for none), appended before the stamps file is replaced: the next full look takes
//     a ref the state kept at from as at to, so a later rewind to the commit before the move is
//     seen as a move. A line whose from is not what the state kept changes nothing (a move the
//     look saw already, or lines of concurrent writers out of order), so no line makes a false
//     hold. The state keeps where it read the journal to, as it does the ref-write log.
//
// A missing stamps file, a refs storage other than loose files, a directory listing that differs,
// or the ref found at another commit leave the stamps as they were: the next call looks, as
// before. A kill before the journal's line leaves the old stamps (the next call looks, and the
// ref-write log accepts the move); a kill between journal and stamps, the same with the journal
// applied. Two writers at once replace the file whole: the one overwritten shows its ref's old
// stamp, and the next call looks.

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/exarchos/git-exarchos/gitrepo"
	"github.com/exarchos/git-exarchos/gitstore"
	"github.com/exarchos/git-exarchos/internal/atomicfile"
	"github.com/exarchos/git-exarchos/internal/faults"
	"github.com/exarchos/git-exarchos/project"
)

// watchMove is the store's gitstore.MoveWatcher: the branch index (hook_index_moves.go) and the
// controls' watch follow each move.
func (r *Repo) watchMove(feature string) func(gitrepo.Hash) {
	index := r.indexMove(feature)
	from, _, err := gitrepo.ReadRef(r.CommonDir(), gitstore.RefName(feature))
	if err != nil {
		return index
	}
	return func(commit gitrepo.Hash) {
		index(commit)
		r.controlsMoved(feature, from, commit)
	}
}

// controlsMoved keeps the watch of the worktree this process runs in current after its own move
// of feature's ref from one commit to another (zero: none).
func (r *Repo) controlsMoved(feature string, from, commit gitrepo.Hash) {
	root := r.WorkTree()
	dir := r.refsDir()
	kept, err := os.ReadFile(r.stampsPath(root))
	if err != nil || len(kept) == 0 || strings.ContainsAny(feature, "\t\n/@") {
		return
	}
	dirStamp := gitrepo.FileStamp(dir) // before the listing: an entry made after it shows as another stamp
	d, err := os.Open(dir)
	if err != nil {
		return
	}
	listed, err := d.Readdirnames(-1)
	d.Close()
	if err != nil {
		return
	}
	var head, block []string // the controls' lines, the ref files' lines
	inBlock, dirLine := false, -1
	for line := range strings.SplitSeq(strings.TrimSuffix(string(kept), "\n"), "\n") {
		stamp, p, ok := strings.Cut(line, "\t")
		switch {
		case !ok:
			return
		case inBlock:
			if p != feature {
				block = append(block, line)
			}
		case stamp == refFilesLine:
			if p != dir {
				return
			}
			inBlock = true
		default:
			if p == dir {
				dirLine = len(head)
			}
			head = append(head, line)
		}
	}
	if !inBlock || dirLine < 0 || !sameNames(listed, block, feature, !commit.IsZero()) {
		return
	}
	head[dirLine] = dirStamp + "\t" + dir
	if !commit.IsZero() {
		stamp := gitrepo.StampsIn(dir, []string{feature})[0]
		b, err := os.ReadFile(filepath.Join(dir, feature)) // after its stamp: a later write shows as another
		if stamp == "" || err != nil || string(bytes.TrimSpace(b)) != commit.String() {
			return // moved again since, by someone else
		}
		block = append(block, stamp+"@"+commit.String()+"\t"+feature)
	}
	faults.Hit("controls-before-journal") // a kill here leaves the stamps as they were: the next call looks
	if !r.journalControlsMove(root, feature, from, commit) {
		return
	}
	faults.Hit("controls-before-stamps") // a kill here leaves the old stamps and the journal applied at the next look
	out := strings.Join(head, "\n") + "\n" + refFilesLine + "\t" + dir + "\n"
	if len(block) > 0 {
		out += strings.Join(block, "\n") + "\n"
	}
	_ = atomicfile.Write(r.stampsPath(root), []byte(out), 0o644)
}

// sameNames reports whether the directory's entries are the files block names, with feature
// among them when present says it exists now.
func sameNames(listed, block []string, feature string, present bool) bool {
	want := len(block)
	if present {
		want++
	}
	if len(listed) != want {
		return false
	}
	names := make(map[string]bool, len(block))
	for _, line := range block {
		_, name, _ := strings.Cut(line, "\t")
		names[name] = true
	}
	for _, n := range listed {
		if !names[n] && (n != feature || !present) {
			return false
		}
	}
	return true
}

// controlsJournalPath is where the moves of the worktree at root wait for the next full look.
func (r *Repo) controlsJournalPath(root string) string {
	return filepath.Join(r.CommonDir(), filepath.FromSlash(controlsDir), "moves-"+project.HashHex(root)[:16])
}

// journalControlsMove appends "<feature> <from> <to>" in one O_APPEND write.
func (r *Repo) journalControlsMove(root, feature string, from, to gitrepo.Hash) bool {
	f, err := os.OpenFile(r.controlsJournalPath(root), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return false
	}
	_, err = f.WriteString(feature + " " + orDash(from) + " " + orDash(to) + "\n")
	return f.Close() == nil && err == nil
}

func orDash(h gitrepo.Hash) string {
	if h.IsZero() {
		return "-"
	}
	return h.String()
}

// applyControlsJournal takes the moves journalled since st was kept into it: a ref the state
// kept at a move's from is taken at its to (read again at the next look: no stamp kept for it).
// st.MovesEnd becomes where the journal was read to.
func (r *Repo) applyControlsJournal(root string, st *controlState) {
	f, err := os.Open(r.controlsJournalPath(root))
	if err != nil {
		st.MovesEnd = 0
		return
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Size() < st.MovesEnd {
		st.MovesEnd = 0 // rewritten or truncated: what is there is all there is
	}
	if _, err := f.Seek(st.MovesEnd, io.SeekStart); err != nil {
		return
	}
	b, err := io.ReadAll(f)
	if err != nil {
		return
	}
	if i := bytes.LastIndexByte(b, '\n'); i+1 < len(b) {
		b = b[:i+1] // a line being written: read it next time
	}
	st.MovesEnd += int64(len(b))
	for line := range strings.SplitSeq(string(b), "\n") {
		fields := strings.Fields(line)
		if len(fields) != 3 {
			continue
		}
		name, from, to := gitstore.RefName(fields[0]), fields[1], fields[2]
		if kept, ok := st.Refs[name]; ok && kept != from || !ok && from != "-" {
			continue // not the state's commit: a move the state saw, or one out of order
		}
		delete(st.RefStamps, name)
		if to == "-" {
			delete(st.Refs, name)
		} else {
			st.Refs[name] = to
		}
	}
}

// controlsJournalEnd is the journal's length now (a new baseline reads it from there).
func (r *Repo) controlsJournalEnd(root string) int64 {
	if fi, err := os.Stat(r.controlsJournalPath(root)); err == nil {
		return fi.Size()
	}
	return 0
}
