package hookrun

// The controls' watch kept current by git exarchos's own moves of workflow refs. Every session's
// binding moves a ref, and the next SessionStart or PostToolUse then found the refs' directory and
// that ref's stamp moved and read, compared and rewrote the controls' whole state, O(refs): with
// 1,000 loose refs SessionStart after a move cost 12.4–15.2x `git rev-parse` against 6.4–8.4x
// before issue 28 (BENCHMARKS.md, "The controls kept by their writers"). Now the mover (Moved, which
// the write's caller hands the moves the store reported, after they took) changes in the
// worktree's stamps file only what its own moves changed, and notes them for the state in a
// journal the next full look applies:
//   - the refs directory's stamp, only when its entries (listed after the stamp was taken) are
//     exactly those the stamps file names, plus the created refs or minus the deleted ones: a ref
//     created by anything else in between leaves the old stamp, and the next call looks;
//   - each moved ref's line, as "<stamp>@<commit>" (stamped before its content was read and found
//     to be this process's commit): the next calls read that one file too and compare it with the
//     commit, so a rewrite in place within the same clock tick (inode, size and time unchanged)
//     is still seen. Every other line is left as it was: whatever else moved still shows;
//   - the journal's lines "<feature> <from> <to>" (the commit the store's compare-and-swap
//     replaced and the one after, "-" for none; gitstore.Move), appended in one write before the
//     stamps file is replaced: the next full look takes a ref the state kept at from as at to, so a later rewind to the commit before the move is
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
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/exarchos/git-exarchos/gitrepo"
	"github.com/exarchos/git-exarchos/gitstore"
	"github.com/exarchos/git-exarchos/internal/atomicfile"
	"github.com/exarchos/git-exarchos/internal/faults"
	"github.com/exarchos/git-exarchos/project"
)

// RefsBefore is what the refs looked like before a write that may move workflow refs
// (BeforeMoves): their stamp, and the end of the ref-write log. The moves the write reports are
// followed from it (Moved).
type RefsBefore struct {
	stamp  string
	logEnd int64
}

// BeforeMoves takes the refs' stamp and the ref-write log's end before a write. Taken before the
// whole write rather than just before the rename, it proves as much: whatever moved a ref between
// it and the index's update shows in the listing, the packed-refs stamp or the moved ref's
// content that indexMoved checks after the move, or (another git exarchos process's move, even
// of a ref whose file got its first inode back) in the ref-write log (onlyOwnMovesLogged); and
// an index written since (another writer's) no longer has this stamp.
func (r *Repo) BeforeMoves() RefsBefore {
	stamp, _ := r.refsStamp()
	before := RefsBefore{stamp: stamp}
	if fi, err := os.Stat(gitstore.RefWritesFile(r.CommonDir())); err == nil {
		before.logEnd = fi.Size()
	}
	return before
}

// onlyOwnMovesLogged reports whether every write git exarchos logged since before (the ref-write
// log, appended by any process before each move) is of a ref this process moved (to).
func (r *Repo) onlyOwnMovesLogged(before RefsBefore, to map[string]gitrepo.Hash) bool {
	logged, _, err := gitstore.RefWritesSince(r.CommonDir(), before.logEnd)
	if err != nil {
		return false
	}
	for ref := range logged {
		if _, ours := to[strings.TrimPrefix(ref, gitstore.RefPrefix)]; !ours {
			return false
		}
	}
	return true
}

// Moved keeps the hooks' branch index (hook_index_moves.go) and this worktree's controls' watch
// (above) in step with the moves of workflow refs this process made since before: the caller of
// each write hands them over (gitstore.Result.Moved, Integration.Moved, a deletion's move); the
// store calls nobody. nil moves are skipped. A move not handed over costs the next hook call a
// read of the refs, never a wrong answer: the index's and the controls' stamps no longer match.
func (r *Repo) Moved(before RefsBefore, moves ...*gitstore.Move) {
	var ms []gitstore.Move
	for _, m := range moves {
		if m != nil {
			ms = append(ms, *m)
		}
	}
	if len(ms) == 0 {
		return
	}
	faults.Hit("index-before-update") // a kill here leaves the refs moved and the index as it was
	to := finalCommits(ms)
	if r.onlyOwnMovesLogged(before, to) {
		r.indexMoved(before.stamp, to)
	}
	r.controlsMoved(ms, to)
}

// controlsMoved keeps the watch of the worktree this process runs in current after its own moves
// of workflow refs, in order, which leave each moved ref at to's commit (zero: deleted).
func (r *Repo) controlsMoved(moves []gitstore.Move, to map[string]gitrepo.Hash) {
	root := r.WorkTree()
	dir := r.refsDir()
	kept, err := os.ReadFile(r.stampsPath(root))
	if err != nil || len(kept) == 0 {
		return
	}
	for f := range to {
		if strings.ContainsAny(f, "\t\n/@") {
			return
		}
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
			if _, moved := to[p]; !moved {
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
	if !inBlock || dirLine < 0 || !sameNames(listed, block, to) {
		return
	}
	head[dirLine] = dirStamp + "\t" + dir
	for _, f := range slices.Sorted(maps.Keys(to)) {
		commit := to[f]
		if commit.IsZero() {
			continue
		}
		stamp := gitrepo.StampsIn(dir, []string{f})[0]
		b, err := os.ReadFile(filepath.Join(dir, f)) // after its stamp: a later write shows as another
		if stamp == "" || err != nil || string(bytes.TrimSpace(b)) != commit.String() {
			return // moved again since, by someone else
		}
		block = append(block, stamp+"@"+commit.String()+"\t"+f)
	}
	faults.Hit("controls-before-journal") // a kill here leaves the stamps as they were: the next call looks
	if !r.journalControlsMoves(root, moves) {
		return
	}
	faults.Hit("controls-before-stamps") // a kill here leaves the old stamps and the journal applied at the next look
	out := strings.Join(head, "\n") + "\n" + refFilesLine + "\t" + dir + "\n"
	if len(block) > 0 {
		out += strings.Join(block, "\n") + "\n"
	}
	_ = atomicfile.Write(r.stampsPath(root), []byte(out), 0o644)
}

// sameNames reports whether the directory's entries are the files block names plus the moved
// refs that exist now (to: a zero commit is a deletion).
func sameNames(listed, block []string, to map[string]gitrepo.Hash) bool {
	want := len(block)
	for _, c := range to {
		if !c.IsZero() {
			want++
		}
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
		if c, moved := to[n]; !names[n] && (!moved || c.IsZero()) {
			return false
		}
	}
	return true
}

// controlsJournalPath is where the moves of the worktree at root wait for the next full look.
func (r *Repo) controlsJournalPath(root string) string {
	return filepath.Join(r.CommonDir(), filepath.FromSlash(controlsDir), "moves-"+project.HashHex(root)[:16])
}

// journalControlsMoves appends "<feature> <from> <to>" for each move, in order, in one O_APPEND
// write.
func (r *Repo) journalControlsMoves(root string, moves []gitstore.Move) bool {
	f, err := os.OpenFile(r.controlsJournalPath(root), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return false
	}
	var lines strings.Builder
	for _, m := range moves {
		lines.WriteString(m.Feature + " " + orDash(m.From) + " " + orDash(m.To) + "\n")
	}
	_, err = f.WriteString(lines.String())
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
